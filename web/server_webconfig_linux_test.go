//go:build linux

package web

import (
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/specwatch/specwatch/exporter/exportertest"
)

// TestWebConfigHostileFile: the web config replaced under a running server by a FIFO or a link
// to /dev/zero fails closed at once (500, /-/healthy still 200), without a hung request, a
// leaked goroutine or the daemon's memory filled (issue 27, item 9: every request hung on the
// FIFO; /dev/zero crashed the daemon). Listen refuses such a file too.
func TestWebConfigHostileFile(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "web.yml")
	webConfig(t, cfg, "", "", "alice", "first")
	src := exportertest.ThreeSeries()
	addr := serveTest(t, NewServer(ServerOptions{ListenAddress: "127.0.0.1:0", WebConfigFile: cfg,
		Source: src, Metrics: exportertest.NewMetrics(t, src).Registry()}))
	c := &http.Client{Timeout: 5 * time.Second}
	check := func(step, path string, want int) {
		t.Helper()
		if resp, body := fetch(t, c, "GET", "http://"+addr+path, "alice", "first"); resp.StatusCode != want {
			t.Errorf("%s: GET %s: %d %q, want %d", step, path, resp.StatusCode, body, want)
		}
	}
	check("regular", "/metrics", 200)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Remove(cfg))
	must(syscall.Mkfifo(cfg, 0o600))
	before := runtime.NumGoroutine()
	for range 20 {
		check("FIFO", "/metrics", 500)
	}
	check("FIFO", healthyPath, 200)
	if n := runtime.NumGoroutine(); n > before+10 {
		t.Errorf("goroutines %d → %d: requests left hanging", before, n)
	}
	must(os.Remove(cfg))
	must(os.Symlink("/dev/zero", cfg))
	check("/dev/zero", "/metrics", 500)
	check("/dev/zero", healthyPath, 200)
	must(os.Remove(cfg))
	webConfig(t, cfg, "", "", "alice", "first")
	check("regular again", "/metrics", 200)

	m := exportertest.NewMetrics(t, src)
	for _, bad := range []string{"fifo", "zero"} {
		p := filepath.Join(dir, bad+".yml")
		if bad == "fifo" {
			must(syscall.Mkfifo(p, 0o600))
		} else {
			must(os.Symlink("/dev/zero", p))
		}
		done := make(chan error, 1)
		go func() {
			done <- NewServer(ServerOptions{ListenAddress: "127.0.0.1:0", WebConfigFile: p, Source: src, Metrics: m.Registry()}).Listen()
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("Listen with a %s web config succeeded", bad)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Listen with a %s web config hangs", bad)
		}
	}
}
