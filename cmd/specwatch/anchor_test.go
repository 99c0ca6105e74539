package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/model"
)

// The real llama-server 0.7.0 capture (draft, -lv 3): its first request launched at 0.08.035.006
// after the start, its last released at 0.13.654.297, its last line at 1.17.054.433.
const (
	llamaLog   = "testdata/llamacpp-draft-lv3.log"
	llamaFirst = 8035006 * time.Microsecond
	llamaEnd   = 13654297 * time.Microsecond
	llamaLast  = 77054433 * time.Microsecond
	// --log-jsonl: requests from 3,008,310 µs (launch) to 5,333,843 (release), the last line at 5,435,523
	llamaJSON      = "testdata/llamacpp-ngram.jsonl"
	llamaJSONFirst = 3008310 * time.Microsecond
	llamaJSONEnd   = 5333843 * time.Microsecond
)

// llamaCopy copies a capture into a temporary directory with the modification time mtime.
func llamaCopy(t *testing.T, src string, mtime time.Time, transform func([]byte) []byte) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if transform != nil {
		data = transform(data)
	}
	path := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	return path
}

// llamaSeries runs analyze and returns its report's one series and stderr.
func llamaSeries(t *testing.T, args ...string) (model.Report, model.SeriesReport, string) {
	t.Helper()
	out, stderr, code := runCmd(t, append([]string{"analyze", "--format", "json", "--timezone", "UTC"}, args...)...)
	if code != 0 {
		t.Fatalf("analyze %q: exit %d: %s", args, code, stderr)
	}
	var r model.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Series) != 1 {
		t.Fatalf("analyze %q: %d series: %+v", args, len(r.Series), r.Input)
	}
	return r, r.Series[0], stderr
}

func checkSpan(t *testing.T, what string, s model.SeriesReport, first, last time.Time) {
	t.Helper()
	if !s.First.Equal(first) || !s.Last.Equal(last) {
		t.Errorf("%s: samples from %v to %v, want %v to %v", what, s.First, s.Last, first, last)
	}
	if s.First.Year() < 2000 {
		t.Errorf("%s: a sample in %d", what, s.First.Year())
	}
}

func TestAnalyzeSinceStartStartTime(t *testing.T) {
	start := time.Date(2026, 12, 5, 7, 0, 0, 0, time.UTC)
	_, s, stderr := llamaSeries(t, "--start-time", "2026-12-05T07:00:00Z", llamaLog)
	checkSpan(t, "--start-time", s, start.Add(llamaFirst), start.Add(llamaEnd))
	if want := "llama.cpp since-start stamps counted from 2026-12-05T07:00:00Z (--start-time)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	// --start-time beats the file's modification time, for the jsonl capture too.
	path := llamaCopy(t, llamaJSON, start.Add(time.Hour), nil)
	_, s, _ = llamaSeries(t, "--start-time", "2026-12-05T07:00:00Z", path)
	checkSpan(t, "--start-time, jsonl", s, start.Add(llamaJSONFirst), start.Add(llamaJSONEnd))
}

// TestAnalyzeSinceStartModTime: without --start-time a file's last since-start line is at its
// modification time; --since -2h keeps a log written a minute ago and drops one written three
// hours ago, and a gzip file is read the same way.
func TestAnalyzeSinceStartModTime(t *testing.T) {
	mtime := time.Date(2026, 12, 5, 7, 51, 0, 0, time.UTC)
	origin := mtime.Add(-llamaLast)
	path := llamaCopy(t, llamaLog, mtime, nil)
	_, s, stderr := llamaSeries(t, path)
	checkSpan(t, "mtime", s, origin.Add(llamaFirst), origin.Add(llamaEnd))
	if want := "llama.cpp since-start stamps anchored at 2026-12-05T07:51:00Z (the file's modification time at its last line)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	gz := llamaCopy(t, llamaLog, mtime, func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	})
	_, s, _ = llamaSeries(t, gz)
	checkSpan(t, "gzip", s, origin.Add(llamaFirst), origin.Add(llamaEnd))

	jsonl := llamaCopy(t, llamaJSON, mtime, nil)
	_, s, _ = llamaSeries(t, jsonl)
	at := mtime.Add(-5435523 * time.Microsecond)
	checkSpan(t, "jsonl", s, at.Add(llamaJSONFirst), at.Add(llamaJSONEnd))

	recent := llamaCopy(t, llamaLog, time.Now().Add(-time.Minute), nil)
	old := llamaCopy(t, llamaLog, time.Now().Add(-3*time.Hour), nil)
	all, _, _ := llamaSeries(t, recent)
	if r := analyzeJSON(t, "--since", "-2h", recent); r.Input.Samples != all.Input.Samples || r.Input.OutOfRange != 0 {
		t.Errorf("--since -2h, written a minute ago: %+v", r.Input)
	}
	// Nothing inside the range: the (empty) report, and exit status 3.
	out, stderr, code := runCmd(t, "analyze", "--format", "json", "--timezone", "UTC", "--since", "-2h", old)
	var r model.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitNoEngineLine || r.Input.Samples != 0 || r.Input.OutOfRange != all.Input.Samples {
		t.Errorf("--since -2h, written three hours ago: exit %d, %v, %+v\n%s", code, err, r.Input, stderr)
	}
}

