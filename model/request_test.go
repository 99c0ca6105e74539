package model

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sample"
)

// req is one finished llama.cpp request as the parser's join states it (parse.EventRequest).
type req struct {
	ctx, stepMS, commit, steps float64
	acc, drafted, running      float64
	pos                        []float64
	plain                      bool // no speculation: no accepted or drafted figures
}

var reqT0 = time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC).UnixNano()

// sample builds the request's sample at second i: G = commit·steps + 1 tokens in steps
// verify steps, GenTPS = G / eval time.
func (r req) sample(i int) *sample.Sample {
	s := &sample.Sample{Kind: sample.KindDecode, Engine: sample.EngineLlamaCpp, Event: sample.EventRequest,
		Host: []byte("gpu07"), Unit: []byte("llama-server.service"), Time: reqT0 + int64(i)*int64(time.Second)}
	steps := r.steps
	if steps == 0 {
		steps = 40
	}
	running := r.running
	if running == 0 {
		running = 1
	}
	eval := r.stepMS / 1000 * steps
	s.Set(sample.Commit, r.commit)
	s.Set(sample.Steps, steps)
	s.Set(sample.StepSeconds, eval/steps)
	s.Set(sample.GenTPS, (r.commit*steps+1)/eval)
	s.Set(sample.Context, r.ctx)
	if !r.plain {
		s.Set(sample.Accepted, r.acc)
		s.Set(sample.Drafted, r.drafted)
	}
	s.Set(sample.Running, running)
	s.NPos = copy(s.PerPos[:], r.pos)
	return s
}

// draftRun is the real engine's draft run (test/llamacpp, llama-server 0.7.0, draft-simple, 8
// draft tokens): 13 requests alone with contexts from 54 to 4,972 tokens, then 2 and 4 in
// parallel (running > 1), each G, accepted, drafted, steps = G − 1 − accepted and the eval time
// as the engine printed them.
var draftRun = []struct {
	g, a, d, running, ctx, evalMS float64
}{
	{96, 60, 265, 1, 68, 491.74}, {96, 54, 314, 1, 166, 610.16}, {96, 59, 275, 1, 476, 639.11},
	{96, 44, 388, 1, 890, 1172.85}, {96, 59, 275, 1, 1468, 1030.27}, {96, 52, 336, 1, 1958, 1458.55},
	{96, 58, 279, 1, 2496, 1412.94}, {96, 48, 373, 1, 3224, 2248.53}, {96, 60, 267, 1, 3792, 1861.86},
	{96, 47, 367, 1, 4396, 2894.70}, {96, 60, 266, 1, 4972, 2362.65}, {64, 38, 186, 1, 54, 321.91},
	{64, 27, 268, 1, 146, 511.06}, {64, 34, 208, 2, 98, 839.97}, {64, 30, 241, 2, 220, 873.8},
	{64, 37, 191, 4, 418, 1370.85}, {64, 34, 212, 4, 106, 1470.22}, {64, 34, 218, 4, 308, 1470.44},
	{64, 30, 241, 4, 208, 1505.86},
}

func (r req) withDraftRun(i int) req {
	d := draftRun[i]
	steps := d.g - 1 - d.a
	return req{ctx: d.ctx, stepMS: d.evalMS / steps, commit: (d.g - 1) / steps, steps: steps, acc: d.a, drafted: d.d, running: d.running}
}

