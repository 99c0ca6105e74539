package web

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

	"github.com/specwatch/specwatch/exporter/exportertest"
	"github.com/specwatch/specwatch/internal/testkit/testproc"
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

// webConfig writes a web config with one bcrypt user (alice) and, with certFile, TLS.
func webConfig(t *testing.T, path, certFile, keyFile, user, password string) {
	t.Helper()
	conf := ""
	if certFile != "" {
		conf = "tls_server_config:\n  cert_file: " + certFile + "\n  key_file: " + keyFile + "\n"
	}
	if user != "" {
		hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		conf += "basic_auth_users:\n  " + user + ": " + string(hash) + "\n"
	}
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
}

// fetch does one request and returns the response with its body read.
func fetch(t *testing.T, c *http.Client, method, url, user, pass string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// TestBasicAuth serves a web config with one bcrypt user, over TLS and over plain HTTP: every
// endpoint, unknown paths included, answers 401 with a challenge unless given the right
// credentials, except /-/healthy, which needs none; credentials never reach the logs.
func TestBasicAuth(t *testing.T) {
	const user, password = "alice", "correct horse battery"
	for _, withTLS := range []bool{true, false} {
		t.Run(map[bool]string{true: "tls", false: "plain"}[withTLS], func(t *testing.T) {
			dir := t.TempDir()
			cfg := filepath.Join(dir, "web.yml")
			scheme, client := "http", &http.Client{}
			var certFile, keyFile string
			if withTLS {
				var pool *x509.CertPool
				certFile, keyFile, pool = selfSigned(t, dir)
				scheme = "https"
				client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
			}
			webConfig(t, cfg, certFile, keyFile, user, password)
			logs := &testproc.SyncBuffer{}
			logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			src := exportertest.ThreeSeries()
			addr := serveTest(t, NewServer(ServerOptions{ListenAddress: "127.0.0.1:0", WebConfigFile: cfg, Logger: logger,
				Source: src, Metrics: exportertest.NewMetrics(t, src).Registry()}))

			for _, ep := range []struct {
				path, want string // want: a fragment of the authorised body
				code       int
			}{
				{"/metrics", "specwatch_", 200},
				{"/api/v1/report", `"series"`, 200},
				{"/", "<h1>specwatch</h1>", 200},
				{"/-/ready", "Ready", 200},
				{"/nope", "404", 404},
				{"/-/healthy", "Healthy", 200},
			} {
				for _, cr := range []struct{ name, user, pass string }{
					{"none", "", ""}, {"wrong password", user, "wrong"}, {"unknown user", "mallory", password}, {"right", user, password},
				} {
					resp, body := fetch(t, client, "GET", scheme+"://"+addr+ep.path, cr.user, cr.pass)
					want := ep.code
					if cr.name != "right" && ep.path != healthyPath {
						want = http.StatusUnauthorized
					}
					if resp.StatusCode != want {
						t.Errorf("GET %s, credentials %s: %d, want %d", ep.path, cr.name, resp.StatusCode, want)
						continue
					}
					switch {
					case want == http.StatusUnauthorized:
						if ch := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(ch, "Basic ") || strings.Contains(body, ep.want) {
							t.Errorf("GET %s, credentials %s: challenge %q, body %q", ep.path, cr.name, ch, body)
						}
					case !strings.Contains(body, ep.want):
						t.Errorf("GET %s, credentials %s: body %q lacks %q", ep.path, cr.name, body, ep.want)
					}
					if withTLS && resp.Proto != "HTTP/2.0" {
						t.Errorf("GET %s over TLS: %s, want HTTP/2.0 (reloaded TLS configs keep ALPN)", ep.path, resp.Proto)
					}
				}
			}
			for _, tc := range []struct {
				method, path string
				code         int
			}{
				{"HEAD", healthyPath, 200},
				{"POST", healthyPath, 405},
				{"POST", "/metrics", 401}, // credentials first: nothing else is revealed without them
				{"HEAD", "/metrics", 401},
			} {
				if resp, _ := fetch(t, client, tc.method, scheme+"://"+addr+tc.path, "", ""); resp.StatusCode != tc.code {
					t.Errorf("%s %s without credentials: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.code)
				}
			}
			if withTLS {
				if resp, err := http.Get("http://" + addr + "/metrics"); err == nil {
					resp.Body.Close()
					if resp.StatusCode != http.StatusBadRequest {
						t.Errorf("plain HTTP to the TLS port: %d, want 400", resp.StatusCode)
					}
				}
			}
			basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
			if l := logs.String(); strings.Contains(l, password) || strings.Contains(l, basic) || strings.Contains(l, "$2a$") {
				t.Errorf("credentials in the logs:\n%s", l)
			}
			if want := `"tls":` + map[bool]string{true: "true", false: "false"}[withTLS]; !strings.Contains(logs.String(), want) {
				t.Errorf("no %s in the logs:\n%s", want, logs)
			}
		})
	}
}

// TestBasicAuthReload edits the web config under a running server: a new password applies to
// the next request (the old one stops working despite the cache), removing the users disables
// auth, and a broken file fails closed everywhere but /-/healthy.
func TestBasicAuthReload(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "web.yml")
	webConfig(t, cfg, "", "", "alice", "first")
	src := exportertest.ThreeSeries()
	addr := serveTest(t, NewServer(ServerOptions{ListenAddress: "127.0.0.1:0", WebConfigFile: cfg,
		Source: src, Metrics: exportertest.NewMetrics(t, src).Registry()}))
	c := &http.Client{}
	check := func(step, path, user, pass string, want int) {
		t.Helper()
		if resp, body := fetch(t, c, "GET", "http://"+addr+path, user, pass); resp.StatusCode != want {
			t.Errorf("%s: GET %s as %q/%q: %d %q, want %d", step, path, user, pass, resp.StatusCode, body, want)
		}
	}
	check("initial", "/metrics", "alice", "first", 200)
	check("initial (cached)", "/metrics", "alice", "first", 200)
	webConfig(t, cfg, "", "", "alice", "second")
	check("rotated", "/metrics", "alice", "first", 401)
	check("rotated", "/metrics", "alice", "second", 200)
	webConfig(t, cfg, "", "", "", "")
	check("no users", "/metrics", "", "", 200)
	if err := os.WriteFile(cfg, []byte("basic_auth_users: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	check("broken", "/metrics", "alice", "second", 500)
	check("broken", healthyPath, "", "", 200)
}
