package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/specwatch/specwatch/ingest/journal"
	"github.com/specwatch/specwatch/model"
)

func runCmd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func analyzeJSON(t *testing.T, args ...string) model.Report {
	t.Helper()
	out, stderr, code := runCmd(t, append([]string{"analyze", "--format", "json", "--timezone", "UTC"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r model.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out)
	}
	return r
}

func TestAnalyzeMultiSeries(t *testing.T) {
	r := analyzeJSON(t, "testdata/multi.log")
	in := r.Input
	if in.Lines != 23 || in.Samples != 15 || in.Ignored != 5 || in.Malformed != 3 {
		t.Errorf("input %+v, want 23 lines = 15 samples + 5 ignored + 3 malformed", in)
	}
	if in.Lines != in.Samples+in.Ignored+in.Malformed {
		t.Errorf("input does not add up: %+v", in)
	}
	type key struct{ host, engine, rank string }
	got := map[key]model.SeriesReport{}
	var total int64
	for _, s := range r.Series {
		got[key{s.Labels.Host, s.Labels.Engine, s.Labels.Rank}] = s
		total += s.Samples
	}
	if total != in.Samples {
		t.Errorf("series hold %d samples, input says %d", total, in.Samples)
	}
	if len(r.Series) != 6 {
		t.Errorf("%d series, want 6", len(r.Series))
	}
	tp0 := got[key{"gpu07", "sglang", "TP0"}]
	if tp0.Samples != 6 || tp0.CommitLen == nil || tp0.CommitLen.Last != 7.4 {
		t.Errorf("TP0: %+v", tp0)
	}
	if want := "2026-11-20T09:00:00Z"; tp0.First.Format("2006-01-02T15:04:05Z07:00") != want {
		t.Errorf("TP0 first %v, want %s", tp0.First, want)
	}
	stuck := got[key{"gpu08", "vllm", "Engine 001"}]
	if stuck.Samples != 2 || stuck.CommitLen == nil || stuck.CommitLen.Mean != 1 {
		t.Errorf("Engine 001: %+v", stuck)
	}
	if s, ok := got[key{"gpu09", "llamacpp", ""}]; !ok || s.Samples != 1 {
		t.Errorf("llama.cpp series missing: %+v", s)
	}
}

func TestAnalyzeText(t *testing.T) {
	out, stderr, code := runCmd(t, "analyze", "--timezone", "UTC", "testdata/multi.log")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"input: 23 lines, 15 samples, 5 ignored, 3 malformed",
		"sglang  host=gpu07  unit=python3  rank=TP0",
		"commit length: mean 1.00",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}

func TestAnalyzeSinceUntil(t *testing.T) {
	r := analyzeJSON(t, "--since", "2026-11-20 09:00:08", "--until", "2026-11-20T09:00:10Z", "testdata/multi.log")
	if r.Input.Samples != 4 || len(r.Series) != 2 {
		t.Errorf("got %d samples in %d series, want the 4 vLLM samples in 2 series", r.Input.Samples, len(r.Series))
	}
}

func TestAnalyzeErrors(t *testing.T) {
	for _, args := range [][]string{
		{"analyze", "--format", "yaml", "testdata/multi.log"},
		{"analyze", "--since", "yesterday", "testdata/multi.log"},
		{"analyze", "--timezone", "Mars/Olympus", "testdata/multi.log"},
		{"nonsense"},
	} {
		if _, _, code := runCmd(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", args, code)
		}
	}
	_, stderr, code := runCmd(t, "analyze", "testdata/does-not-exist.log")
	if code != 1 || !strings.Contains(stderr, "does-not-exist.log") {
		t.Errorf("missing file: exit %d, %q: want 1 and the path named", code, stderr)
	}
}

func TestDemoAndVersion(t *testing.T) {
	out, stderr, code := runCmd(t, "demo", "--once")
	if code != 0 || !strings.Contains(out, "input: ") || !strings.Contains(out, "sglang") {
		t.Errorf("demo: exit %d, %s\n%s", code, stderr, out)
	}
	out, _, code = runCmd(t, "version")
	if code != 0 || !strings.HasPrefix(out, "specwatch ") {
		t.Errorf("version: %d %q", code, out)
	}
}

// TestAnalyzeJournalBackends: analyze of a journal directory gives the same report through
// every backend (the demo's engines under their units), with one unit and with all entries.
func TestAnalyzeJournalBackends(t *testing.T) {
	dir := demoJournal(t)
	backends := []string{"native", "journalctl"}
	if journal.SDJournalAvailable() == nil {
		backends = append(backends, "sdjournal")
	}
	// The demo's SGLang unit is sglang-ddtree.service; "sglang.service" matched nothing, and
	// the backends agreed on an empty report until an empty analysis exited 3.
	for _, match := range [][]string{{"--journal.unit", "sglang-ddtree.service"}, nil} {
		var first string
		for _, b := range backends {
			out, stderr, code := runCmd(t, append([]string{"analyze", "--format", "json", "--timezone", "UTC", "--journal.directory", dir, "--journal.backend", b}, match...)...)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", b, code, stderr)
			}
			var r model.Report
			if err := json.Unmarshal([]byte(out), &r); err != nil || r.Input.Samples == 0 {
				t.Fatalf("%s %v: no samples in the report (%v):\n%.500s", b, match, err, out)
			}
			if first == "" {
				first = out
			} else if out != first {
				t.Fatalf("%s %v: report differs from native's", b, match)
			}
		}
	}
	if _, _, code := runCmd(t, "analyze", "--journal.directory", dir, "--journal.backend", "mmap"); code != 2 {
		t.Errorf("unknown backend: exit %d, want 2 (usage)", code)
	}
}