// ols fits step_ms = a + b·ctx over the requests that ran alone, as the harness's truth does.
func ols(rs []req) (a, b float64) {
	var n, sx, sy, sxx, sxy float64
	for _, r := range rs {
		if r.running > 1 {
			continue
		}
		n, sx, sy, sxx, sxy = n+1, sx+r.ctx, sy+r.stepMS, sxx+r.ctx*r.ctx, sxy+r.ctx*r.stepMS
	}
	b = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	return (sy - b*sx) / n, b
}

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// TestRequestStepModel is issue 26's done-when on the real engine's requests: a step model
// from 13 requests alone (the 6 that ran beside others stay out of it), a and b within 15 % of
// a least-squares fit of those requests, predicted tok/s within 10 % of measured, no anomaly.
func TestRequestStepModel(t *testing.T) {
	set := NewSet(Options{})
	var rs []req
	for i := range draftRun {
		r := req{}.withDraftRun(i)
		rs = append(rs, r)
		set.Observe(r.sample(i))
	}
	s := set.wordedReport().Series[0]
	a, b := ols(rs)
	m := s.StepModel
	if m == nil {
		t.Fatalf("no step model from %d requests: %s", len(rs), s.Explanation)
	}
	if m.N != 13 {
		t.Errorf("fit took %d points, want the 13 requests that ran alone", m.N)
	}
	if relErr(m.FixedMS, a) > 0.15 || relErr(m.MSPer1kToken/1000, b) > 0.15 {
		t.Errorf("step model %.2f ms + %.4f ms/token; least squares on the requests alone %.2f + %.4f", m.FixedMS, m.MSPer1kToken/1000, a, b)
	}
	if s.TPS == nil || s.TPS.PredictedMean == 0 || relErr(s.TPS.PredictedMean, s.TPS.MeasuredMean) > 0.10 {
		t.Errorf("tok/s %+v: predicted not within 10 %% of measured", s.TPS)
	}
	if len(s.Anomalies) != 0 {
		t.Errorf("anomalies on a healthy run: %+v", s.Anomalies)
	}
	t.Logf("fit %.2f + %.4f (least squares %.2f + %.4f), tok/s %+v, commit %+v", m.FixedMS, m.MSPer1kToken/1000, a, b, *s.TPS, *s.CommitLen)
}

// TestRequestStepModelWideContexts: requests jump between contexts (chat, then long prompts):
// the fit warms up on 8 short ones whose noise (±20 %, as short requests' few steps give)
// tilts its slope to a fifth of the truth, then learns the long ones instead of judging them
// on that extrapolation (they would be kept out as "twice the prediction", and 5 of them
// raise throughput_collapse), and ends within 15 % of the line: 5 ms + 5.6 ms per 1k tokens.
func TestRequestStepModelWideContexts(t *testing.T) {
	set := NewSet(Options{})
	type rq struct{ ctx, noise float64 }
	rs := []rq{{20, 0.2}, {100, 0.15}, {180, 0.1}, {260, 0.05}, {340, -0.05}, {420, -0.1}, {500, -0.15}, {600, -0.2},
		{8000, 0.02}, {6500, -0.02}, {7200, 0.01}, {7700, -0.01}, {4800, 0}, {3100, 0.02}, {1200, -0.02}, {40, 0.03}}
	for i, r := range rs {
		step := (5 + 5.6*r.ctx/1000) * (1 + r.noise)
		set.Observe(req{ctx: r.ctx, stepMS: step, commit: 2.4, steps: 40, acc: 56, drafted: 150}.sample(i))
		if r := set.wordedReport().Series[0]; i+1 == 10 && r.StepModel == nil {
			t.Fatalf("no step model after 10 requests: %s", r.Explanation)
		}
	}
	s := set.wordedReport().Series[0]
	if m := s.StepModel; m == nil || relErr(m.FixedMS, 5) > 0.15 || relErr(m.MSPer1kToken, 5.6) > 0.15 || m.N != len(rs) {
		t.Errorf("step model %+v, want 5 ms + 5.6 ms per 1k tokens over %d requests", m, len(rs))
	}
	if len(s.Anomalies) != 0 {
		t.Errorf("anomalies: %+v", s.Anomalies)
	}
}

// TestRequestCommitPooled: commit_len.mean is per request, pooled_mean per verify step (Σ
// committed tokens ÷ Σ steps); series whose samples state no steps have no pooled_mean.
func TestRequestCommitPooled(t *testing.T) {
	set := NewSet(Options{})
	for i, r := range []req{{commit: 2, steps: 10}, {commit: 4, steps: 30}, {commit: 1, steps: 60}} {
		r.ctx, r.stepMS, r.drafted, r.acc = 500, 10, 50, (r.commit-1)*r.steps
		set.Observe(r.sample(i))
	}
	c := set.wordedReport().Series[0].CommitLen
	if c == nil || c.Mean != 2.333 || c.PooledMean != 2 {
		t.Fatalf("commit_len %+v, want mean 2.333 per request, pooled 2 per verify step", c)
	}
	b, _ := json.Marshal(c)
	if !strings.Contains(string(b), `"mean":2.333,"pooled_mean":2,`) {
		t.Errorf("JSON %s", b)
	}
	sg := NewSet(Options{})
	for i := range 5 {
		s := &sample.Sample{Kind: sample.KindDecode, Engine: sample.EngineSGLang, Time: reqT0 + int64(i)*4e9}
		s.Set(sample.Commit, 3)
		s.Set(sample.Running, 4)
		s.Set(sample.GenTPS, 300)
		s.Set(sample.Context, 4000)
		sg.Observe(s)
	}
	if b, _ := json.Marshal(sg.wordedReport().Series[0].CommitLen); strings.Contains(string(b), "pooled_mean") {
		t.Errorf("pooled_mean without steps: %s", b)
	}
}

