package model

import (
	"testing"
	"time"

	"github.com/specwatch/specwatch/model/internal/slowdrift"
	"github.com/specwatch/specwatch/sample"
	"github.com/specwatch/specwatch/sim"
)

// kvLine is a key=value statistics line of one SGLang rank at t seconds: a commit length.
func kvLine(t float64, commit float64) *sample.Sample {
	s := &sample.Sample{Kind: sample.KindDecode, Engine: sample.EngineSGLang, Host: []byte("gpu01"), Unit: []byte("sglang.service"),
		Rank: []byte("TP0"), Time: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC).Add(time.Duration(t * float64(time.Second))).UnixNano()}
	s.Set(sample.Commit, commit)
	s.Set(sample.Running, 4)
	return s
}

// A restart makes the detectors forget the old process's evidence in flight: two stuck
// samples before it and one after are no three in a row; three after it are.
func TestRestartClearsStreaks(t *testing.T) {
	for _, restart := range []bool{false, true} {
		m := NewSet(Options{})
		for i := range 10 {
			m.Observe(kvLine(float64(i), 3.1))
		}
		m.Observe(kvLine(10, 1))
		m.Observe(kvLine(11, 1))
		if restart {
			m.Observe(&sample.Sample{Kind: sample.KindEvent, Event: sample.EventRestart, Engine: sample.EngineSGLang,
				Host: []byte("gpu01"), Unit: []byte("sglang.service"), Rank: []byte("TP0"), Time: kvLine(12, 1).Time})
		}
		se := m.Observe(kvLine(13, 1))
		if se.Active(CommitLenStuck) == restart {
			t.Errorf("restart %v: commit_len_stuck active %v after two stuck samples before and one after", restart, se.Active(CommitLenStuck))
		}
		m.Observe(kvLine(14, 1))
		if se = m.Observe(kvLine(15, 1)); !se.Active(CommitLenStuck) {
			t.Errorf("restart %v: three stuck samples of the new process raise nothing", restart)
		}
	}
}

// A reload's thresholds reach the sequential tests of series that already exist: with
// acceptance_drop's threshold raised past any fall's statistic half an hour in, the fall at
// an hour that raised it under the defaults raises nothing.
func TestReconfigureRetunesTheTests(t *testing.T) {
	sc := early(sim.SGLang, 1, 2*time.Hour, sim.Fault{Kind: sim.AcceptanceDrop, Start: time.Hour, Size: 1 - 2.2/3.2})
	for _, h := range []float64{0, 1e6} {
		raised, reloaded := false, false
		m := NewSet(Options{})
		runInto(t, sc, m, func(se *Series, s *sample.Sample) {
			if !reloaded && s.Time >= sc.Start.Add(30*time.Minute).UnixNano() {
				m.Reconfigure(Options{DropH: h, SlowDrift: slowdrift.Options{Z: 1e6}})
				reloaded = true
			}
			raised = raised || se.Active(AcceptanceDrop)
		})
		if !reloaded || raised != (h == 0) {
			t.Errorf("DropH %g after the reload: acceptance_drop raised %v", h, raised)
		}
	}
}
