package demo

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/daemon"
	"github.com/specwatch/specwatch/internal/testkit/testproc"
)

// lockedBuffer is the demo's banner output, written by Run's goroutine and read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var metricsURL = regexp.MustCompile(`http://[^/\s]+/metrics\b`)

// TestRunningDemoMetricsPassPromtool runs the daemon in process on the tour (the replayed logs
// and the live scrape of the simulated vLLM engine), waits until its /metrics serves every
// source's families (the per-series figures and commit counters, the scrape's own counters),
// and pipes the scrape to `promtool check metrics` (Debian package prometheus), which must
// print nothing: no warning about names, units, HELP or counter suffixes.
func TestRunningDemoMetricsPassPromtool(t *testing.T) {
	promtool := testproc.NeedBinary(t, "promtool", "prometheus")
	sc, ok := Find("tour")
	if !ok {
		t.Fatal("no tour scenario")
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, RunOptions{Scenario: sc, Speed: 0, Listen: "127.0.0.1:0", Log: zerolog.Nop(), Out: out})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil && ctx.Err() == nil {
			t.Errorf("demo: %v", err)
		}
	}()
	promtoolClean(t, promtool, func() []byte { return scrapeOnce(t, out.String()) },
		"specwatch_commit_length_tokens{", "specwatch_committed_tokens_total{", "specwatch_verify_steps_total{",
		"specwatch_scrape_samples_total{", "specwatch_scrape_resets_total{", "specwatch_step_duration_seconds_bucket{")
}

// TestRunningDaemonMetricsPassPromtool is the same for `run` as its command builds it
// (daemon.New, Daemon.Run): following a log file, into which the tour's log is written once
// it runs, and scraping the simulated vLLM engine, so that /metrics has the file follower's
// families beside the series' and the scrape's.
func TestRunningDaemonMetricsPassPromtool(t *testing.T) {
	promtool := testproc.NeedBinary(t, "promtool", "prometheus")
	dir := t.TempDir()
	logPath := filepath.Join(dir, "engine.log")
	if err := os.WriteFile(logPath, nil, 0o600); err != nil { // empty: read from its start
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Listen, cfg.StateDir, cfg.Files = "127.0.0.1:0", filepath.Join(dir, "state"), []string{logPath}
	stopMetrics, err := StartMetrics(&cfg, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer stopMetrics()
	d, err := daemon.New(daemon.Options{Config: cfg, Log: zerolog.Nop(), Live: true, Follow: true, Title: "specwatch"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil && ctx.Err() == nil {
			t.Errorf("run: %v", err)
		}
	}()
	sc, _ := Find("tour")
	src := sc.Log()
	f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, src); err != nil {
		t.Fatal(err)
	}
	src.Close()
	f.Close()
	url := "http://" + d.Addr() + "/metrics"
	promtoolClean(t, promtool, func() []byte { return scrapeOnce(t, url) },
		"specwatch_commit_length_tokens{", "specwatch_committed_tokens_total{", "specwatch_verify_steps_total{",
		"specwatch_scrape_samples_total{", "specwatch_scrape_resets_total{", "specwatch_file_read_bytes_total ",
		"specwatch_step_duration_seconds_bucket{")
}

// promtoolClean scrapes until every wanted line start is there (2 minutes at most), then
// pipes the scrape to promtool check metrics, which must print nothing.
func promtoolClean(t *testing.T, promtool string, scrape func() []byte, want ...string) {
	t.Helper()
	var body []byte
	deadline := time.Now().Add(2 * time.Minute)
	for {
		body = scrape()
		missing := ""
		for _, w := range want {
			if !bytes.Contains(body, []byte("\n"+w)) {
				missing = w
				break
			}
		}
		if missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics still lacks %s after 2 minutes:\n%s", missing, body)
		}
		time.Sleep(200 * time.Millisecond) // polling a condition with a deadline, not racing
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	var lint bytes.Buffer
	cmd.Stdout, cmd.Stderr = &lint, &lint
	if err := cmd.Run(); err != nil || lint.Len() > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, lint.String())
	}
}

// scrapeOnce GETs the first /metrics address in text (the demo's banner, or the address
// itself), or returns nil while there is none or the server does not answer yet.
func scrapeOnce(t *testing.T, text string) []byte {
	t.Helper()
	u := metricsURL.FindString(text)
	if u == "" {
		return nil
	}
	resp, err := http.Get(u) //nolint:noctx // a loopback test server
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", u, resp.StatusCode, err)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET %s: content type %q, want the text format promtool reads", u, resp.Header.Get("Content-Type"))
	}
	return b
}
