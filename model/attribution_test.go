package model

import (
	"math"
	"testing"
)

func within(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// The brief's example: (13 tokens, 34 ms, commit 7.5) → (5,553 tokens,
// 144 ms, commit 2.9) with a step model through both points.
func attributionDesignExample() (base, cur AttributionWindow, a, b float64) {
	base = AttributionWindow{Commit: 7.5, Context: 13, Step: 0.034}
	cur = AttributionWindow{Commit: 2.9, Context: 5553, Step: 0.144}
	b = (0.144 - 0.034) / (5553 - 13)
	a = 0.034 - b*13
	return
}

func TestAttributionDesignExample(t *testing.T) {
	base, cur, a, b := attributionDesignExample()
	at, ok := Attribute(base, cur, a, b)
	if !ok {
		t.Fatal("not ok")
	}
	sa, sc, sr := at.Shares()
	t.Logf("a=%.5f s b=%.4g s/token: log ratio %.3f = acceptance %.3f (%.1f%%) + context %.3f (%.1f%%) + residual %.3f",
		a, b, at.LogRatio, at.Acceptance, 100*sa, at.Context, 100*sc, at.Residual)
	if !within(at.Acceptance, -0.950, 5e-4) || !within(at.Context, -1.443, 5e-4) || !within(at.Residual, 0, 5e-4) {
		t.Errorf("terms %.4f %.4f %.4f", at.Acceptance, at.Context, at.Residual)
	}
	if !within(sa, 0.397, 5e-4) || !within(sc, 0.603, 5e-4) || !within(sr, 0, 5e-4) {
		t.Errorf("shares %.4f %.4f %.4f", sa, sc, sr)
	}
	// Exactness of the identity, and the per-request tok/s it explains.
	tps1, tps2 := 7.5/0.034, 2.9/0.144
	if !within(at.LogRatio, math.Log(tps2/tps1), 1e-12) || at.Batch != 0 || at.Total != at.LogRatio {
		t.Errorf("log ratio %v, want %v", at.LogRatio, math.Log(tps2/tps1))
	}
	if !within(at.Current.TPS, tps2, 1e-9) || at.Current.Running != 1 {
		t.Errorf("derived window %+v", at.Current)
	}
}

// The current window is 20 % slower than the model predicts.
func TestAttributionResidual(t *testing.T) {
	base, cur, a, b := attributionDesignExample()
	cur.Step *= 1.2
	at, _ := Attribute(base, cur, a, b)
	if !within(at.Residual, math.Log(1/1.2), 1e-12) || !within(at.Context, -1.443, 5e-4) {
		t.Fatalf("residual %v (want %v), context %v", at.Residual, math.Log(1/1.2), at.Context)
	}
	if s := at.Acceptance + at.Context + at.Residual; !within(s, at.LogRatio, 1e-12) {
		t.Fatalf("terms sum to %v, log ratio %v", s, at.LogRatio)
	}
}

// Running requests: tok/s = c·r/s. Halving the batch halves total tok/s
// with nothing slower; that goes to Batch, not to the residual.
func TestAttributionBatch(t *testing.T) {
	_, _, a, b := attributionDesignExample()
	s := a + b*2000
	base := AttributionWindow{TPS: 8 * 3 / s, Commit: 3, Context: 2000, Running: 8}
	cur := AttributionWindow{TPS: 4 * 3 / s, Commit: 3, Context: 2000, Running: 4}
	at, ok := Attribute(base, cur, a, b)
	if !ok || !within(at.Total, math.Log(0.5), 1e-12) || !within(at.Batch, math.Log(0.5), 1e-12) ||
		!within(at.LogRatio, 0, 1e-12) || !within(at.Residual, 0, 1e-12) {
		t.Fatalf("%+v", at)
	}
	if sa, sc, sr := at.Shares(); sa != 0 || sc != 0 || sr != 0 {
		t.Fatalf("shares of a zero change: %v %v %v", sa, sc, sr)
	}
	if !within(at.Baseline.Step, s, 1e-12) {
		t.Fatalf("derived step %v, want %v", at.Baseline.Step, s)
	}
	// Running known on one side only: not used at all.
	cur.Running = 0
	at, _ = Attribute(base, cur, a, b)
	if at.Batch != 0 || !within(at.Residual, math.Log(0.5), 1e-12) || at.Baseline.Running != 1 {
		t.Fatalf("one-sided running: %+v", at)
	}
}

// A measured tok/s below what commit/step imply (SGLang's figure diluted
// by idle wall time) lands in the residual; the identity stays exact.
func TestAttributionMeasuredTPSWins(t *testing.T) {
	base, cur, a, b := attributionDesignExample()
	cur.TPS = 0.9 * cur.Commit / cur.Step
	at, _ := Attribute(base, cur, a, b)
	if !within(at.Residual, math.Log(0.9), 1e-12) || at.Current.Step != 0.144 {
		t.Fatalf("residual %v, step %v", at.Residual, at.Current.Step)
	}
	if s := at.Batch + at.Acceptance + at.Context + at.Residual; !within(s, at.Total, 1e-12) {
		t.Fatalf("sum %v total %v", s, at.Total)
	}
}

func TestAttributionFunc(t *testing.T) {
	base, cur, a, b := attributionDesignExample()
	at1, _ := Attribute(base, cur, a, b)
	at2, ok := AttributeFunc(base, cur, func(ctx float64) float64 { return a + b*ctx })
	if !ok || at1 != at2 {
		t.Fatalf("%+v vs %+v", at1, at2)
	}
}

func TestAttributionInvalid(t *testing.T) {
	base, cur, a, b := attributionDesignExample()
	for name, f := range map[string]func() (Attribution, bool){
		"no commit":      func() (Attribution, bool) { c := cur; c.Commit = 0; return Attribute(base, c, a, b) },
		"no step or tps": func() (Attribution, bool) { c := cur; c.Step = 0; return Attribute(base, c, a, b) },
		"model ≤ 0":      func() (Attribution, bool) { return Attribute(base, cur, -1, 0) },
		"NaN model":      func() (Attribution, bool) { return Attribute(base, cur, math.NaN(), 0) },
		"Inf step":       func() (Attribution, bool) { c := cur; c.Step = math.Inf(1); return Attribute(base, c, a, b) },
	} {
		if _, ok := f(); ok {
			t.Errorf("%s: ok", name)
		}
	}
}

func TestAttributionNoAllocs(t *testing.T) {
	base, cur, a, b := attributionDesignExample()
	if n := testing.AllocsPerRun(100, func() {
		at, _ := Attribute(base, cur, a, b)
		at.Shares()
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}
