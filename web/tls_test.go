package web

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testCA is a certificate authority and a server certificate it signed for
// 127.0.0.1, written as PEM files.
type testCA struct {
	pool          *x509.CertPool
	caFile        string
	cert, key     string
	caCert        *x509.Certificate
	caKey         *ecdsa.PrivateKey
	dir           string
	serialCounter int64
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	ca := &testCA{dir: t.TempDir(), pool: x509.NewCertPool()}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "bitsieve test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca.caCert, _ = x509.ParseCertificate(der)
	ca.caKey = key
	ca.pool.AddCert(ca.caCert)
	ca.caFile = ca.write(t, "ca.pem", "CERTIFICATE", der)
	ca.issue(t, "127.0.0.1")
	return ca
}

// issue writes a new server certificate for host, signed by the CA.
func (ca *testCA) issue(t *testing.T, host string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca.serialCounter++
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1 + ca.serialCounter), Subject: pkix.Name{CommonName: host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP(host)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.caCert, &key.PublicKey, ca.caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	ca.cert = ca.write(t, "server.pem", "CERTIFICATE", der)
	ca.key = ca.write(t, "server.key", "EC PRIVATE KEY", kder)
}

func (ca *testCA) write(t *testing.T, name, typ string, der []byte) string {
	t.Helper()
	p := filepath.Join(ca.dir, name)
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestServeTLS: with a certificate, the server speaks HTTP/2 over TLS to a
// client that trusts its CA, answers a plain HTTP request on the same port
// with a 400, and refuses a pair that does not load with a sentence that
// names the file.
func TestServeTLS(t *testing.T) {
	ca := newTestCA(t)
	cfg, err := LoadTLS(ca.cert, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t, func(o *Options) { o.TLS = cfg })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ts.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.pool}, ForceAttemptHTTP2: true}}
	resp, err := client.Get("https://" + ln.Addr().String() + "/api/search?q=whale")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ProtoMajor != 2 || !strings.Contains(string(body), `"total":`) {
		t.Errorf("HTTPS search: %s %s %s", resp.Status, resp.Proto, body)
	}
	if _, err := http.Get("https://" + ln.Addr().String() + "/healthz"); err == nil {
		t.Error("a client without the CA was served")
	}
	// Plain HTTP to the TLS port.
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	conn.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
	status, _ := bufio.NewReader(conn).ReadString('\n')
	conn.Close()
	if !strings.Contains(status, "400") {
		t.Errorf("plain HTTP on the TLS port: %q", status)
	}

	if _, err := LoadTLS(ca.cert, ca.caFile); err == nil || !strings.Contains(err.Error(), ca.cert) {
		t.Errorf("a key that is not the certificate's: %v", err)
	}
	if _, err := LoadTLS(filepath.Join(ca.dir, "nope.pem"), ca.key); err == nil || !strings.Contains(err.Error(), "nope.pem") {
		t.Errorf("a missing certificate: %v", err)
	}
}

// TestTLSReload: a renewed certificate is served without a restart, and a
// renewal that does not load leaves the previous one in service.
func TestTLSReload(t *testing.T) {
	ca := newTestCA(t)
	c := &certFiles{cert: ca.cert, key: ca.key}
	if err := c.load(); err != nil {
		t.Fatal(err)
	}
	first := c.pair
	ca.issue(t, "127.0.0.1")
	c.checked = time.Time{}
	if got, _ := c.get(nil); got == first {
		t.Fatal("the renewed certificate was not loaded")
	}
	second := c.pair
	os.WriteFile(ca.key, []byte("garbage"), 0o600)
	c.checked = time.Time{}
	if got, _ := c.get(nil); got != second {
		t.Fatal("a broken renewal replaced the certificate")
	}
}
