package exporter_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
)

// skewed is a plain log followed live whose engine's clock is off: nothing at first (the loop
// catches up), then a line a second for lines seconds, then silence for quiet; the daemon's
// clock moves a second a call, and the loop ends after the script.
type skewed struct {
	now          *time.Time
	offset       time.Duration
	calls, lines int
	quiet        time.Duration
	cancel       context.CancelFunc
}

func (s *skewed) Next(e *ingest.Entry, _ time.Duration) (bool, error) {
	s.calls++
	if s.calls > 1+s.lines+int(s.quiet/time.Second) {
		s.cancel()
		return false, nil
	}
	if s.calls == 1 {
		return false, nil
	}
	*s.now = s.now.Add(time.Second)
	if s.calls > 1+s.lines {
		return false, nil
	}
	stamp := s.now.Add(s.offset)
	msg := fmt.Sprintf("[%s TP0] Decode batch, #running-req: 1, #token: 100, token usage: 0.01, accept len: 3.00, accept rate: 0.40, cuda graph: True, gen throughput (token/s): 60.00, #queue-req: 0",
		stamp.Format(time.DateTime))
	*e = ingest.Entry{Arrival: s.now.UnixMicro(), Host: []byte("gpu01"), Unit: []byte("engine.log"), Message: []byte(msg)}
	return true, nil
}

// followSkewed follows an engine whose stamps are offset from the daemon's clock and gathers
// /metrics at the end, after the live loop's tick.
func followSkewed(t *testing.T, offset time.Duration, lines int, quiet time.Duration) gathered {
	t.Helper()
	now := epoch
	clock := func() time.Time { return now }
	st := pipeline.NewState(pipeline.StateOptions{Live: true, Now: clock})
	m, err := exporter.NewMetrics(exporter.MetricsOptions{Source: st})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	p := pipeline.New(st, pipeline.Options{Now: clock, Year: epoch.Year()})
	src := &skewed{now: &now, offset: offset, lines: lines, quiet: quiet, cancel: cancel}
	if err := p.Follow(ctx, pipeline.Input{Source: ingest.Poll(src, ingest.PollOptions{Now: clock})}); err != nil {
		t.Fatal(err)
	}
	st.Tick(now)
	return gather(t, m)
}

// Issue 27, item 13 on /metrics: an engine logging 3 h behind (a time zone) has its figures
// and says how far off it is; one 3 h ahead leaves once it has been stopped for
// model.expire_after on the daemon's clock.
func TestLogClockOnMetrics(t *testing.T) {
	g := followSkewed(t, -3*time.Hour, 120, 0)
	if v, ok := g["specwatch_generation_tokens_per_second"]["engine.log"]; !ok || v != 60 {
		t.Errorf("tok/s %v (exported %v) for an engine logging 3 h behind, want 60", v, ok)
	}
	if v, ok := g["specwatch_log_clock_offset_seconds"]["engine.log"]; !ok || v != -3*3600 {
		t.Errorf("specwatch_log_clock_offset_seconds %v (exported %v), want -10800", v, ok)
	}
	g = followSkewed(t, 3*time.Hour, 60, model.DefaultExpireAfter)
	if v, ok := g["specwatch_generation_tokens_per_second"]["engine.log"]; ok {
		t.Errorf("tok/s %v still exported for an engine 3 h ahead, stopped for expire_after", v)
	}
}