// TestRequestStuck: a broken drafter (drafts, nothing accepted, commit 1.00) raises
// commit_len_stuck on its third request, counted in requests; requests that never drafted
// (n-gram found nothing) neither raise nor clear it; three good requests end it.
func TestRequestStuck(t *testing.T) {
	good := req{ctx: 800, stepMS: 20, commit: 2.5, steps: 40, acc: 60, drafted: 300}
	none := req{ctx: 800, stepMS: 12, commit: 1, steps: 127}
	broken := req{ctx: 800, stepMS: 20, commit: 1, steps: 79, drafted: 1370}
	run := func(rs ...req) Report {
		set := NewSet(Options{})
		for i, r := range rs {
			set.Observe(r.sample(i))
		}
		return set.wordedReport()
	}
	healthy := run(good, none, none, none, good, none, none, none, none, good)
	if s := healthy.Series[0]; len(s.Anomalies) != 0 || s.Verdict != "healthy" {
		t.Errorf("requests that never drafted: anomalies %+v, verdict %s", s.Anomalies, s.Verdict)
	}
	plain := req{ctx: 800, stepMS: 12, commit: 1, steps: 95, plain: true}
	if s := run(plain, plain, plain, plain).Series[0]; len(s.Anomalies) != 0 {
		t.Errorf("a server without speculation: anomalies %+v", s.Anomalies)
	}
	r := run(good, good, broken, none, broken, broken, none, good, good, good)
	as := r.Series[0].Anomalies
	if len(as) != 1 || as[0].Kind != "commit_len_stuck" {
		t.Fatalf("anomalies %+v, want one commit_len_stuck", as)
	}
	a := as[0]
	if want := time.Unix(0, reqT0+5*int64(time.Second)).UTC(); !a.Start.Equal(want) {
		t.Errorf("raised at %v, want the third broken request (%v)", a.Start, want)
	}
	if want := time.Unix(0, reqT0+9*int64(time.Second)).UTC(); a.End == nil || !a.End.Equal(want) {
		t.Errorf("ended at %v, want the third good request (%v)", a.End, want)
	}
	if want := "commit length 1.00 for 3 consecutive requests (1 running): the drafter contributes nothing"; a.Detail != want {
		t.Errorf("detail %q, want %q", a.Detail, want)
	}
	par := broken
	par.running = 3
	if d := run(par, par, par).Series[0].Anomalies; len(d) != 1 || !strings.Contains(d[0].Detail, "3 consecutive requests (3 running)") {
		t.Errorf("parallel broken requests: %+v", d)
	}
}

// TestRequestParts: lines that only contribute to a join (parse.EventPart) are lines that parsed
// (the series' sample count, format_drift), but a series of them has no figures.
func TestRequestParts(t *testing.T) {
	set := NewSet(Options{})
	for i := range 3 {
		s := &sample.Sample{Kind: sample.KindSpec, Engine: sample.EngineLlamaCpp, Event: sample.EventPart,
			Host: []byte("gpu07"), Unit: []byte("llama-server.service"), Time: reqT0 + int64(i)*1e9}
		s.Set(sample.Commit, 2.7)
		s.Set(sample.Accepted, 0)
		s.Set(sample.Drafted, 100)
		set.Observe(s)
	}
	s := set.wordedReport().Series[0]
	if s.Samples != 3 || s.CommitLen != nil || len(s.Anomalies) != 0 {
		t.Errorf("parts: %d samples, commit %+v, anomalies %+v", s.Samples, s.CommitLen, s.Anomalies)
	}
}

// stats is a llama.cpp common_speculative statistics sample: its mean is per drafting step.
func stats(i int, ev sample.Event, mean float64, pos ...float64) *sample.Sample {
	s := &sample.Sample{Kind: sample.KindSpec, Engine: sample.EngineLlamaCpp, Event: ev,
		Host: []byte("gpu07"), Unit: []byte("llama-server.service"), Time: reqT0 + int64(i)*int64(time.Second)}
	s.Set(sample.Commit, mean)
	s.Set(sample.Accepted, 50)
	s.Set(sample.Drafted, 515)
	s.NPos = copy(s.PerPos[:], pos)
	return s
}

