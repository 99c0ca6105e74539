package web

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/exporter/exportertest"
)

func TestServerLimitsApplied(t *testing.T) {
	src := exportertest.ThreeSeries()
	def := NewServer(ServerOptions{Source: src, Metrics: exportertest.NewMetrics(t, src).Registry()}).srv
	if def.ReadHeaderTimeout != ReadHeaderTimeout || def.ReadTimeout != ReadTimeout || def.WriteTimeout != WriteTimeout ||
		def.IdleTimeout != IdleTimeout || def.MaxHeaderBytes != MaxHeaderBytes {
		t.Errorf("defaults not applied: %+v", def)
	}
	o := NewServer(ServerOptions{Source: src, Metrics: exportertest.NewMetrics(t, src).Registry(),
		ReadHeaderTimeout: 1, ReadTimeout: 2, WriteTimeout: 3, IdleTimeout: 4}).srv
	if o.ReadHeaderTimeout != 1 || o.ReadTimeout != 2 || o.WriteTimeout != 3 || o.IdleTimeout != 4 {
		t.Errorf("overrides not applied: %+v", o)
	}
}

// raw sends req as is on a new connection to addr and reads one response.
func raw(t *testing.T, addr, req string) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second)) // a hang fails, not blocks, the test
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatalf("writing %.40q: %v", req, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("response to %.40q: %v", req, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// TestRequestBounds sends raw requests to the real server: the bounds hold on every path
// before any handler runs, and a declared oversized body is refused without being read (the
// client never sends it; a read would hang until the test's deadline).
func TestRequestBounds(t *testing.T) {
	src := exportertest.ThreeSeries()
	addr := serveTest(t, NewServer(ServerOptions{ListenAddress: "127.0.0.1:0", Source: src, Metrics: exportertest.NewMetrics(t, src).Registry()}))
	overLimit := strconv.FormatInt(MaxBodyBytes+1, 16) + "\r\n" + strings.Repeat("x", MaxBodyBytes+1) + "\r\n0\r\n\r\n"
	for _, path := range []string{"/metrics", "/api/v1/report", "/", "/-/ready", healthyPath, "/nope"} {
		ok := 200
		if path == "/nope" {
			ok = 404
		}
		for _, tc := range []struct {
			name, method, query, headers, body string
			code                               int
			want                               string
		}{
			{"plain", "GET", "", "", "", ok, ""},
			{"long query", "GET", "?series=" + strings.Repeat("x", MaxQueryBytes), "", "", 414, "query string longer than"},
			{"query beyond the header limit", "GET", "?series=" + strings.Repeat("x", MaxHeaderBytes+4096), "", "", 431, ""},
			{"8 KiB header", "GET", "", "X-Pad: " + strings.Repeat("x", 8<<10) + "\r\n", "", ok, ""},
			{"32 KiB header", "GET", "", "X-Pad: " + strings.Repeat("x", 32<<10) + "\r\n", "", 431, ""},
			{"small body", "GET", "", "Content-Length: 1\r\n", "x", 400, "request body not allowed"},
			{"declared 1 MiB body, unsent", "GET", "", "Content-Length: 1048576\r\n", "", 413, "larger than"},
			{"chunked body over the limit", "GET", "", "Transfer-Encoding: chunked\r\n", overLimit, 413, "larger than"},
			{"empty chunked body", "GET", "", "Transfer-Encoding: chunked\r\n", "0\r\n\r\n", ok, ""},
			{"POST", "POST", "", "Content-Length: 0\r\n", "", 405, "read-only"},
			{"DELETE", "DELETE", "", "", "", 405, "read-only"},
		} {
			req := tc.method + " " + path + tc.query + " HTTP/1.1\r\nHost: specwatch\r\nConnection: close\r\n" + tc.headers + "\r\n" + tc.body
			resp, body := raw(t, addr, req)
			if resp.StatusCode != tc.code || !strings.Contains(body, tc.want) {
				t.Errorf("%s %s: %d %.80q, want %d %q", path, tc.name, resp.StatusCode, body, tc.code, tc.want)
			}
			if tc.code == 405 && resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: Allow %q, want GET, HEAD", path, tc.name, resp.Header.Get("Allow"))
			}
		}
	}
}

// TestSlowClientsTimeOut opens many connections that send half a request header and stall:
// the server closes every one of them once the header timeout has passed (not before), without
// a reply, and serves a normal client meanwhile. The server's ConnState hook tells when it has
// accepted them all; the reads block with a generous deadline, so nothing sleeps.
func TestSlowClientsTimeOut(t *testing.T) {
	const stalled = 200
	const headerTimeout = time.Second
	src := exportertest.ThreeSeries()
	s := NewServer(ServerOptions{ListenAddress: "127.0.0.1:0", Source: src, Metrics: exportertest.NewMetrics(t, src).Registry(),
		// Only the header timeout may close them within the test's deadlines.
		ReadHeaderTimeout: headerTimeout, ReadTimeout: time.Hour, WriteTimeout: time.Hour, IdleTimeout: time.Hour})
	type event struct {
		remote string
		at     time.Time
	}
	accepted, closed := make(chan struct{}, 4*stalled), make(chan event, 4*stalled)
	s.srv.ConnState = func(c net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			accepted <- struct{}{}
		case http.StateClosed, http.StateHijacked:
			closed <- event{c.RemoteAddr().String(), time.Now()}
		}
	}
	addr := serveTest(t, s)

	start := time.Now()
	conns := make([]net.Conn, 0, stalled)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for range stalled {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", len(conns), err)
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: spec"); err != nil {
			t.Fatal(err)
		}
	}
	wait := time.NewTimer(30 * time.Second)
	defer wait.Stop()
	for i := range stalled {
		select {
		case <-accepted:
		case <-wait.C:
			t.Fatalf("the server accepted %d of %d connections", i, stalled)
		}
	}

	client := &http.Client{Transport: &http.Transport{}} // keep-alive: its connection stays open
	defer client.CloseIdleConnections()
	resp, err := client.Get("http://" + addr + "/api/v1/report")
	if err != nil {
		t.Fatalf("normal client with %d stalled connections open: %v", stalled, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"series"`) {
		t.Errorf("normal client: %d %.80q", resp.StatusCode, b)
	}
	if n := len(closed); n > 0 {
		t.Fatalf("%d connections closed before the normal client was served; the test proves nothing", n)
	}

	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(10*headerTimeout + 20*time.Second))
		n, err := c.Read(make([]byte, 1))
		if n != 0 || !(errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) {
			t.Fatalf("stalled connection %d: read %d bytes, %v; want closed without a reply", i, n, err)
		}
	}
	mine := make(map[string]bool, stalled)
	for _, c := range conns {
		mine[c.LocalAddr().String()] = true
	}
	for i := 0; i < stalled; {
		select {
		case e := <-closed:
			if !mine[e.remote] {
				continue
			}
			if d := e.at.Sub(start); d < headerTimeout {
				t.Errorf("a stalled connection closed after %v, before the header timeout %v", d, headerTimeout)
			}
			i++
		case <-wait.C:
			t.Fatalf("the server reported %d of %d stalled connections closed", i, stalled)
		}
	}
}

// TestOptionsAsterisk: "OPTIONS *" is refused like every other method but GET and HEAD, with
// the Allow header, rather than answered 200 by net/http's general OPTIONS handler.
func TestOptionsAsterisk(t *testing.T) {
	src := exportertest.ThreeSeries()
	addr := serveTest(t, NewServer(ServerOptions{ListenAddress: "127.0.0.1:0", Source: src, Metrics: exportertest.NewMetrics(t, src).Registry()}))
	for _, target := range []string{"*", "/", "/metrics"} {
		resp, body := raw(t, addr, "OPTIONS "+target+" HTTP/1.1\r\nHost: specwatch\r\nConnection: close\r\n\r\n")
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" || !strings.Contains(body, "read-only") {
			t.Errorf("OPTIONS %s: %d Allow %q %.80q, want 405 with Allow GET, HEAD", target, resp.StatusCode, resp.Header.Get("Allow"), body)
		}
	}
}
