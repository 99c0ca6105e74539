package words

import (
	"math"
	"strings"
	"time"

	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/report/numfmt"
)

// Explain writes a series' explanation: its anomalies, a restart, the change from its best
// window to now and why, then the per-position advice and the restarts. r's anomaly, event
// and advice details must be filled (Fill does both).
func Explain(r *schema.SeriesReport) string {
	d := r.Diagnosis
	if d == nil {
		return ""
	}
	kv := r.ContextUnit == "kv_percent"
	var b strings.Builder
	for _, k := range d.Kinds {
		b.WriteString(anomalySentence(r.Anomalies, k))
		b.WriteString(" ")
	}
	if d.Restart.Code != schema.CodeNone {
		b.WriteString(Detail(d.Restart, kv) + " ")
	}
	switch {
	case d.NoFit != nil:
		b.WriteString(noFit(d.NoFit))
	case d.Change == nil && r.CommitLen == nil && r.Samples >= int64(d.Window):
		b.WriteString(noAcceptance(r.Labels.Engine))
	case d.Change == nil:
		b.WriteString(sprintf("Not enough decode samples for attribution yet (a window is %s).", Count(int64(d.Window), "sample")))
	default:
		change(&b, d.Change, kv)
	}
	out := strings.TrimSpace(b.String())
	if a := r.PerPosition; a != nil && a.Advice != nil {
		out = join(out, a.Advice.Detail)
	}
	if d.Restarts > 0 {
		why := "it logged its start-up"
		switch d.RestartBy {
		case schema.CodeRestartCounters:
			why = "its counters went back"
		case schema.CodeRestartPublisher:
			why = "its forward-pass publisher started again"
		}
		out = join(out, sprintf("The engine restarted %s, last at %s (%s).", Count(int64(d.Restarts), "time"), d.LastRestart.Format(time.RFC3339), why))
	}
	return out
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + " " + b
}

// anomalySentence tells the latest episode of kind k.
func anomalySentence(as []schema.AnomalyJSON, k schema.AnomalyKind) string {
	var last schema.AnomalyJSON
	for _, a := range as {
		if a.Kind == k.String() {
			last = a
		}
	}
	state := "active"
	if last.End != nil {
		state = "ended " + last.End.UTC().Format(time.DateTime)
	}
	return sprintf("%s since %s (%s): %s.", k, last.Start.UTC().Format(time.DateTime), state, last.Detail)
}

// noFit says why a series has no step model yet, with the numbers.
func noFit(a *schema.NoFit) string {
	msg := sprintf("Not enough decode samples for a step model yet (%d of %d).", a.N, a.Warmup)
	var why []string
	for _, r := range []struct {
		n   int64
		why string
	}{{a.AfterIdle, "came after an idle gap (their throughput is averaged over the pause)"},
		{a.NoContext, "named no context"}, {a.BadStep, "gave no positive step"},
		{a.Shared, "were requests that ran beside others (their steps are shared with contexts they do not name)"}} {
		if r.n > 0 {
			why = append(why, sprintf("%d %s", r.n, r.why))
		}
	}
	if a.Lines < 2*int64(a.Warmup) || len(why) == 0 {
		return msg
	}
	msg += sprintf(" Of %s, %s.", Count(a.Lines, "decode line"), strings.Join(why, ", "))
	if a.Untrusted > 0 {
		msg += sprintf(" No line continued the one before it (context growth ≠ %s × commit length × running requests), so no logging rhythm was learned; set model.decode_log_interval if the engine's --decode-log-interval is not %d.", Count(int64(a.Interval), "step"), a.Interval)
	}
	return msg
}

// change writes the engineer's account of a change, from what to what and why, and what its
// residual concludes.
func change(b *strings.Builder, c *schema.Change, kv bool) {
	w1, w2 := c.Base, c.Cur
	fitTxt := "fit: " + sprintf("%.1f ms + %.2f ms per %s", c.FitA, c.FitB, perUnit(kv))
	if c.LogRatio >= c.Fall && c.Total >= c.Fall {
		b.WriteString(sprintf("Throughput %s tok/s at %s, commit length %.2f, steps %.0f ms (%s); best sustained %s tok/s.",
			numfmt.TPS(w2.TPS), ctxPhrase(w2.Context, kv), w2.Commit, w2.Step*1000, fitTxt, numfmt.TPS(w1.TPS)))
		return
	}
	b.WriteString(sprintf("Throughput fell from %s to %s tok/s.", numfmt.TPS(w1.TPS), numfmt.TPS(w2.TPS)))
	if c.LogRatio >= c.Fall {
		b.WriteString(sprintf(" Fewer requests ran (%.1f → %.1f); per request, throughput changed %+.0f %%: nothing slowed down.",
			w1.Running, w2.Running, 100*(math.Exp(c.LogRatio)-1)))
		return
	}
	if math.Abs(c.Batch) > 0.05 {
		b.WriteString(sprintf(" Running requests %.1f → %.1f; per request, throughput changed %+.0f %%.", w1.Running, w2.Running, 100*(math.Exp(c.LogRatio)-1)))
	}
	verb := "grew"
	if w2.Context < w1.Context {
		verb = "fell"
	}
	if kv {
		b.WriteString(sprintf(" KV cache usage %s %.1f → %.1f %%", verb, w1.Context, w2.Context))
	} else {
		b.WriteString(sprintf(" Context %s %s → %s tokens", verb, numfmt.Commas(w1.Context), numfmt.Commas(w2.Context)))
	}
	b.WriteString(sprintf(": steps %.0f → %.0f ms (%s), %.0f %% of the fall.", c.BaseModel*1000, c.CurModel*1000,
		fitTxt, 100*numfmt.Share(c.Context, c.LogRatio)))
	cverb := "fell"
	if w2.Commit > w1.Commit {
		cverb = "rose"
	}
	b.WriteString(sprintf(" Commit length %s %.1f → %.1f, %.0f %%.", cverb, w1.Commit, w2.Commit, 100*numfmt.Share(c.Acceptance, c.LogRatio)))
	conclusion(b, c, kv)
}

// conclusion writes what the residual says (schema.Conclusion).
func conclusion(b *strings.Builder, c *schema.Change, kv bool) {
	var says string
	switch c.Conclusion {
	case schema.ConcludeDegraded:
		b.WriteString(sprintf(" Residual %.0f %%: steps are %.0f %% slower than context explains — degraded.",
			100*numfmt.Share(c.Residual, c.LogRatio), 100*(math.Exp(-c.Residual)-1)))
		return
	case schema.ConcludeExpected:
		says = "expected, not a regression"
	case schema.ConcludeAnomaly:
		says = "no step-time regression; the verdict is the anomaly's"
	case schema.ConcludeUnjudged:
		says = sprintf("no step-time regression. %s: whether commit length fell with the text or with the drafter is unjudged",
			Detail(c.Unarmed, kv))
	default:
		return
	}
	b.WriteString(sprintf(" Residual %.0f %% (steps %+.0f %% against the model): %s.",
		numfmt.Pct(numfmt.Share(c.Residual, c.LogRatio)), numfmt.Pct(math.Exp(-c.Residual)-1), says))
}

// noAcceptance says why a series with samples enough has no attribution: its input states no
// acceptance, so the commit length, half of tok/s, is unknown.
func noAcceptance(engine string) string {
	s := "Its input states no acceptance (commit length), so throughput is not attributed."
	if engine == "trtllm" {
		s += " TensorRT-LLM's iteration log has none: scrape its /prometheus/metrics, with iteration_stats_url its /metrics, beside the log."
	}
	return s
}