// TestRequestPerPosition: per-request lists pool by drafts (accepted ÷ Σ rates), a request
// that accepted nothing counts by its drafted tokens over the draft size learned, and the
// statistics lines move neither commit length nor, once requests state lists, the figures.
func TestRequestPerPosition(t *testing.T) {
	set := NewSet(Options{})
	pos := func(v ...float64) []float64 { return append(v, make([]float64, 20-len(v))...) }
	// 29 drafts accepting 20, 19, 10, 1 at positions 1-4; 10 drafts accepting 2, 1; 78 drafts
	// of 1370 tokens accepting none (counted as 79, the steps bound: 1370 ÷ 15.8 tokens a draft).
	set.Observe(req{ctx: 100, stepMS: 25, commit: 79.0 / 29, steps: 29, acc: 50, drafted: 515, pos: pos(0.690, 0.655, 0.345, 0.034)}.sample(0))
	set.Observe(stats(1, sample.EventTotals, 2.72, 0.690, 0.655, 0.345, 0.034))
	set.Observe(req{ctx: 300, stepMS: 25, commit: 1.3, steps: 10, acc: 3, drafted: 100, pos: pos(0.2, 0.1)}.sample(2))
	set.Observe(stats(3, sample.EventNone, 41, 0.9, 0.9))
	set.Observe(req{ctx: 500, stepMS: 25, commit: 1, steps: 79, drafted: 1370, pos: pos()}.sample(4))
	s := set.wordedReport().Series[0]
	pp := s.PerPosition
	if pp == nil || len(pp.Acceptance) != min(20, sample.MaxPerPosition) || pp.Samples != 3 {
		t.Fatalf("per position %+v", pp)
	}
	for i, want := range []float64{22.0 / 118, 20.0 / 118, 10.0 / 118, 1.0 / 118, 0} {
		if math.Abs(pp.Acceptance[i]-want) > 0.001 {
			t.Errorf("position %d: %.4f, want %.4f (pooled by drafts)", i+1, pp.Acceptance[i], want)
		}
	}
	if c := s.CommitLen; c == nil || c.Last != 1 || c.Mean > 2 {
		t.Errorf("commit_len %+v: the statistics' means (2.72, 41) are not commit lengths", c)
	}
	// Without per-request lists, the statistics are the fallback: the latest totals.
	set = NewSet(Options{})
	set.Observe(req{ctx: 100, stepMS: 25, commit: 2.7, steps: 29, acc: 50, drafted: 515}.sample(0))
	set.Observe(stats(1, sample.EventTotals, 2.72, 0.690, 0.655, 0.345, 0.034))
	set.Observe(stats(2, sample.EventTotals, 2.24, 0.557, 0.414, 0.214, 0.057))
	if pp := set.wordedReport().Series[0].PerPosition; pp == nil || len(pp.Acceptance) != 4 || pp.Acceptance[0] != 0.557 {
		t.Errorf("per position from the statistics: %+v", pp)
	}
}

// TestPerPosition64: n-gram drafts run to 64 positions (parse.MaxPerPosition); all are kept,
// and the advice names the positions it drops without listing 60 figures.
func TestPerPosition64(t *testing.T) {
	set := NewSet(Options{})
	n := sample.MaxPerPosition
	var v []float64
	for i := range n {
		v = append(v, math.Max(0, 0.9-0.9*float64(i)/float64(n-4)))
	}
	for i := range 6 {
		set.Observe(req{ctx: 200, stepMS: 8, commit: 5, steps: 24, acc: 96, drafted: 110, pos: v}.sample(i))
	}
	s := set.wordedReport().Series[0]
	pp := s.PerPosition
	if pp == nil || len(pp.Acceptance) != n || pp.Acceptance[n-1] != 0 || pp.Advice == nil {
		t.Fatalf("per position %+v", pp)
	}
	if d := pp.Advice.Detail; strings.Count(d, "%") > 4 || !strings.Contains(d, "positions ") {
		t.Errorf("advice %q", d)
	}
	if snap := set.Snapshot(nil)[0]; snap.NPos != n {
		t.Errorf("snapshot holds %d positions", snap.NPos)
	}
}

