// Package explain writes the engineer's account of a throughput change, from what to what and
// why, and the number formats the report's sentences share, so that the wording lives apart
// from the statistics that decide it.
package explain

import (
	"fmt"
	"math"
	"strings"
)

var sprintf = fmt.Sprintf

// Window is one attribution window's means.
type Window struct{ TPS, Commit, Context, Step, Running float64 }

// Change is an attribution (model.Attribution) of the change from Base to Cur: log ratios,
// negative for losses, and the step model's prediction at each window's context.
type Change struct {
	Base, Cur              Window
	Total, Batch, LogRatio float64
	Acceptance, Context    float64
	Residual               float64
	BaseModel, CurModel    float64
	// Unarmed, when not empty, says that acceptance_drop did not judge the windows (it was
	// warming up): a fall of commit length is then unjudged, not expected.
	Unarmed string
}

// Write writes the account of c to b. fall is the log ratio below which a change is a fall to
// explain; kv says contexts are KV cache percentages (vLLM), not tokens; fit is the step
// model in words.
func Write(b *strings.Builder, c Change, fall float64, kv bool, fit string) {
	w1, w2 := c.Base, c.Cur
	fitTxt := "fit: " + fit
	if c.LogRatio >= fall && c.Total >= fall {
		b.WriteString(sprintf("Throughput %s tok/s at %s, commit length %.2f, steps %.0f ms (%s); best sustained %s tok/s.",
			Num(w2.TPS), Context(w2.Context, kv), w2.Commit, w2.Step*1000, fitTxt, Num(w1.TPS)))
		return
	}
	b.WriteString(sprintf("Throughput fell from %s to %s tok/s.", Num(w1.TPS), Num(w2.TPS)))
	if c.LogRatio >= fall {
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
		b.WriteString(sprintf(" Context %s %s → %s tokens", verb, Thousands(w1.Context), Thousands(w2.Context)))
	}
	b.WriteString(sprintf(": steps %.0f → %.0f ms (%s), %.0f %% of the fall.", c.BaseModel*1000, c.CurModel*1000,
		fitTxt, 100*Share(c.Context, c.LogRatio)))
	cverb := "fell"
	if w2.Commit > w1.Commit {
		cverb = "rose"
	}
	b.WriteString(sprintf(" Commit length %s %.1f → %.1f, %.0f %%.", cverb, w1.Commit, w2.Commit, 100*Share(c.Acceptance, c.LogRatio)))
}

// Conclude writes what the residual says of a change Write explained and returns the verdict
// it leads to: verdict stands unless it is "healthy". fall is as in Write; a residual below
// −degraded (log ratio) makes a fall degraded rather than expected.
func Conclude(b *strings.Builder, verdict string, c Change, fall, degraded float64) string {
	healthy := verdict == "healthy"
	switch {
	case c.LogRatio >= fall && c.Total < fall:
		if healthy {
			verdict = "expected"
		}
	case c.LogRatio < fall && c.Residual < -degraded:
		if healthy {
			verdict = "degraded"
		}
		b.WriteString(sprintf(" Residual %.0f %%: steps are %.0f %% slower than context explains — degraded.",
			100*Share(c.Residual, c.LogRatio), 100*(math.Exp(-c.Residual)-1)))
	case c.LogRatio < fall:
		// "Expected" only when nothing else judged the series: under an anomaly's verdict the
		// same words contradicted the badge above them (issue 19).
		conclusion, unjudged := "expected, not a regression", c.Unarmed != "" && c.Acceptance < fall
		switch {
		case !healthy:
			conclusion = "no step-time regression; the verdict is the anomaly's"
		case unjudged:
			// acceptance_drop did not see the fall: whether it was the text or the drafter is not known
			conclusion = sprintf("no step-time regression. %s: whether commit length fell with the text or with the drafter is unjudged",
				c.Unarmed)
		}
		b.WriteString(sprintf(" Residual %.0f %% (steps %+.0f %% against the model): %s.",
			Pct(Share(c.Residual, c.LogRatio)), Pct(math.Exp(-c.Residual)-1), conclusion))
		switch {
		case healthy && unjudged:
			verdict = "unjudged"
		case healthy:
			verdict = "expected"
		}
	}
	return verdict
}

// Context names a context value in the series' unit.
func Context(ctx float64, kv bool) string {
	if kv {
		return sprintf("%.1f %% KV cache usage", ctx)
	}
	return sprintf("%s tokens of context", Thousands(ctx))
}

// Thousands formats 5553 as "5,553".
func Thousands(v float64) string {
	n := int64(math.Round(v))
	if n < 0 {
		return "-" + Thousands(float64(-n))
	}
	s := sprintf("%d", n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Num prints tok/s as people quote them: 140, 29.5, 0.7.
func Num(v float64) string {
	switch {
	case v >= 100:
		return sprintf("%.0f", v)
	case v >= 10:
		return sprintf("%.1f", v)
	}
	return sprintf("%.2f", v)
}

// Pct is a fraction in whole percent, without the "-0" that rounding a tiny negative gives.
func Pct(x float64) float64 {
	if v := math.Round(100 * x); v != 0 {
		return v
	}
	return 0
}

// Share is x as a fraction of total, 0 when total is too near 0 for a share to mean anything.
func Share(x, total float64) float64 {
	if math.Abs(total) < 1e-9 {
		return 0
	}
	return x / total
}
