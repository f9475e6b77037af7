package web

import (
	"crypto/tls"
	"fmt"
	"os"
	"sync"
	"time"
)

// LoadTLS returns the TLS configuration of a server with the certificate
// chain in certFile and its private key in keyFile (PEM, as every
// certificate authority and tool issues them): Go's defaults, which offer
// HTTP/2 and only modern cipher suites, from TLS 1.2 on. The files are
// read now, so that a bad pair is an error at start, and read again when
// either changes (looked at no more than every certCheckEvery), so that a
// renewed certificate is served without a restart; a renewal that fails to
// load leaves the previous pair in service.
func LoadTLS(certFile, keyFile string) (*tls.Config, error) {
	c := &certFiles{cert: certFile, key: keyFile}
	if err := c.load(); err != nil {
		return nil, err
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: c.get}, nil
}

// certCheckEvery is how often the certificate files are looked at.
const certCheckEvery = 10 * time.Second

// certFiles serves the certificate of a pair of files, reloaded when they
// change.
type certFiles struct {
	cert, key string

	mu      sync.Mutex
	pair    *tls.Certificate
	stamp   string // the files' sizes and modification times, when loaded
	checked time.Time
}

func (c *certFiles) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if time.Since(c.checked) >= certCheckEvery {
		c.checked = time.Now()
		if st, err := c.filesStamp(); err == nil && st != c.stamp {
			c.loadLocked() // on failure the previous pair stays
		}
	}
	return c.pair, nil
}

func (c *certFiles) load() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.loadLocked()
}

func (c *certFiles) loadLocked() error {
	st, err := c.filesStamp()
	if err != nil {
		return err
	}
	pair, err := tls.LoadX509KeyPair(c.cert, c.key)
	if err != nil {
		return fmt.Errorf("cannot use the TLS certificate %s with the key %s: %v", c.cert, c.key, err)
	}
	c.pair, c.stamp, c.checked = &pair, st, time.Now()
	return nil
}

func (c *certFiles) filesStamp() (string, error) {
	var st string
	for _, name := range []string{c.cert, c.key} {
		fi, err := os.Stat(name)
		if err != nil {
			return "", fmt.Errorf("cannot read the TLS file %s: %v", name, errText(err))
		}
		st += fmt.Sprintf("%d/%d;", fi.Size(), fi.ModTime().UnixNano())
	}
	return st, nil
}

// errText strips Go's "op path:" prefix from a file error.
func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