// TestFormatDriftEnds: a burst of malformed lines raises format_drift; once the engine's lines
// parse again for a while (20 in a row) it ends, and the live verdict no longer carries it.
func TestFormatDriftEnds(t *testing.T) {
	for _, live := range []bool{false, true} {
		set := NewSet(Options{Live: live})
		i := 0
		good := req{ctx: 800, stepMS: 20, commit: 2.5, steps: 40, acc: 60, drafted: 300}
		for ; i < 10; i++ {
			set.Observe(good.sample(i))
		}
		for ; i < 40; i++ {
			s := &sample.Sample{Engine: sample.EngineLlamaCpp, Host: []byte("gpu07"), Unit: []byte("llama-server.service"),
				Time: reqT0 + int64(i)*int64(time.Second)}
			set.Apply(sample.Malformed, s)
		}
		if s := set.wordedReport().Series[0]; len(s.Anomalies) != 1 || s.Anomalies[0].Kind != "format_drift" || s.Anomalies[0].End != nil {
			t.Fatalf("live %v: after the burst: %+v", live, s.Anomalies)
		}
		for ; i < 60; i++ {
			part := &sample.Sample{Kind: sample.KindDecode, Engine: sample.EngineLlamaCpp, Event: sample.EventPart,
				Host: []byte("gpu07"), Unit: []byte("llama-server.service"), Time: reqT0 + int64(i)*int64(time.Second)}
			set.Apply(sample.Matched, part)
			if i%5 == 4 {
				set.Observe(good.sample(i))
			}
		}
		s := set.wordedReport().Series[0]
		if len(s.Anomalies) != 1 || s.Anomalies[0].End == nil {
			t.Fatalf("live %v: format_drift did not end: %+v", live, s.Anomalies)
		}
		if s.Verdict == "anomalous" || live && strings.Contains(s.Explanation, "format_drift") {
			t.Errorf("live %v: verdict %s: %s", live, s.Verdict, s.Explanation)
		}
	}
}

// fixRuns are the real engine's good → broken → good runs (test/llamacpp's fix scenario,
// draft-simple with 20 draft tokens, one journal unit): G = 80, accepted, drafted and eval ms of
// each request, contexts 68 to 420 tokens.
var fixRuns = [3][6][4]float64{
	{{80, 50, 515, 750.52}, {80, 37, 742, 1124.34}, {80, 48, 541, 860.25}, {80, 38, 707, 1154.56}, {80, 49, 513, 880.8}, {80, 37, 769, 1358.28}},
	{{80, 0, 1370, 1956.83}, {80, 0, 1370, 2031.09}, {80, 0, 1370, 2158.28}, {80, 0, 1370, 2223.85}, {80, 0, 1370, 2674.94}, {80, 0, 1370, 2762.63}},
	{{80, 50, 515, 873.19}, {80, 41, 666, 1153.3}, {80, 48, 541, 992.62}, {80, 43, 596, 1247.76}, {80, 49, 513, 1169.4}, {80, 40, 684, 1629.81}},
}

// TestRequestBrokenDraftAndFix: the three runs in one series, each started by the engine's
// start-up line: commit_len_stuck opens on the broken draft's third request and ends on the
// good draft's third, and nothing else is raised.
func TestRequestBrokenDraftAndFix(t *testing.T) {
	set := NewSet(Options{})
	i := 0
	var third [3]time.Time // each run's third request
	for run, rs := range fixRuns {
		up := &sample.Sample{Kind: sample.KindEvent, Event: sample.EventRestart, Engine: sample.EngineLlamaCpp,
			Host: []byte("gpu07"), Unit: []byte("llama-server.service"), Time: reqT0 + int64(i)*int64(time.Second)}
		set.Observe(up)
		i += 2
		for j, r := range rs {
			steps := r[0] - 1 - r[1]
			set.Observe(req{ctx: []float64{68, 126, 216, 276, 342, 420}[j], stepMS: r[3] / steps, commit: (r[0] - 1) / steps,
				steps: steps, acc: r[1], drafted: r[2]}.sample(i))
			if j == 2 {
				third[run] = time.Unix(0, reqT0+int64(i)*int64(time.Second)).UTC()
			}
			i += 3
		}
	}
	s := set.wordedReport().Series[0]
	if len(s.Anomalies) != 1 || s.Anomalies[0].Kind != "commit_len_stuck" || s.Anomalies[0].End == nil {
		t.Fatalf("anomalies %+v, want one commit_len_stuck that ended", s.Anomalies)
	}
	a := s.Anomalies[0]
	if !a.Start.Equal(third[1]) || !a.End.Equal(third[2]) {
		t.Errorf("stuck %v → %v, want the broken draft's third request (%v) to the good draft's (%v)", a.Start, *a.End, third[1], third[2])
	}
	if s.StepModel == nil {
		t.Errorf("no step model from 18 requests: %s", s.Explanation)
	}
}
