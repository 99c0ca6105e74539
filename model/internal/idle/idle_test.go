package idle

import (
	"testing"
	"time"

	"github.com/specwatch/specwatch/model/internal/interval"
)

// fit is a warm step model that predicts 20 ms.
type fit struct{ n int }

func (f fit) N() int                  { return f.n }
func (f fit) Predict(float64) float64 { return 0.02 }

func env() *Env {
	return &Env{Interval: 40, Factor: 3, Cadence: &interval.Learner{}, Fit: fit{n: 100}, FitWarmup: 20}
}

// TestCheckPause: on a steady rhythm (a line a second, the context growing by 80 tokens) the
// first line is after-idle (no rhythm to trust), the next are not, a line after a 30 s pause of
// a new request is, the busy line after it is not, and a line that is not wall-averaged never is.
func TestCheckPause(t *testing.T) {
	var d Detector
	e := env()
	sec := int64(time.Second)
	ctx := 1000.0
	check := func(t0 int64, ctx float64) (bool, bool) { return d.Check(t0, ctx, 2, 1, 0.02, true, true, e) }
	if idle, untrusted := check(0, ctx); !idle || untrusted {
		t.Errorf("first line: idle %v untrusted %v, want after-idle, trusted", idle, untrusted)
	}
	for i := int64(1); i <= 10; i++ {
		ctx += 80
		if idle, _ := check(i*sec, ctx); idle {
			t.Fatalf("line %d of a steady rhythm: after-idle", i)
		}
	}
	if idle, _ := check(40*sec, 300); !idle {
		t.Error("a new request's line after a 30 s pause: not after-idle")
	}
	if idle, _ := check(41*sec, 380); idle {
		t.Error("the busy line after it: after-idle")
	}
	if idle, _ := d.Check(90*sec, 5000, 2, 1, 0.02, true, false, e); idle {
		t.Error("a logged step (not wall-averaged) after a pause: after-idle, want never")
	}
	if e.Cadence.Pairs() == 0 {
		t.Error("the steady pairs taught the interval learner nothing")
	}
}

// TestCheckCollapse: a slow rhythm that persists over lines of the same requests (the context
// growing by what the interval generated) is a collapse to be seen, not a pause: only the first
// long gap is after-idle.
func TestCheckCollapse(t *testing.T) {
	var d Detector
	e := env()
	sec := int64(time.Second)
	ctx := 1000.0
	for i := int64(0); i <= 10; i++ {
		d.Check(i*sec, ctx, 2, 1, 0.02, true, true, e)
		ctx += 80
	}
	tm := 10 * sec
	for i := range 4 {
		tm += 10 * sec
		idle, _ := d.Check(tm, ctx, 2, 1, 0.25, true, true, e)
		ctx += 80
		if want := i == 0; idle != want {
			t.Errorf("slow line %d: after-idle %v, want %v", i, idle, want)
		}
	}
}

// TestCheckClock: vLLM logs on a clock (KV contexts): only the interval after one with nothing
// running is diluted by the pause.
func TestCheckClock(t *testing.T) {
	var d Detector
	e := env()
	e.KV = true
	sec := int64(10 * time.Second)
	d.Check(0, 10, 2, 4, 0.02, true, true, e)
	if idle, _ := d.Check(sec, 11, 2, 4, 0.02, true, true, e); idle {
		t.Error("a busy interval: after-idle")
	}
	d.SawIdle()
	if idle, _ := d.Check(5*sec, 12, 2, 4, 0.02, true, true, e); !idle {
		t.Error("the interval after an idle one: not after-idle")
	}
	if idle, _ := d.Check(6*sec, 13, 2, 4, 0.02, true, true, e); idle {
		t.Error("the interval after that: after-idle")
	}
}
