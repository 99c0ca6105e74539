//go:build linux

package llamacpp

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/model"
)

// live is two `specwatch run`s following the draft scenario as operators would: one reads
// the engine's journal unit and scrapes its /metrics, the other follows the file its output is
// redirected to.
type live struct {
	journal, file *testharness.Daemon
	engineAddr    string
}

// LiveResult is what the daemons served once the draft scenario's engine had stopped.
type LiveResult struct {
	Journal, File model.Report
	Metrics       string // the journal daemon's /metrics
}

func startLive(t *testing.T, c *Capture) *live {
	l := &live{engineAddr: testharness.FreeAddr(t)}
	bin := testharness.BuildSpecwatch(t)
	l.journal = testharness.NewDaemon(t, bin, "127.0.0.1:0", t.TempDir(), filepath.Join(c.Dir, "specwatch-journal.log"),
		"--journal.directory", c.Journal.Dir(), "--journal.unit", unit,
		"--scrape.url", "http://"+l.engineAddr+"/metrics", "--scrape.label", "unit="+unit)
	l.file = testharness.NewDaemon(t, bin, "127.0.0.1:0", t.TempDir(), filepath.Join(c.Dir, "specwatch-file.log"),
		"--file", filepath.Join(c.Dir, "draft.log"))
	l.journal.Start()
	l.file.Start()
	return l
}

// finish waits until the daemons have read everything (two reports a scrape period apart
// agree) and records what they serve.
func (l *live) finish(t *testing.T, c *Capture) *LiveResult {
	t.Helper()
	c.Journal.Sync()
	res := &LiveResult{Journal: settled(t, l.journal), File: settled(t, l.file)}
	m, err := l.journal.Metrics()
	if err != nil {
		t.Fatalf("the daemon's /metrics: %v", err)
	}
	res.Metrics = m
	return res
}

func settled(t *testing.T, d *testharness.Daemon) model.Report {
	var prev, cur model.Report
	deadline := time.Now().Add(60 * time.Second)
	for {
		time.Sleep(6 * time.Second) // longer than the 5 s scrape period
		cur = liveReport(t, d.Addr())
		if sameCounts(prev, cur) || time.Now().After(deadline) {
			return cur
		}
		prev = cur
	}
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

// warmRequests is how many requests warm specwatch's step fit before it predicts.
const warmRequests = 8

// TestLive: a live `run` on the engine's journal plus its /metrics makes one series of the
// two, whose tok/s is within 10 % of the engine's truth; one on the redirected file stamps its
// lines with their arrival (never 1970) and agrees too.
func TestLive(t *testing.T) {
	c := capture(t)
	r := c.Draft
	// The report's measured tok/s is the mean over the requests it also predicted: those that
	// ran alone, once 8 of them had warmed the fit. The truth is taken over the same requests.
	var perReq float64
	var alone []Truth
	for _, x := range r.Truth {
		if !x.Parallel {
			alone = append(alone, x)
		}
	}
	if len(alone) <= warmRequests {
		t.Fatalf("%d requests ran alone, want more than %d", len(alone), warmRequests)
	}
	for _, x := range alone[warmRequests:] {
		perReq += x.TPS()
	}
	perReq /= float64(len(alone) - warmRequests)
	t.Logf("truth: %d requests, %.1f tok/s per request over the %d alone after the first %d",
		len(r.Truth), perReq, len(alone)-warmRequests, warmRequests)
	for _, x := range []struct {
		what string
		rep  model.Report
	}{{"journal + /metrics", c.Live.Journal}, {"file", c.Live.File}} {
		s := engineSeries(t, x.rep, x.what)
		t.Logf("%s: %+v, %d samples %v → %v, tok/s %+v, sources %+v", x.what, s.Labels, s.Samples, s.First, s.Last, s.TPS, s.Sources)
		if s.First.Before(r.Started.Add(-time.Second)) {
			t.Errorf("%s: first sample %v, before the engine started (%v)", x.what, s.First, r.Started)
		}
		if s.TPS == nil || relErr(s.TPS.MeasuredMean, perReq) > 0.10 {
			t.Errorf("%s: tok/s %+v, truth %.1f per request: want within 10 %%", x.what, s.TPS, perReq)
		}
	}
	s := engineSeries(t, c.Live.Journal, "journal + /metrics")
	if s.Sources == nil || len(s.Sources.Inputs) != 2 {
		t.Errorf("journal + /metrics: sources %+v, want the logs and the metrics in one series", s.Sources)
	}
}
