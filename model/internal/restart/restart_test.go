package restart

import (
	"math"
	"testing"

	"github.com/specwatch/specwatch/model/schema"
)

var before = Before{At: 1, A: 0.04, B: 2e-6, Lo: 200, Hi: 9000, Accept: 4, HasStep: true, HasAccpt: true}

func TestSlowerBuildReportedOnSteps(t *testing.T) {
	c := Start(before, Options{Steps: 10, Accepts: 100})
	for i := range 10 {
		ctx := 1000 + 500*float64(i)
		c.AddStep(ctx, 1.3*(0.04+2e-6*ctx))
		c.AddStep(50000, 1) // outside the old range: not comparable
	}
	r, ok := c.Result()
	if !ok || !r.Regressed || math.Abs(r.StepChange-0.3) > 1e-9 || r.HasAccept {
		t.Fatalf("result %+v %v, want a 30 %% slowdown reported before acceptance's sample", r, ok)
	}
	if e := r.Evidence(schema.CodeRestartRegressed, before); e.N[0] != 1 || e.N[1] != 30 || e.N[3] != 0 || e.T[0] != before.At {
		t.Errorf("evidence %+v", e)
	}
	if _, ok := c.Result(); ok || c.Pending() {
		t.Error("judged twice")
	}
}

func TestSameBuildWaitsForAcceptance(t *testing.T) {
	c := Start(before, Options{Steps: 10, Accepts: 100})
	for i := range 10 {
		c.AddStep(2000, 0.04+2e-6*2000)
		c.AddAccept(4.1)
		if _, ok := c.Result(); ok {
			t.Fatalf("judged after %d accepts", i+1)
		}
	}
	for range 90 {
		c.AddAccept(3.9)
	}
	r, ok := c.Result()
	if !ok || r.Regressed || !r.HasStep || !r.HasAccept || math.Abs(r.AcceptNow-3.92) > 1e-9 {
		t.Fatalf("result %+v %v", r, ok)
	}
}

func TestWorseDrafter(t *testing.T) {
	c := Start(Before{Accept: 4, HasAccpt: true}, Options{Accepts: 50})
	for range 50 {
		c.AddAccept(3)
	}
	if r, ok := c.Result(); !ok || !r.Regressed || math.Abs(r.AcceptChange+0.25) > 1e-9 {
		t.Fatalf("result %+v %v", r, ok)
	}
	if c := Start(Before{}, Options{}); c.Pending() {
		t.Error("a comparison with nothing to compare is pending")
	}
}
