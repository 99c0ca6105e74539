package exporter

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// selfSigned writes a certificate for 127.0.0.1 and its key into dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "specwatch test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	write := func(path, typ string, b []byte) {
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(certFile, "CERTIFICATE", der)
	write(keyFile, "EC PRIVATE KEY", kb)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestTLSAndBasicAuth serves through exporter-toolkit with a web config: TLS with a
// self-signed certificate and one bcrypt user. Every endpoint needs the password,
// /-/healthy included (exporter-toolkit cannot exempt a path; see ServerOptions), and the
// password never reaches the logs.
func TestTLSAndBasicAuth(t *testing.T) {
	const user, password = "alice", "correct horse battery"
	dir := t.TempDir()
	certFile, keyFile, pool := selfSigned(t, dir)
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "web.yml")
	conf := "tls_server_config:\n  cert_file: " + certFile + "\n  key_file: " + keyFile +
		"\nbasic_auth_users:\n  " + user + ": " + string(hash) + "\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	src := threeSeries()
	addr := serveTest(t, NewServer(ServerOptions{ListenAddress: "127.0.0.1:0", WebConfigFile: cfg, Logger: logger,
		Source: src, Metrics: newTestMetrics(t, src)}))
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}

	get := func(path, u, p string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", "https://"+addr+path, nil)
		if u != "" {
			req.SetBasicAuth(u, p)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		path, user, pass string
		want             int
	}{
		{"/metrics", "", "", 401},
		{"/metrics", user, "wrong", 401},
		{"/metrics", "mallory", password, 401},
		{"/metrics", user, password, 200},
		{"/api/v1/report", "", "", 401},
		{"/api/v1/report", user, password, 200},
		{"/-/ready", user, password, 200},
		{"/", user, password, 200},
		// exporter-toolkit v0.20 applies auth to the whole handler: no exemption possible.
		{"/-/healthy", "", "", 401},
		{"/-/healthy", user, password, 200},
	} {
		if got := get(tc.path, tc.user, tc.pass); got != tc.want {
			t.Errorf("GET %s as %q/%q: %d, want %d", tc.path, tc.user, tc.pass, got, tc.want)
		}
	}
	if resp, err := http.Get("http://" + addr + "/metrics"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("plain HTTP to the TLS port: %d, want 400", resp.StatusCode)
		}
	}
	basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	if l := logs.String(); strings.Contains(l, password) || strings.Contains(l, basic) || strings.Contains(l, string(hash)) {
		t.Errorf("credentials in the logs:\n%s", l)
	}
	if !strings.Contains(logs.String(), "TLS is enabled") {
		t.Errorf("exporter-toolkit's logs not captured:\n%s", logs)
	}
}
