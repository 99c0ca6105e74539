package model

import (
	"testing"
	"time"

	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sample"
)

// clockFeed is a live Set with one SGLang series (host h, unit u) whose lines arrive on the
// daemon's clock.
type clockFeed struct {
	set   *Set
	s     parse.Record
	warns int
}

func newClockFeed(t *testing.T) *clockFeed {
	t.Helper()
	f := &clockFeed{set: NewSet(Options{Live: true, StaleAfter: 5 * time.Minute, ExpireAfter: 10 * time.Minute})}
	line := []byte("[2026-11-20 09:00:00 TP0] Decode batch, #running-req: 1, #token: 100, accept len: 3.00, gen throughput (token/s): 80.00, #queue-req: 0")
	if parse.NewParser(parse.Options{}).Parse(line, &f.s) != sample.Matched {
		t.Fatal(f.s.Why)
	}
	f.s.Host, f.s.Unit = []byte("h"), []byte("u")
	return f
}

// line applies a sample stamped stamp that arrives at now, as the live pipeline does.
func (f *clockFeed) line(stamp, now int64) *Series {
	f.s.Time = stamp
	f.set.Arrived(f.s.Host, f.s.Unit, nil, now)
	se := f.set.Observe(&f.s.Sample)
	if f.set.Heard(se, stamp, now) {
		f.warns++
	}
	return se
}

// Issue 27, item 13: stamps 3 h behind the daemon's clock (a time zone) made every sample
// look expired on arrival: no gauges, and nothing said why.
func TestLogClockBehind(t *testing.T) {
	f := newClockFeed(t)
	for i := range 180 { // a line a second for three minutes, the live loop's tick every 10 s
		now := at(time.Duration(i) * time.Second)
		f.line(now-int64(3*time.Hour), now)
		if i%10 == 0 {
			f.set.Tick(now)
			if x := snap(f.set); x.Quiet || x.Gone || !x.HasCommit {
				t.Fatalf("after %d s: quiet %v gone %v commit %v; a series whose lines keep arriving is current", i, x.Quiet, x.Gone, x.HasCommit)
			}
		}
	}
	x := snap(f.set)
	if !x.HasClockOffset || (x.ClockOffset+3*time.Hour).Abs() > time.Second {
		t.Errorf("clock offset %v (known %v), want -3h", x.ClockOffset, x.HasClockOffset)
	}
	if f.warns != 1 {
		t.Errorf("%d warnings, want 1", f.warns)
	}
}

// 3 h ahead, a stopped engine never expired: its last stamp stayed in the daemon's future.
func TestLogClockAhead(t *testing.T) {
	f := newClockFeed(t)
	for i := range 60 {
		now := at(time.Duration(i) * time.Second)
		f.line(now+int64(3*time.Hour), now)
	}
	stop := at(59 * time.Second)
	f.set.Tick(stop + int64(10*time.Minute) - int64(time.Second))
	if x := snap(f.set); x.Quiet {
		t.Fatal("quiet before ExpireAfter on the daemon's clock")
	}
	f.set.Tick(stop + int64(10*time.Minute))
	if x := snap(f.set); !x.Quiet || !x.Gone {
		t.Fatalf("quiet %v gone %v: an engine stopped for ExpireAfter on the daemon's clock has expired", x.Quiet, x.Gone)
	}
	if x := snap(f.set); (x.ClockOffset-3*time.Hour).Abs() > time.Second || f.warns != 1 {
		t.Errorf("clock offset %v, %d warnings; want 3h, 1", x.ClockOffset, f.warns)
	}
}

// A backlog found while following (a new file's old lines) arrives in one burst: its stamps
// are old, not off, and neither the gauge nor the warning may say otherwise. Lines that then
// arrive as they are written give the true offset.
func TestLogClockBacklog(t *testing.T) {
	f := newClockFeed(t)
	for i := range 300 {
		f.line(at(time.Duration(i)*time.Second-48*time.Hour), at(time.Duration(i)*time.Microsecond))
	}
	if off, ok := snap(f.set).ClockOffset, snap(f.set).HasClockOffset; ok || f.warns != 0 {
		t.Fatalf("after a backlog burst: offset %v (known %v), %d warnings; want none", off, ok, f.warns)
	}
	for i := range 40 {
		now := at(time.Second + time.Duration(i)*time.Second)
		f.line(now-int64(200*time.Millisecond), now) // read 0.2 s after it was written
	}
	if x := snap(f.set); !x.HasClockOffset || (x.ClockOffset+200*time.Millisecond).Abs() > time.Millisecond || f.warns != 0 {
		t.Errorf("offset %v (known %v), %d warnings; want -0.2s, 0", x.ClockOffset, x.HasClockOffset, f.warns)
	}
}

// Stale is decided on the daemon's clock and dated in log time: an engine 3 h behind that
// stops printing statistics while its unit logs is stale after StaleAfter of arrivals, and the
// episode ends after it started when the statistics resume.
func TestLogClockStale(t *testing.T) {
	const behind = int64(3 * time.Hour)
	f := newClockFeed(t)
	for i := range 60 {
		now := at(time.Duration(i) * time.Second)
		f.line(now-behind, now)
	}
	for i := 60; i < 8*60; i++ { // the unit keeps logging, the engine prints no statistics
		now := at(time.Duration(i) * time.Second)
		f.set.Arrived(f.s.Host, f.s.Unit, nil, now)
		f.set.Tick(now)
		if stale := f.set.Snapshot(nil)[0].Active[Stale]; stale != (i >= 60+5*60) {
			t.Fatalf("after %d s (%d s silent): stale %v", i, i-59, stale)
		}
	}
	now := at(8 * time.Minute)
	f.line(now-behind, now)
	a := f.set.order[0].anomalies
	if len(a) != 1 || a[0].Kind != Stale || a[0].End == 0 || a[0].End < a[0].Start || a[0].Start > now-behind {
		t.Fatalf("episodes %+v; want one stale episode in log time, ended", a)
	}
}

// A series that both logs and is scraped stays current while either speaks: a scraped sample
// is stamped on the daemon's clock, its arrival.
func TestLogClockScrapedSamplesAreHeard(t *testing.T) {
	f := newClockFeed(t)
	f.line(at(0), at(0))
	m := f.s.Sample
	m.Source = sample.SourceMetrics
	for i := 15; i <= 20*60; i += 15 {
		m.Time = at(time.Duration(i) * time.Second)
		f.set.Observe(&m)
	}
	f.set.Tick(at(20 * time.Minute))
	if x := snap(f.set); x.Quiet || len(f.set.order) != 1 {
		t.Fatalf("quiet %v, %d series: a series scraped every 15 s is current", x.Quiet, len(f.set.order))
	}
}
