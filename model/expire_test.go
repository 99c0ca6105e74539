package model

import (
	"testing"
	"time"

	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sample"
)

// expirySet is a live Set with one SGLang series of host h, unit u, sampled at t0.
func expirySet(t *testing.T, o Options) (*Set, *Series, *sample.Sample) {
	t.Helper()
	o.Live = true
	set := NewSet(o)
	var s parse.Record
	line := []byte("[2026-11-20 09:00:00 TP0] Decode batch, #running-req: 1, #token: 100, accept len: 3.00, gen throughput (token/s): 80.00, #queue-req: 0")
	if parse.NewParser(parse.Options{}).Parse(line, &s) != sample.Matched {
		t.Fatal(s.Why)
	}
	s.Time, s.Host, s.Unit = t0, []byte("h"), []byte("u")
	set.Seen(s.Host, s.Unit, nil, t0)
	return set, set.Observe(&s.Sample), &s.Sample
}

var t0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC).UnixNano()

func at(d time.Duration) int64 { return t0 + int64(d) }

func snap(set *Set) SeriesSnapshot { return set.Snapshot(nil)[0] }

// Quiet after ExpireAfter without a sample, gone when the unit is silent as long; a sample
// undoes both at once, before any tick.
func TestExpiry(t *testing.T) {
	set, _, s := expirySet(t, Options{ExpireAfter: 10 * time.Minute})
	set.Tick(at(9 * time.Minute))
	if x := snap(set); x.Quiet || x.Gone {
		t.Fatalf("after 9 min: quiet %v gone %v", x.Quiet, x.Gone)
	}
	set.Tick(at(10 * time.Minute))
	if x := snap(set); !x.Quiet || !x.Gone {
		t.Fatalf("after 10 silent min of series and unit: quiet %v gone %v, want both", x.Quiet, x.Gone)
	}
	s.Time = at(11 * time.Minute)
	set.Observe(s)
	if x := snap(set); x.Quiet || x.Gone {
		t.Fatalf("after a new sample: quiet %v gone %v, want neither", x.Quiet, x.Gone)
	}
	off, _, _ := expirySet(t, Options{ExpireAfter: -1})
	off.Tick(at(24 * time.Hour))
	if x := snap(off); x.Quiet || x.Gone {
		t.Fatal("expiry off, and yet expired")
	}
}

// An engine silent while its unit logs is quiet (its figures are the past) but not gone: it
// stays stale. When the unit goes silent too, the series is gone and stale ends, once — with a
// stale_after longer than expire_after it is not raised again at every tick.
func TestExpiryKeepsStale(t *testing.T) {
	for _, o := range []Options{{StaleAfter: 5 * time.Minute, ExpireAfter: 10 * time.Minute}, {StaleAfter: 15 * time.Minute, ExpireAfter: 10 * time.Minute}} {
		set, se, s := expirySet(t, o)
		for m := time.Duration(1); m <= 30; m++ { // the unit keeps logging for 30 min
			set.Seen(s.Host, s.Unit, nil, at(m*time.Minute))
			set.Tick(at(m * time.Minute))
		}
		x := snap(set)
		if !se.Active(Stale) || !x.Quiet || x.Gone {
			t.Fatalf("%v: unit logging, engine silent 30 min: stale %v quiet %v gone %v; want stale, quiet, not gone", o, se.Active(Stale), x.Quiet, x.Gone)
		}
		for m := time.Duration(31); m <= 60; m++ { // then the unit is silent too
			set.Tick(at(m * time.Minute))
		}
		x = snap(set)
		if se.Active(Stale) || !x.Gone || x.Raised[Stale] != 1 {
			t.Fatalf("%v: unit silent 30 min: stale %v gone %v raised %d; want stale ended once, gone", o, se.Active(Stale), x.Gone, x.Raised[Stale])
		}
	}
}

// ForgetCounts zeroes what the exporter serves as counters and nothing of the model.
func TestForgetCounts(t *testing.T) {
	set, se, _ := expirySet(t, Options{})
	set.Count(sample.Ignored)
	se.raise(Stale, t0, schema.Ev(schema.CodeStale))
	before := set.Report()
	set.ForgetCounts()
	x, r := snap(set), set.Report()
	if set.Input() != (InputCounts{}) || x.Samples != [schema.NumSampleKinds]int64{} || x.Raised != [NumAnomalyKinds]int64{} {
		t.Errorf("after ForgetCounts: input %+v, samples %v, raised %v", set.Input(), x.Samples, x.Raised)
	}
	if !se.Active(Stale) || r.Series[0].Samples != before.Series[0].Samples || len(r.Series[0].Anomalies) != 1 {
		t.Errorf("ForgetCounts changed the model: %+v", r.Series[0])
	}
}
