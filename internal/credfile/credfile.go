// Package credfile reads the credential files the commands are given by
// their flags, msgcheck serve's and the Kafka gate's alike: PEM
// certificates, private keys and bundles of CAs, and passwords. Each is
// read within MaxBytes, so that a name such as /dev/zero costs no more
// than a large file, and checked for what it must hold, so that a file
// given to the wrong flag, or a key still encrypted, is named with what
// to do rather than met with a parser's error. An error's text is safe
// to print, its names and causes escaped (msg.Escape), and never quotes
// what a file holds.
package credfile

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fleetkit/catalogue/msg"
)

// MaxBytes bounds a file Read reads: a certificate chain or a bundle of
// CAs is some kilobytes, a key or a password less.
const MaxBytes = 1 << 20

// Read returns what the file name holds, refusing one of more than
// MaxBytes without reading more than a byte past them. An error opening
// it wraps the os package's (errors.Is(err, fs.ErrNotExist)).
func Read(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, escaped{err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, escaped{fmt.Errorf("%s: %w", name, err)}
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("%s holds more than %d bytes", msg.Escape(name), MaxBytes)
	}
	return data, nil
}

// CertPool returns the certificates of the PEM file name, a bundle of
// CAs, as a pool, refusing a file that holds none.
func CertPool(name string) (*x509.CertPool, error) {
	data, err := Read(name)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("%s holds no PEM certificate (-----BEGIN CERTIFICATE-----)", msg.Escape(name))
	}
	return pool, nil
}

// KeyPair reads a certificate (its chain) and its private key from PEM
// files, its Leaf parsed. Its errors name the file by the flag both
// commands give it, -tls-cert or -tls-key: a file that holds no
// certificate, or no key (the two swapped, say), a key encrypted, a key
// that is not the certificate's.
func KeyPair(certFile, keyFile string) (*tls.Certificate, error) {
	certPEM, err := Read(certFile)
	if err != nil {
		return nil, fmt.Errorf("-tls-cert: %w", err)
	}
	if !holds(certPEM, func(b *pem.Block) bool { return b.Type == "CERTIFICATE" }) {
		return nil, fmt.Errorf("-tls-cert: %s holds no PEM certificate (-----BEGIN CERTIFICATE-----)", msg.Escape(certFile))
	}
	keyPEM, err := Read(keyFile)
	if err != nil {
		return nil, fmt.Errorf("-tls-key: %w", err)
	}
	if !holds(keyPEM, func(b *pem.Block) bool { return b.Type == "PRIVATE KEY" || strings.HasSuffix(b.Type, " PRIVATE KEY") }) {
		return nil, fmt.Errorf("-tls-key: %s holds no PEM private key (-----BEGIN PRIVATE KEY-----)", msg.Escape(keyFile))
	}
	if holds(keyPEM, encrypted) {
		return nil, fmt.Errorf("-tls-key: %s holds an encrypted key: give it decrypted (openssl pkey -in KEY -out KEY.decrypted)", msg.Escape(keyFile))
	}
	// X509KeyPair's errors name what is wrong, never the key's bytes.
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("-tls-cert %s and -tls-key %s: %w", msg.Escape(certFile), msg.Escape(keyFile), escaped{err})
	}
	if pair.Leaf == nil { // GODEBUG=x509keypairleaf=0
		if pair.Leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
			return nil, fmt.Errorf("-tls-cert: %s: %w", msg.Escape(certFile), escaped{err})
		}
	}
	return &pair, nil
}

// encrypted reports whether a PEM block is an encrypted key: PKCS #8's,
// or OpenSSL's legacy form, which says so in a header.
func encrypted(b *pem.Block) bool {
	return b.Type == "ENCRYPTED PRIVATE KEY" || strings.Contains(b.Headers["Proc-Type"], "ENCRYPTED")
}

// holds reports whether data holds a PEM block of a type want accepts.
func holds(data []byte, want func(*pem.Block) bool) bool {
	for {
		var block *pem.Block
		if block, data = pem.Decode(data); block == nil {
			return false
		}
		if want(block) {
			return true
		}
	}
}

// escaped is an error whose text is escaped for printing (a file's
// name may hold anything), still unwrapping to the error it escapes.
type escaped struct{ err error }

func (e escaped) Error() string { return msg.Escape(e.err.Error()) }
func (e escaped) Unwrap() error { return e.err }
