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

// clockSource is an engine logging a decode line a second, its stamps offset from the
// daemon's clock (a time zone or clock error), for lines seconds of the daemon's clock; each
// Next moves that clock on by a second, and the source stops after stopAfter lines.
type clockSource struct {
	now       *time.Time
	offset    time.Duration
	lines     int
	stopAfter int
	end       time.Time
	cancel    context.CancelFunc
}

func (c *clockSource) Next(e *ingest.Entry, _ time.Duration) (bool, error) {
	*c.now = c.now.Add(time.Second)
	if !c.now.Before(c.end) {
		c.cancel()
	}
	if c.lines == c.stopAfter {
		return false, nil // the engine stopped; the unit too
	}
	c.lines++
	stamp := c.now.Add(c.offset)
	msg := fmt.Sprintf("[%s TP0] Decode batch. #running-req: 1, #token: %d, token usage: 0.01, accept len: 3.00, gen throughput (token/s): 40.00, #queue-req: 0",
		stamp.Format(time.DateTime), 1000+c.lines)
	// A plain log file's entry carries the line's own stamp (ingest/file), the engine's clock.
	*e = ingest.Entry{Time: stamp.UnixMicro(), Host: []byte("h"), Unit: []byte("sglang.service"), Message: []byte(msg)}
	return true, nil
}

func (c *clockSource) TakeUnreadable() int64 { return 0 }

// followClock runs the daemon's loop over a source whose stamps are offset, for run of the
// daemon's clock, and returns the series' snapshot at the end and the log.
func followClock(t *testing.T, offset time.Duration, stopAfter int, run time.Duration) (model.SeriesSnapshot, string) {
	t.Helper()
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := &clockSource{now: &now, offset: offset, stopAfter: stopAfter, end: now.Add(run), cancel: cancel}
	var logs bytes.Buffer
	st := NewState(StateOptions{Live: true})
	p := New(st, Options{Year: 2026, Now: func() time.Time { return now }, Log: zerolog.New(&logs)})
	p.caughtUp = true // the engine is followed live from its first line
	if err := p.Follow(ctx, src, DiscardCursor{}); err != nil {
		t.Fatal(err)
	}
	st.Tick(now)
	snap := st.Snapshot(nil)
	if len(snap) != 1 {
		t.Fatalf("%d series, want 1", len(snap))
	}
	return snap[0], logs.String()
}

// Issue 27, item 13: an engine whose stamps are 3 h behind the daemon's clock kept no gauge
// (every sample looked ten minutes past expiry), and nothing said why.
func TestLogClockBehind(t *testing.T) {
	s, logs := followClock(t, -3*time.Hour, 1<<30, 2*time.Minute)
	if s.Quiet || s.Gone || !s.HasCommit {
		t.Fatalf("series quiet %v gone %v, commit %v: a series whose lines keep arriving is current", s.Quiet, s.Gone, s.HasCommit)
	}
	if !s.HasClockOffset || (s.ClockOffset+3*time.Hour).Abs() > 2*time.Second {
		t.Errorf("clock offset %v (%v), want about -3h", s.ClockOffset, s.HasClockOffset)
	}
	if n := strings.Count(logs, "log timestamps are off"); n != 1 {
		t.Errorf("%d warnings about the log clock, want 1:\n%s", n, logs)
	}
}

// 3 h ahead, a stopped engine never expired: its last stamp stayed in the daemon's future.
func TestLogClockAhead(t *testing.T) {
	s, _ := followClock(t, 3*time.Hour, 60, 60*time.Second+model.DefaultExpireAfter+time.Minute)
	if !s.Quiet || !s.Gone {
		t.Fatalf("series quiet %v gone %v: an engine stopped for more than ExpireAfter on the daemon's clock has expired", s.Quiet, s.Gone)
	}
}
