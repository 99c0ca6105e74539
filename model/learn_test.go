package model

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sample"
)

// feedLines parses SGLang decode lines one second apart through a Set and returns the series.
func feedLines(t *testing.T, lines []string) *Series {
	t.Helper()
	set := NewSet(Options{})
	p := parse.NewParser(parse.Options{})
	var se *Series
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for i, l := range lines {
		var s parse.Record
		if r := p.Parse([]byte(l), &s); r != sample.Matched {
			t.Fatalf("line %d: %v %s", i, r, s.Why)
		}
		s.Time, s.Host, s.Unit = t0.Add(time.Duration(i)*time.Second).UnixNano(), []byte("h"), []byte("u")
		se = set.Observe(&s.Sample)
	}
	return se
}

// Hundreds of decode lines whose context never grows by a whole interval (every line a new
// request of another length) leave the after-idle test without a rhythm: the report must say
// so and what to do, not only "0 of 20".
func TestNoFitSaysWhy(t *testing.T) {
	var lines []string
	x, prev := uint32(7), uint32(0)
	for range 300 {
		ctx := prev
		for ctx < prev+400 && ctx+400 > prev { // never the growth of one interval (120)
			x = x*1664525 + 1013904223 // an LCG: lengths with no pattern
			ctx = 500 + x>>19
		}
		prev = ctx
		lines = append(lines, fmt.Sprintf("[2026-11-20 09:00:00 TP0] Decode batch, #running-req: 1, #token: %d, token usage: 0.01, accept len: 3.00, gen throughput (token/s): 60.00, #queue-req: 0", ctx))
	}
	se := feedLines(t, lines)
	r := se.wordedReport()
	if r.StepModel != nil {
		t.Fatalf("fitted %+v from unrelated lines", r.StepModel)
	}
	for _, want := range []string{"0 of 20", "Of 300 decode lines, 300 came after an idle gap", "no logging rhythm was learned", "model.decode_log_interval"} {
		if !strings.Contains(r.Explanation, want) {
			t.Errorf("explanation lacks %q:\n%s", want, r.Explanation)
		}
	}
	if n, learned := se.DecodeInterval(); learned || n != DefaultDecodeLogInterval {
		t.Errorf("interval %d learned %v from unrelated lines", n, learned)
	}
}

// Lines that name no context cannot be fitted, and the report says how many.
func TestNoFitNoContext(t *testing.T) {
	var lines []string
	for range 100 {
		lines = append(lines, "[2026-11-20 09:00:00 TP0] avg_commit_len=3.00, avg_accepted_depth=2.00, step_ms=50.0")
	}
	r := feedLines(t, lines).wordedReport()
	if r.StepModel != nil || !strings.Contains(r.Explanation, "Of 100 decode lines, 100 named no context.") {
		t.Errorf("model %+v, explanation:\n%s", r.StepModel, r.Explanation)
	}
}

// A decode line at an interval of 25 steps, then its stats line: the interval is learned after
// a few lines, every later line continues the one before, and the logged steps drive the fit.
func TestLearnedIntervalAndLoggedStep(t *testing.T) {
	var lines []string
	ctx := 300.0
	for range 100 {
		ctx += 25 * 4.0
		step := 0.030 + 2e-5*ctx
		lines = append(lines,
			fmt.Sprintf("[2026-11-20 09:00:00 TP0] Decode batch, #running-req: 1, #token: %.0f, token usage: 0.01, accept len: 4.00, gen throughput (token/s): %.2f, #queue-req: 0", ctx, 4/(step*1.5)),
			fmt.Sprintf("[2026-11-20 09:00:00 TP0] avg_commit_len=4.00, avg_accepted_depth=3.00, step_ms=%.1f", step*1000))
	}
	se := feedLines(t, lines)
	if n, ok := se.DecodeInterval(); !ok || n != 25 {
		t.Errorf("interval %d learned %v, want 25", n, ok)
	}
	m := se.wordedReport().StepModel
	// The throughput implies steps 1.5× the logged ones: a fit of those would be 45 ms + 30 µs.
	if m == nil || m.FixedMS < 29 || m.FixedMS > 31 || m.MSPer1kToken < 19.5 || m.MSPer1kToken > 20.5 || m.N < 95 {
		t.Errorf("fit %+v, want 30 ms + 20 ms per 1k from the logged steps, about 100 points", m)
	}
}
