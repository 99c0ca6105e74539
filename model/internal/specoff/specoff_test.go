package specoff

import (
	"testing"
	"time"

	"github.com/specwatch/specwatch/model/schema"
)

const (
	after = 10 * time.Minute
	sec   = int64(time.Second)
)

// A batch-size policy (drafting at 4, none at 12) switches with the batch: events, spaced,
// and never speculation_disabled however long the large batch lasts.
func TestBatchPolicyIsEvents(t *testing.T) {
	var tr Tracker
	var evs []schema.Evidence
	obs := func(t0 int64, running float64, drafting bool) Decision {
		d := tr.Observe(t0, running, drafting, after, after)
		if d.Event.Code != schema.CodeNone {
			evs = append(evs, d.Event)
		}
		return d
	}
	for i := range 60 {
		obs(int64(i)*10*sec, 4, true)
	}
	for i := 60; i < 600; i++ {
		if d := obs(int64(i)*10*sec, 12, false); d.Raise {
			t.Fatalf("raised at a batch size the engine never drafted at")
		}
	}
	obs(600*10*sec, 4, true)
	obs(601*10*sec, 12, false)
	obs(602*10*sec, 4, true) // within the spacing of the events before: none
	obs(603*10*sec, 12, false)
	if len(evs) != 3 || evs[0] != schema.Ev(schema.CodeSpecOffBatch, 12, 4) || evs[1] != schema.Ev(schema.CodeSpecOn, 4, 12) {
		t.Errorf("events %+v", evs)
	}
	if off, n := tr.Off(); !off || n != 542 {
		t.Errorf("off %v, %d samples without drafts", off, n)
	}
}

// Off at a batch size it drafted at, for longer than after: raised once, with the stated
// cause; drafting again clears it.
func TestStoppedAtUnchangedBatch(t *testing.T) {
	var tr Tracker
	tr.Observe(0, 4, true, after, after)
	tr.Stated(0, 0.312, 0.5, true)
	if !tr.StatedOff() || !tr.NotDrafting(0, false, 1, true) || tr.NotDrafting(0, false, 2.5, true) {
		t.Fatal("a 1.00 line after the gate's word must be steps without drafts, a 2.50 one not")
	}
	raised := 0
	for i := int64(1); i <= 90; i++ {
		if d := tr.Observe(i*10*sec, 4, false, after, after); d.Raise {
			raised++
			if got := time.Duration((i - 1) * 10 * sec); got != after {
				t.Errorf("raised after %v, want %v", got, after)
			}
		}
	}
	if raised != 1 {
		t.Fatalf("raised %d times", raised)
	}
	if e := tr.Evidence(after); e.Code != schema.CodeSpecOff || e.N[0] != float64(after) || e.N[1] != 4 ||
		e.N[2] != schema.SpecCauseGate || e.N[4] != 0.5 {
		t.Errorf("evidence %+v", e)
	}
	if d := tr.Observe(91*10*sec, 4, true, after, after); !d.Clear {
		t.Error("drafting again does not clear")
	}
	if tr.StatedOff() {
		t.Error("drafts say speculation is on again")
	}
}

// An engine that never drafted has nothing switched off.
func TestNeverDrafted(t *testing.T) {
	var tr Tracker
	for i := range 200 {
		if d := tr.Observe(int64(i)*10*sec, 1, false, after, after); d != (Decision{}) {
			t.Fatalf("decision %+v for an engine without speculation", d)
		}
	}
}

// The engine's own spec_steps decides over the commit length.
func TestStatedSteps(t *testing.T) {
	var tr Tracker
	if !tr.NotDrafting(0, true, 2.5, true) || tr.NotDrafting(3, true, 1, true) || tr.NotDrafting(0, false, 1, true) {
		t.Error("spec_steps 0 is no drafts, 3 is drafts; a 1.00 without the engine's word is for the stuck test")
	}
	tr.Stated(0, 0.41, 0, false)
	if e := tr.Evidence(after); e.N[2] != schema.SpecCauseAdaptive || e.N[3] != 0.41 {
		t.Errorf("evidence %+v", e)
	}
	tr.Stated(1, 0, 0, false)
	if tr.StatedOff() {
		t.Error("steps 0 -> 1 is drafting again")
	}
}
