package peers

import (
	"math"
	"testing"
)

func TestRatios(t *testing.T) {
	self := Profile{Accept: 2, A: 0.05, B: 1e-5, Lo: 100, Hi: 8000, Ctx: 4000, HasStep: true}
	ps := []Profile{
		{Accept: 4, A: 0.04, B: 5e-6, Lo: 100, Hi: 8000, HasStep: true},
		{Accept: 3, A: 0.04, B: 5e-6, Lo: 100, Hi: 8000, HasStep: true},
		{Accept: 1, AcceptActive: true},                                 // stuck: not a reference
		{Accept: 5, A: 0.01, B: 1e-6, Lo: 100, Hi: 1000, HasStep: true}, // never ran at 4,000
	}
	acc, step, okA, okS, _ := Ratios(self, ps, nil)
	if !okA || math.Abs(acc-2/4.0) > 1e-12 { // median of 4, 3, 5
		t.Errorf("acceptance ratio %v %v, want 0.5", acc, okA)
	}
	if want := 0.09 / 0.06; !okS || math.Abs(step-want) > 1e-12 {
		t.Errorf("step ratio %v %v, want %v", step, okS, want)
	}
	if _, _, okA, okS, _ := Ratios(self, nil, nil); okA || okS {
		t.Error("ratios without peers")
	}
}

// Raise after Raise consecutive checks off, clear after Clear on; unknown checks interrupt the
// run of bad ones but do not count as recovery.
func TestJudgeHysteresis(t *testing.T) {
	j := NewJudge(Options{Raise: 3, Clear: 2})
	self := Profile{Accept: 2}
	var a Verdict
	for i, c := range []struct {
		ratio          float64
		known          bool
		off, raise, cl bool
	}{
		{0.5, true, false, false, false}, {0.5, true, false, false, false}, {0, false, false, false, false},
		{0.5, true, false, false, false}, {0.5, true, false, false, false}, {0.5, true, true, true, false},
		{0.5, true, true, false, false}, {1, true, true, false, false}, {0, false, true, false, false},
		{1, true, false, false, true},
	} {
		a, _ = j.Check(self, c.ratio, 0, c.known, false)
		if a.Off != c.off || a.Raised != c.raise || a.Cleared != c.cl {
			t.Fatalf("check %d: %+v, want off %v raised %v cleared %v", i, a, c.off, c.raise, c.cl)
		}
	}
}

// Forget drops the consecutive checks counted so far, not whether the rank is off.
func TestJudgeForget(t *testing.T) {
	j := NewJudge(Options{Raise: 3, Clear: 2})
	self := Profile{Accept: 2}
	j.Check(self, 0.5, 0, true, false)
	j.Check(self, 0.5, 0, true, false)
	j.Forget()
	if a, _ := j.Check(self, 0.5, 0, true, false); a.Raised || a.Off {
		t.Fatal("two checks before Forget and one after raised")
	}
	j.Check(self, 0.5, 0, true, false)
	if a, _ := j.Check(self, 0.5, 0, true, false); !a.Raised {
		t.Fatal("three checks after Forget raised nothing")
	}
	j.Forget()
	if a, _ := j.Check(self, 1, 0, true, false); !a.Off {
		t.Error("Forget turned the rank back on")
	}
}