// TestAnalyzeSinceStartRestart: the engine restarted within one file (the capture twice, as
// `>>` leaves it). The second run is placed right after the first's last line, the file's
// last line at its modification time: no time goes backwards and none is past the file's end.
func TestAnalyzeSinceStartRestart(t *testing.T) {
	mtime := time.Date(2026, 12, 5, 7, 51, 0, 0, time.UTC)
	path := llamaCopy(t, llamaLog, mtime, func(b []byte) []byte { return append(b, b...) })
	_, s, stderr := llamaSeries(t, path)
	origin := mtime.Add(-2 * llamaLast)
	checkSpan(t, "two runs", s, origin.Add(llamaFirst), origin.Add(llamaLast+llamaEnd))
	if !strings.Contains(stderr, "the engine restarted once, its new run placed right after the last line before it") {
		t.Errorf("stderr %q", stderr)
	}
	// With --start-time the first run starts there and the second follows it the same way.
	start := time.Date(2026, 12, 5, 7, 0, 0, 0, time.UTC)
	_, s, _ = llamaSeries(t, "--start-time", "2026-12-05T07:00:00Z", path)
	checkSpan(t, "two runs, --start-time", s, start.Add(llamaFirst), start.Add(llamaLast+llamaEnd))
}

// TestAnalyzeSinceStartStdin: standard input has no modification time; its lines are at the
// time analyze read them (or counted from --start-time), never before, never in 1970.
func TestAnalyzeSinceStartStdin(t *testing.T) {
	bin := testharness.BuildSpecwatch(t)
	log, err := os.ReadFile(llamaLog)
	if err != nil {
		t.Fatal(err)
	}
	analyze := func(args ...string) (model.Report, string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"analyze", "--format", "json"}, args...)...)
		cmd.Stdin = bytes.NewReader(log)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("analyze %q: %v: %s", args, err, stderr.String())
		}
		var r model.Report
		if err := json.Unmarshal(out.Bytes(), &r); err != nil || len(r.Series) != 1 {
			t.Fatalf("analyze %q: %v, %d series", args, err, len(r.Series))
		}
		return r, stderr.String()
	}
	before := time.Now()
	r, stderr := analyze("-")
	after := time.Now()
	if s := r.Series[0]; s.First.Before(before.Add(-time.Second)) || s.Last.After(after) || s.Last.Before(s.First) {
		t.Errorf("samples from %v to %v, read between %v and %v", s.First, s.Last, before, after)
	}
	if !strings.Contains(stderr, "anchored at the time analyze read each line (standard input has no modification time") {
		t.Errorf("stderr %q", stderr)
	}
	r, _ = analyze("--start-time", "2026-12-05T07:00:00Z", "-")
	if s := r.Series[0]; !s.First.Equal(time.Date(2026, 12, 5, 7, 0, 0, 0, time.UTC).Add(llamaFirst)) {
		t.Errorf("--start-time on standard input: first %v", s.First)
	}
}

// Damaged --log-jsonl records are counted as unreadable and skipped; a bad --start-time, or
// one with a journal directory, is a usage error naming the flag.
func TestAnalyzeSinceStartDamage(t *testing.T) {
	path := llamaCopy(t, llamaJSON, time.Now(), func(b []byte) []byte {
		return append(b, []byte(`{"type":"log","time":5440000,"level":"info","msg":"slot print_timing: id  0 | task 9 | draft acceptance = 0.5 (`+"\n"+
			`{"type":"log","time":"soon","level":"info","msg":"x\n"}`+"\n")...)
	})
	r, _, _ := llamaSeries(t, path)
	if r.Input.Unreadable != 2 || r.Input.Malformed != 0 {
		t.Errorf("input %+v, want 2 unreadable, 0 malformed", r.Input)
	}
	for _, args := range [][]string{
		{"analyze", "--start-time", "when it started", llamaLog},
		{"analyze", "--start-time", "2026-12-05T07:00:00Z", "--journal.directory", t.TempDir()},
	} {
		if _, stderr, code := runCmd(t, args...); code != 2 || !strings.Contains(stderr, "--start-time") {
			t.Errorf("%q: exit %d, %q; want 2 naming --start-time", args, code, stderr)
		}
	}
}
