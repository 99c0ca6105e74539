package daemon

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/ingest/journal"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
	"github.com/specwatch/specwatch/internal/testkit/testproc"
)

func getStatus(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitFor polls cond every 20 ms for up to 30 s (a real daemon's goroutines).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// messages returns the log lines whose message is msg.
func messages(t *testing.T, b []byte, msg string) []map[string]any {
	var out []map[string]any
	for _, m := range logLines(t, b) {
		if m["message"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// TestRunTypoGlob: `run --file '<dir>/sglan/*.log'` (a typo: the directory does not exist)
// warns once that the glob matches no file (not_found), says the source can read nothing, and
// /-/ready answers 503 with that reason while /-/healthy stays 200; specwatch_source_up is 0 and
// the error is counted by reason. Once the directory and a log appear, it reads again, once.
// The log has one serving line, names the sources it caught up with (no journal here), and
// ends with a line saying what was saved; no line uses "err" or a duration without its unit.
// Before, nothing was logged and /-/ready said Ready.
func TestRunTypoGlob(t *testing.T) {
	dir := t.TempDir()
	glob := filepath.Join(dir, "sglan", "*.log")
	cfg := config.Default()
	cfg.Listen, cfg.StateDir, cfg.Files = "127.0.0.1:0", filepath.Join(dir, "state"), []string{glob}
	var logs testproc.SyncBuffer
	d, err := New(Options{Config: cfg, Log: zerolog.New(&logs), Live: true, Follow: true, Title: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	base := "http://" + d.Addr()
	why := "files: glob " + glob + " matches nothing: open " + filepath.Join(dir, "sglan") + ": no such file or directory"
	waitFor(t, "/-/ready 503 with the reason", func() bool {
		code, body := getStatus(t, base+"/-/ready")
		return code == http.StatusServiceUnavailable && body == "Not ready: "+why+"\n"
	})
	if code, _ := getStatus(t, base+"/-/healthy"); code != 200 {
		t.Errorf("/-/healthy %d while a source reads nothing, want 200", code)
	}
	_, metrics := getStatus(t, base+"/metrics")
	for _, want := range []string{`specwatch_source_up{source="files"} 0`, `specwatch_source_errors_total{reason="not_found",source="files"} 1`,
		`specwatch_source_errors_total{reason="permission_denied",source="files"} 0`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(dir, "sglan"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "sglan", "engine.log"), []byte("not an engine line\n"), 0o644))
	waitFor(t, "/-/ready 200 once the glob matches", func() bool { code, _ := getStatus(t, base+"/-/ready"); return code == 200 })
	if _, metrics := getStatus(t, base+"/metrics"); !strings.Contains(metrics, `specwatch_source_up{source="files"} 1`) {
		t.Errorf("specwatch_source_up once the glob matches: %s", metrics)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b := []byte(logs.String())
	one := func(msg string) map[string]any {
		t.Helper()
		got := messages(t, b, msg)
		if len(got) != 1 {
			t.Fatalf("%d lines %q, want 1; log:\n%s", len(got), msg, b)
		}
		return got[0]
	}
	if m := one("glob matches no file"); m["level"] != "warn" || m["glob"] != glob || m["reason"] != "not_found" || m["error"] == nil {
		t.Errorf("glob line %v", m)
	}
	if m := one("source can read nothing; /-/ready answers 503"); m["level"] != "warn" || m["source"] != "files" || "files: "+m["reason"].(string) != why {
		t.Errorf("down line %v", m)
	}
	if m := one("glob matches files again"); m["level"] != "info" || m["glob"] != glob {
		t.Errorf("glob again line %v", m)
	}
	if m := one("source reads again"); m["level"] != "info" || m["source"] != "files" {
		t.Errorf("up line %v", m)
	}
	if m := one("serving /metrics, /api/v1/report and the status page"); m["listen"] != d.Addr() {
		t.Errorf("serving line %v", m)
	}
	if m := one("caught up: every source has been read to its end"); !equalAny(m["sources"], "files") {
		t.Errorf("caught-up line %v", m)
	}
	m := one("stopped")
	if m["level"] != "info" || !equalAny(m["positions"], "the file positions") || m["positions_saved"] != true || m["model_saved"] != true {
		t.Errorf("shutdown line %v", m)
	}
	lines := logLines(t, b)
	if last := lines[len(lines)-1]; last["message"] != "stopped" {
		t.Errorf("last line %v, want the shutdown line", last)
	}
	for _, l := range lines {
		for _, bad := range []string{"err", "took", "interval", "timeout", "bound", "refresh"} {
			if _, ok := l[bad]; ok {
				t.Errorf("field %q: %v", bad, l)
			}
		}
	}
}

func equalAny(v any, want ...string) bool {
	l, ok := v.([]any)
	if !ok || len(l) != len(want) {
		return false
	}
	for i := range l {
		if l[i] != want[i] {
			return false
		}
	}
	return true
}

// TestSlogErrorField: the HTTP server's slog lines write their error as "error", as zerolog's
// Err does, where slog callers write "err" (web's promhttp and web-config lines did).
func TestSlogErrorField(t *testing.T) {
	var b bytes.Buffer
	l := newSlog(zerolog.New(&b))
	l.Error("serving /metrics", "err", errors.New("boom"))
	l.With(slog.String("err", "x")).Warn("with")
	got := logLines(t, b.Bytes())
	if len(got) != 2 || got[0]["error"] != "boom" || got[0]["err"] != nil || got[1]["error"] != "x" || got[1]["err"] != nil {
		t.Errorf("slog lines %v, want the error under %q", got, zerolog.ErrorFieldName)
	}
}

// TestCheckJournal: `--journal.unit sglang-ddtree` is completed as journalctl completes it and
// logged so, once; a unit that selects nothing in the journal (a typo) is a warning naming it.
// Before, nothing was said and the unit matched nothing.
func TestCheckJournal(t *testing.T) {
	dir := t.TempDir()
	path := testjournal.BuildFileFunc(t, dir, 5, func(i int, e *testjournal.Entry) {
		*e = testjournal.Entry{Host: "gpu07", Unit: "sglang-ddtree.service", Identifier: "python3", Message: []byte("line"),
			Time: testjournal.FixtureEpoch.Add(time.Duration(i) * time.Millisecond)}
	})
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	log := zerolog.New(&b)
	d := &Daemon{log: log, sources: newSources(prometheusRegistry(), log)}
	d.checkJournal(journal.Options{Dir: dir, Units: []string{"sglang-ddtree", "sglan-ddtree.service"}, Backend: journal.Native}, true)
	got := logLines(t, b.Bytes())
	if len(got) != 2 {
		t.Fatalf("log %s, want 2 lines", b.String())
	}
	if m := got[0]; m["message"] != "journal unit completed as journalctl -u completes it" || m["given"] != "sglang-ddtree" ||
		m["unit"] != "sglang-ddtree.service" || m["level"] != "info" {
		t.Errorf("completion line %v", m)
	}
	if m := got[1]; !strings.HasPrefix(m["message"].(string), "journal.unit selects no entry in the journal") ||
		m["unit"] != "sglan-ddtree.service" || m["level"] != "warn" {
		t.Errorf("typo line %v", m)
	}
}

func prometheusRegistry() *prometheus.Registry { return prometheus.NewRegistry() }

// TestReloadWarnsOfEmptySources: a reload's configuration is checked as the start's is: a glob
// in a directory that does not exist and a unit that selects nothing are warnings naming them
// (the sources themselves change at the next restart). Before, a reload said nothing of them.
func TestReloadWarnsOfEmptySources(t *testing.T) {
	dir := t.TempDir()
	journalDir := filepath.Join(dir, "journal")
	if err := os.Mkdir(journalDir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := testjournal.BuildFileFunc(t, journalDir, 3, func(i int, e *testjournal.Entry) {
		*e = testjournal.Entry{Host: "gpu07", Unit: "sglang-ddtree.service", Identifier: "python3", Message: []byte("line"),
			Time: testjournal.FixtureEpoch.Add(time.Duration(i) * time.Millisecond)}
	})
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	typo := filepath.Join(dir, "sglan", "*.log")
	cfg.Files = []string{typo, filepath.Join(journalDir, "*.journal")}
	cfg.Journal.Dir, cfg.Journal.Units, cfg.Journal.Backend = journalDir, []string{"sglang-ddtree", "sglan-ddtree"}, "native"
	var b bytes.Buffer
	log := zerolog.New(&b)
	d := &Daemon{log: log, sources: newSources(prometheusRegistry(), log)}
	d.checkSources(cfg)
	got := logLines(t, b.Bytes())
	if len(got) != 4 {
		t.Fatalf("log %s, want 4 lines", b.String())
	}
	if m := got[0]; m["message"] != "glob matches no file" || m["glob"] != typo || m["reason"] != "not_found" || m["level"] != "warn" {
		t.Errorf("glob line %v", m)
	}
	if m := got[1]; m["message"] != "journal unit completed as journalctl -u completes it" || m["unit"] != "sglang-ddtree.service" {
		t.Errorf("completion line %v", m)
	}
	if m := got[2]; m["given"] != "sglan-ddtree" || m["unit"] != "sglan-ddtree.service" || m["level"] != "info" {
		t.Errorf("second completion line %v", m)
	}
	if m := got[3]; !strings.HasPrefix(m["message"].(string), "journal.unit selects no entry") || m["unit"] != "sglan-ddtree.service" || m["level"] != "warn" {
		t.Errorf("unit line %v", m)
	}
}
