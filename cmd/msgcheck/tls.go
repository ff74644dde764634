package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/fleetkit/catalogue/internal/credfile"
	"github.com/fleetkit/catalogue/msg"
)

// certCheckEvery is how often, at most, serve looks at whether the
// certificate's files changed, on a new connection. Tests shorten it.
var certCheckEvery = time.Second

// tlsFiles are the PEM files of serve's HTTPS: all empty for plain HTTP.
type tlsFiles struct {
	cert, key string // the server's certificate (chain) and its key
	clientCA  string // the CAs of the client certificates required, if any
}

func (f tlsFiles) enabled() bool { return f.cert != "" || f.key != "" || f.clientCA != "" }

// usage returns why the flags cannot work together, or "".
func (f tlsFiles) usage() string {
	switch {
	case f.key != "" && f.cert == "":
		return "-tls-key needs -tls-cert, the certificate of the key"
	case f.cert != "" && f.key == "":
		return "-tls-cert needs -tls-key, the certificate's private key"
	case f.clientCA != "" && f.cert == "":
		return "-tls-client-ca needs -tls-cert and -tls-key: client certificates are asked for over HTTPS"
	}
	return ""
}

// config reads the files and returns serve's TLS configuration and the
// certificate it starts with; logger reports the certificate's reloads.
// An error names the flag and the file, never what the file holds.
func (f tlsFiles) config(logger *log.Logger) (*tls.Config, *x509.Certificate, error) {
	pair, err := newKeyPair(f.cert, f.key, logger)
	if err != nil {
		return nil, nil, err
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: pair.get}
	if f.clientCA != "" {
		if c.ClientCAs, err = credfile.CertPool(f.clientCA); err != nil {
			return nil, nil, fmt.Errorf("-tls-client-ca: %w", err)
		}
		c.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return c, pair.cert.Leaf, nil
}

// describe says which names a certificate is for and until when, for
// the log.
func describe(c *x509.Certificate) string {
	names := append([]string(nil), c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 {
		names = append(names, "no name")
	}
	return msg.Escape(fmt.Sprintf("for %s, valid until %s", strings.Join(names, ", "), c.NotAfter.UTC().Format(time.RFC3339)))
}

// A keyPair is serve's certificate, read again from its files when they
// change, so that an operator whose certificates are short-lived renews
// them without a restart. It looks at the files at most once every
// certCheckEvery, as a client connects; a pair that does not load (a key
// not yet written beside its new certificate, say) is reported and the
// certificate served so far kept, until the files change again. Files
// that are not regular files, such as a pipe, are read once.
type keyPair struct {
	certFile, keyFile string
	log               *log.Logger

	mu     sync.Mutex
	cert   *tls.Certificate
	seen   [2]os.FileInfo // of certFile and keyFile, when last read
	next   time.Time      // when to look at the files again
	failed string         // the last failure reported, so as to report it once
}

func newKeyPair(certFile, keyFile string, logger *log.Logger) (*keyPair, error) {
	k := &keyPair{certFile: certFile, keyFile: keyFile, log: logger, next: time.Now().Add(certCheckEvery)}
	// Before reading, so that a change while reading is seen next time.
	k.seen, _ = k.stat()
	cert, err := credfile.KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	k.cert = cert
	return k, nil
}

// stat returns what the files are now.
func (k *keyPair) stat() ([2]os.FileInfo, error) {
	var fi [2]os.FileInfo
	for i, name := range [2]string{k.certFile, k.keyFile} {
		var err error
		if fi[i], err = os.Stat(name); err != nil {
			return fi, err
		}
	}
	return fi, nil
}

// get is the tls.Config's GetCertificate.
func (k *keyPair) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := time.Now()
	if now.Before(k.next) {
		return k.cert, nil
	}
	k.next = now.Add(certCheckEvery)
	fi, err := k.stat()
	if err != nil {
		k.report(msg.Escape(err.Error()))
		return k.cert, nil
	}
	if !changed(k.seen, fi) {
		return k.cert, nil
	}
	k.seen = fi // tried once: again when they change again
	cert, err := credfile.KeyPair(k.certFile, k.keyFile)
	if err != nil {
		k.report(err.Error())
		return k.cert, nil
	}
	k.cert, k.failed = cert, ""
	k.log.Printf("reloaded the certificate %s from %s", describe(cert.Leaf), msg.Escape(k.certFile))
	return k.cert, nil
}

// changed reports whether a regular file of was replaced or rewritten
// since then.
func changed(then, now [2]os.FileInfo) bool {
	for i := range now {
		if !now[i].Mode().IsRegular() {
			continue
		}
		if then[i] == nil || !os.SameFile(then[i], now[i]) || !then[i].ModTime().Equal(now[i].ModTime()) || then[i].Size() != now[i].Size() {
			return true
		}
	}
	return false
}

// report logs why the certificate could not be read again, once for
// each reason.
func (k *keyPair) report(why string) {
	if why == k.failed {
		return
	}
	k.failed = why
	k.log.Printf("keeping the certificate %s: %s", describe(k.cert.Leaf), why)
}
