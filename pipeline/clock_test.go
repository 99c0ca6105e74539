package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/model"
)

// step is one call of a scripted live source: the daemon's clock moves on by wait, then the
// source yields entry, or nothing yet (nil).
type step struct {
	wait  time.Duration
	entry *ingest.Entry
}

// scripted is a followed source on an injected clock; the loop ends after its last step.
type scripted struct {
	now    *time.Time
	steps  []step
	cancel context.CancelFunc
}

func (c *scripted) Next(e *ingest.Entry, _ time.Duration) (bool, error) {
	if len(c.steps) == 0 {
		c.cancel()
		return false, nil
	}
	st := c.steps[0]
	c.steps = c.steps[1:]
	*c.now = c.now.Add(st.wait)
	if st.entry == nil {
		return false, nil
	}
	*e = *st.entry
	return true, nil
}

var clockT0 = time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)

// engineLine is an SGLang decode line stamped stamp, as a plain file (no entry time: the
// line's stamp, on the engine's clock) or a journal forwarded from the engine's host gives it.
func engineLine(stamp time.Time, plain bool) *ingest.Entry {
	msg := fmt.Sprintf("[%s TP0] Decode batch. #running-req: 1, #token: 1000, token usage: 0.01, accept len: 3.00, gen throughput (token/s): 40.00, #queue-req: 0",
		stamp.Format(time.DateTime))
	e := &ingest.Entry{Host: []byte("h"), Unit: []byte("sglang.service"), Message: []byte(msg)}
	if !plain {
		e.Time = stamp.UnixMicro()
	}
	return e
}

// engineSteps is a source that has nothing at first (the loop catches up), then an engine
// logging a line a second for lines seconds, its stamps offset from the daemon's clock, then
// silence for quiet.
func engineSteps(offset time.Duration, lines int, quiet time.Duration, plain bool) []step {
	steps := []step{{}}
	for i := 1; i <= lines; i++ {
		steps = append(steps, step{time.Second, engineLine(clockT0.Add(time.Duration(i)*time.Second+offset), plain)})
	}
	for range int(quiet / time.Second) {
		steps = append(steps, step{wait: time.Second})
	}
	return steps
}

// followScript runs the daemon's loop over steps and returns the series at the end (after a
// last tick) and the log.
func followScript(t *testing.T, live bool, steps []step) ([]model.SeriesSnapshot, string) {
	t.Helper()
	now := clockT0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs bytes.Buffer
	st := NewState(StateOptions{Live: live, Model: model.Options{Live: true}})
	p := New(st, Options{Year: 2026, Now: func() time.Time { return now }, Log: zerolog.New(&logs)})
	if err := p.Follow(ctx, Input{Source: ingest.Poll(&scripted{now: &now, steps: steps, cancel: cancel}, ingest.PollOptions{})}); err != nil {
		t.Fatal(err)
	}
	st.Tick(now)
	return st.Snapshot(nil), logs.String()
}

func warnings(logs string) int { return strings.Count(logs, "log timestamps are off") }

// Issue 27, item 13: an engine whose stamps are 3 h behind the daemon's clock kept no gauge
// (every sample looked ten minutes past expiry), and nothing said why.
func TestLogClockBehind(t *testing.T) {
	for _, plain := range []bool{true, false} {
		snap, logs := followScript(t, true, engineSteps(-3*time.Hour, 120, 0, plain))
		if len(snap) != 1 {
			t.Fatalf("plain %v: %d series, want 1", plain, len(snap))
		}
		s := snap[0]
		if s.Quiet || s.Gone || !s.HasCommit {
			t.Errorf("plain %v: quiet %v gone %v, commit %v: a series whose lines keep arriving is current", plain, s.Quiet, s.Gone, s.HasCommit)
		}
		if !s.HasClockOffset || s.ClockOffset != -3*time.Hour {
			t.Errorf("plain %v: clock offset %v (known %v), want -3h", plain, s.ClockOffset, s.HasClockOffset)
		}
		if n := warnings(logs); n != 1 {
			t.Errorf("plain %v: %d warnings about the log clock, want 1:\n%s", plain, n, logs)
		}
	}
}

// 3 h ahead, a stopped engine never expired: its last stamp stayed in the daemon's future.
func TestLogClockAhead(t *testing.T) {
	for _, plain := range []bool{true, false} {
		snap, _ := followScript(t, true, engineSteps(3*time.Hour, 60, model.DefaultExpireAfter, plain))
		if s := snap[0]; !s.Quiet || !s.Gone {
			t.Errorf("plain %v: quiet %v gone %v: an engine stopped for ExpireAfter on the daemon's clock has expired", plain, s.Quiet, s.Gone)
		}
	}
}

// A backlog found while following (a file that appears with two-day-old lines, its engine
// stopped) is read in one burst: its stamps are old, not off.
func TestLogClockBacklogFoundLater(t *testing.T) {
	steps := []step{{}, {wait: time.Minute}}
	for i := range 300 {
		steps = append(steps, step{time.Microsecond, engineLine(clockT0.Add(time.Duration(i)*time.Second-48*time.Hour), true)})
	}
	steps = append(steps, step{wait: time.Minute})
	snap, logs := followScript(t, true, steps)
	if s := snap[0]; s.HasClockOffset || warnings(logs) != 0 {
		t.Errorf("clock offset %v (known %v), %d warnings: a backlog is no clock error", s.ClockOffset, s.HasClockOffset, warnings(logs))
	}
}

// A replay on simulated time (the demo's tour) is not followed as it is written: its stamps
// are its clock, and nothing is off.
func TestLogClockReplayIsNotLive(t *testing.T) {
	snap, logs := followScript(t, false, engineSteps(-300*24*time.Hour, 120, 0, false))
	if s := snap[0]; s.HasClockOffset || warnings(logs) != 0 {
		t.Errorf("clock offset %v (known %v), %d warnings, replaying simulated time", s.ClockOffset, s.HasClockOffset, warnings(logs))
	}
}
