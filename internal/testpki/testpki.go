// Package testpki makes certificate authorities, and certificates they
// sign, for tests of TLS: ECDSA P-256 keys, each certificate valid from an
// hour ago to an hour from now.
//
//	ca := testpki.NewCA(t, "test CA")
//	server := ca.Issue(t, &x509.Certificate{
//		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
//		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
//	})
//	// server.Pair for a tls.Config; server.CertPEM and server.KeyPEM for files
package testpki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"
)

// A CA is a self-signed certificate authority.
type CA struct {
	Cert *x509.Certificate
	PEM  []byte // Cert, PEM-encoded
	key  *ecdsa.PrivateKey
}

// NewCA makes a certificate authority whose common name is name.
func NewCA(t testing.TB, name string) *CA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		Subject: pkix.Name{CommonName: name}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign,
	}
	setSerialAndValidity(t, tmpl)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &CA{Cert: cert, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), key: key}
}

// Pool returns a pool holding the authority's certificate alone, to trust
// it.
func (ca *CA) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	return pool
}

// A Leaf is a certificate an authority signed, with its private key.
type Leaf struct {
	Pair    tls.Certificate
	CertPEM []byte // the certificate, PEM-encoded
	KeyPEM  []byte // its private key, PEM-encoded PKCS #8
}

// Issue signs a certificate of tmpl, for a new key. It sets tmpl's serial
// number (a random one), key usage, and validity unless tmpl's NotAfter
// is set; its names and extended key usage are the caller's.
func (ca *CA) Issue(t testing.TB, tmpl *x509.Certificate) *Leaf {
	t.Helper()
	key := newKey(t)
	notBefore, notAfter := tmpl.NotBefore, tmpl.NotAfter
	setSerialAndValidity(t, tmpl)
	if !notAfter.IsZero() {
		tmpl.NotBefore, tmpl.NotAfter = notBefore, notAfter
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	l := &Leaf{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}
	if l.Pair, err = tls.X509KeyPair(l.CertPEM, l.KeyPEM); err != nil {
		t.Fatal(err)
	}
	return l
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func setSerialAndValidity(t testing.TB, tmpl *x509.Certificate) {
	t.Helper()
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
}
