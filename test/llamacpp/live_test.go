//go:build linux

package llamacpp

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testharness"
	"github.com/specwatch/specwatch/model"
)

// live is a `specwatch run` following the draft scenario as an operator would run it: the
// engine's journal unit, its /metrics, and the file its output is redirected to.
type live struct {
	d          *testharness.Daemon
	engineAddr string
}

// LiveResult is what the daemon served once the draft scenario's engine had stopped.
type LiveResult struct {
	Report  model.Report
	Metrics string
	Log     string // the daemon's own log
}

func startLive(t *testing.T, c *Capture) *live {
	l := &live{engineAddr: testharness.FreeAddr(t)}
	bin := testharness.BuildSpecwatch(t)
	logPath := filepath.Join(c.Dir, "specwatch-run.log")
	l.d = testharness.NewDaemon(t, bin, "127.0.0.1:0", t.TempDir(), logPath,
		"--journal.directory", c.Journal.Dir(), "--journal.unit", unit,
		"--scrape.url", "http://"+l.engineAddr+"/metrics",
		"--file", filepath.Join(c.Dir, "draft.log"))
	l.d.Start()
	return l
}

// finish waits until the daemon has read everything (two reports a scrape period apart agree)
// and records what it serves.
func (l *live) finish(t *testing.T, c *Capture) *LiveResult {
	t.Helper()
	c.Journal.Sync()
	var prev, cur model.Report
	deadline := time.Now().Add(60 * time.Second)
	for {
		time.Sleep(6 * time.Second) // longer than the 5 s scrape period
		cur = liveReport(t, l.d.Addr())
		if sameCounts(prev, cur) || time.Now().After(deadline) {
			break
		}
		prev = cur
	}
	m, err := l.d.Metrics()
	if err != nil {
		t.Fatalf("the daemon's /metrics: %v", err)
	}
	return &LiveResult{Report: cur, Metrics: m, Log: filepath.Join(c.Dir, "specwatch-run.log")}
}

func liveReport(t *testing.T, addr string) model.Report {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/api/v1/report")
	if err != nil {
		t.Fatalf("/api/v1/report: %v", err)
	}
	defer resp.Body.Close()
	var r model.Report
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("/api/v1/report: %v", err)
	}
	return r
}

func sameCounts(a, b model.Report) bool {
	if a.Input.Lines != b.Input.Lines || len(a.Series) != len(b.Series) || b.Input.Lines == 0 {
		return false
	}
	for i := range a.Series {
		if a.Series[i].Samples != b.Series[i].Samples {
			return false
		}
	}
	return true
}
