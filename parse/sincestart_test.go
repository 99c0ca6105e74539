package parse

import (
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/sample"
)

// A llama.cpp per-request line as the Debian 0.7.0 server prints it, after its since-start stamp.
const llamaDraft = "I slot print_timing: id  0 | task 0 | draft acceptance = 0.00103 (    1 accepted /   972 generated), mean len =  1.01"

func TestSinceStartShapes(t *testing.T) {
	good := []struct {
		line   string
		micros int64
	}{
		{"0.00.003.521 I srv  llama_server: initializing ...", 3521},
		{"1.12.667.385 I slot launch_slot_: id  0 | task 0 | processing task", (60+12)*1e6 + 667385},
		{"61.02.003.004 W srv  operator(): x", (61*60+2)*1e6 + 3004},
		{"0.59.999.999 E boom", 59999999},
		{"0.00.000.000 D", 0},                                            // the level ends the line
		{"  9999999.00.000.001 I x", 9999999*60e6 + 1},                   // seven digits of minutes
		{"\x1b[34m0.05.071.041\x1b[0m \x1b[32mI \x1b[0mslot x", 5071041}, // --log-colors
	}
	for _, c := range good {
		got, ok := LeadSinceStart([]byte(c.line))
		if !ok || got != c.micros {
			t.Errorf("%q: %d %v, want %d", c.line, got, ok, c.micros)
		}
	}
	bad := []string{
		"", "0", "0.", "0.05.071", "0.05.071.041", "0.05.071.041 ", "0.05.071.041I x",
		"0.5.071.041 I x",         // seconds are two digits
		"0.60.071.041 I x",        // and below 60
		"0.05.71.041 I x",         // milliseconds three
		"0.05.071.0411 I x",       // microseconds three
		"0.05.071.041 X x",        // not a level
		"0.05.071.041 Ix",         // the level is a word of its own
		"0.05,071.041 I x",        // not a dot
		"12345678.00.000.000 I x", // eight digits of minutes
		"10.12.123.111 - - [20/Nov/2026:09:00:01 +0000] \"GET /\"",         // an address, not a stamp
		"2026-11-20T09:00:01+0000 gpu07 llama-server[1]: 0.05.071.041 I x", // not at the start
		"-0.05.071.041 I x", ".05.071.041 I x", "a0.05.071.041 I x",
	}
	for _, l := range bad {
		if got, ok := LeadSinceStart([]byte(l)); ok {
			t.Errorf("%q: read as a stamp, %d", l, got)
		}
	}
	// Every cut of a good line: a stamp or not, never a crash, never a different value.
	for _, c := range good {
		for n := range len(c.line) {
			if got, ok := LeadSinceStart([]byte(c.line[:n])); ok && got != c.micros {
				t.Errorf("%q cut at %d: %d", c.line, n, got)
			}
		}
	}
}

func TestSinceStartStampRoundTrip(t *testing.T) {
	for _, us := range []int64{0, 1, 999, 1e6, 59999999, 60e6, 3661e6 + 5, 616319, MaxSinceStart} {
		s := SinceStartStamp(us)
		if s.Prec != PrecRelative || s.Micros() != us {
			t.Errorf("%d: %+v, %d", us, s, s.Micros())
		}
	}
}

// The prefix walk reads the stamp (and the level after it) on a matched line, and a since-start
// stamp ranks below every other: a journal prefix's time wins.
func TestSinceStartPrefix(t *testing.T) {
	p := NewParser(Options{})
	var s Record
	if r := p.Parse([]byte("0.10.128.324 "+llamaDraft), &s); r != sample.Matched {
		t.Fatalf("%v %s", r, s.Why)
	}
	if s.Stamp.Prec != PrecRelative || s.Stamp.Micros() != 10128324 || s.Engine != sample.EngineLlamaCpp {
		t.Errorf("stamp %+v, engine %v", s.Stamp, s.Engine)
	}
	if r := p.Parse([]byte("2026-11-20T09:00:01+0000 gpu07 llama-server[1]: 0.10.128.324 "+llamaDraft), &s); r != sample.Matched || s.Stamp.Prec != PrecAbsolute {
		t.Errorf("journal prefix: %v %+v", r, s.Stamp)
	}
	if r := p.Parse([]byte("0.10.128.324 I 0.10.128.325 "+llamaDraft), &s); r != sample.Matched || s.Stamp.Micros() != 10128324 {
		t.Errorf("two stamps: %v %+v", r, s.Stamp)
	}
}

// at is a Unix time in µs.
func at(s string) int64 { return ts(s) / 1000 }

func relLine(stamp string) string { return stamp + " " + llamaDraft }

// resolveAt parses line and resolves it as arrived at arrival (µs, 0: unknown).
func resolveAt(t *testing.T, st *Stream, arrival int64, line string) Record {
	t.Helper()
	var s Record
	if r := NewParser(Options{}).Parse([]byte(line), &s); r != sample.Matched {
		t.Fatalf("%q: %v (%s)", line, r, s.Why)
	}
	if !st.ResolveArrived(0, arrival, nil, nil, &s) {
		t.Fatalf("%q: not resolved", line)
	}
	return s
}

func TestSinceStartOrigin(t *testing.T) {
	origin := time.Date(2026, 12, 5, 7, 0, 0, 0, time.UTC)
	st := NewStream(StreamOptions{Origin: origin})
	for _, c := range []struct{ stamp, want string }{
		{"0.00.003.521", "2026-12-05T07:00:00.003521Z"},
		{"1.12.667.385", "2026-12-05T07:01:12.667385Z"},
		{"61.02.003.004", "2026-12-05T08:01:02.003004Z"},
	} {
		s := resolveAt(t, st, at("2030-01-01T00:00:00Z"), relLine(c.stamp)) // the origin beats arrival
		if s.Time != ts(c.want) {
			t.Errorf("%s: %s, want %s", c.stamp, time.Unix(0, s.Time).UTC().Format(time.RFC3339Nano), c.want)
		}
	}
	// An entry's own time beats the stamp.
	var s Record
	NewParser(Options{}).Parse([]byte(relLine("0.00.001.000")), &s)
	if st.Resolve(at("2026-01-01T00:00:00Z"), nil, nil, &s); s.Time != ts("2026-01-01T00:00:00Z") {
		t.Errorf("entry time lost: %d", s.Time)
	}
}

// TestSinceStartRestart: the stamps go back, the engine restarted; its new run begins at the
// previous line (an ignored line counts, through Pass), and no time goes backwards.
func TestSinceStartRestart(t *testing.T) {
	origin := time.Date(2026, 12, 5, 7, 0, 0, 0, time.UTC)
	st := NewStream(StreamOptions{Origin: origin})
	resolveAt(t, st, 0, relLine("0.10.000.000"))
	st.Pass(30e6) // "0.30.000.000 I srv operator(): cleaning up before exit..."
	want := []string{"2026-12-05T07:00:30.5Z", "2026-12-05T07:00:42Z"}
	for i, stamp := range []string{"0.00.500.000", "0.12.000.000"} {
		if s := resolveAt(t, st, 0, relLine(stamp)); s.Time != ts(want[i]) {
			t.Errorf("%s: %s, want %s", stamp, time.Unix(0, s.Time).UTC().Format(time.RFC3339Nano), want[i])
		}
	}
	if ss := st.SinceStart(); ss.Lines != 4 || ss.Restarts != 1 || ss.ByArrival != 0 {
		t.Errorf("stats %+v", ss)
	}
	// The same lines through a Clock give the span analyze anchors a file's end with.
	var c Clock
	for _, us := range []int64{10e6, 30e6, 0.5e6, 12e6} {
		c.Add(us)
	}
	if c.Elapsed() != 42e6 || c.Restarts != 1 {
		t.Errorf("clock: elapsed %d, %d restarts", c.Elapsed(), c.Restarts)
	}
}

// TestSinceStartArrival: without an origin, a line is at the first run's start plus its stamp,
// the start bounded by arrival minus stamp, never after its arrival nor more than the slack
// before it.
func TestSinceStartArrival(t *testing.T) {
	st := NewStream(StreamOptions{})
	base := at("2026-12-05T07:00:00Z")
	for i, c := range []struct {
		stamp   string
		arrival int64 // µs after base
		want    int64 // µs after base
	}{
		{"0.01.000.000", 1_300_000, 1_300_000},   // the first: at its arrival; start = base + 0.3 s
		{"0.01.500.000", 2_000_000, 1_800_000},   // arrived late: placed by its stamp
		{"0.01.600.000", 1_700_000, 1_800_000},   // a tighter start (base + 0.1 s), but never back
		{"0.02.000.000", 2_100_000, 2_100_000},   // start + 2 s
		{"0.05.000.000", 9_000_000, 9_000_000},   // 4 s late: past the slack, at its arrival
		{"0.00.004.000", 12_000_000, 12_000_000}, // a restart after a pause: at its arrival
		{"0.00.104.000", 12_500_000, 12_100_000}, // then by its stamp again
		{"0.00.000.000", 12_600_000, 12_100_000}, // restarted at once: right after the line before
		{"0.00.500.000", 12_400_000, 12_400_000}, // would be after its arrival: at it
	} {
		s := resolveAt(t, st, base+c.arrival, relLine(c.stamp))
		if got := s.Time/1000 - base; got != c.want {
			t.Errorf("%d %s arrived +%d µs: +%d µs, want +%d", i, c.stamp, c.arrival, got, c.want)
		}
	}
	if ss := st.SinceStart(); ss.ByArrival != 9 || ss.Restarts != 2 {
		t.Errorf("stats %+v", ss)
	}
}

// TestSinceStartNever1970: with nothing to anchor it, a since-start line carries no time (0,
// which the model reads as unknown), never its stamp as a 1970 date; a stamp-less line after
// since-start lines takes the latest one's time.
func TestSinceStartNever1970(t *testing.T) {
	st := NewStream(StreamOptions{})
	if s := resolveAt(t, st, 0, relLine("1.00.000.000")); s.Time != 0 {
		t.Errorf("no anchor: %s", time.Unix(0, s.Time).UTC())
	}
	st = NewStream(StreamOptions{Origin: time.Date(2026, 12, 5, 7, 0, 0, 0, time.UTC)})
	st.Pass(60e6)
	if s := resolveAt(t, st, 0, llamaDraft[2:]); s.Time != ts("2026-12-05T07:01:00Z") {
		t.Errorf("stamp-less line: %s", time.Unix(0, s.Time).UTC())
	}
}

// TestSinceStartHostile: stamps that would carry a time past 2262 are refused, never wrapped
// around, and the clock's sum of runs saturates.
func TestSinceStartHostile(t *testing.T) {
	st := NewStream(StreamOptions{Origin: time.Date(2261, 12, 31, 0, 0, 0, 0, time.UTC)})
	var s Record
	NewParser(Options{}).Parse([]byte(relLine("9999999.59.999.999")), &s)
	if st.Resolve(0, nil, nil, &s) {
		t.Errorf("a line in 2281 resolved to %s", time.Unix(0, s.Time).UTC())
	}
	var c Clock
	for range 100000 {
		c.Add(MaxSinceStart)
		c.Add(0)
	}
	if e := c.Elapsed(); e <= 0 || e > 1<<53 {
		t.Errorf("elapsed %d after 100,000 restarts", e)
	}
	st.Pass(-1)
	st.Pass(MaxSinceStart + 1)
	if st.SinceStart().Lines != 1 {
		t.Errorf("out-of-range stamps passed: %+v", st.SinceStart())
	}
}

func FuzzLeadSinceStart(f *testing.F) {
	for _, l := range []string{"0.00.003.521 I srv", "61.02.003.004 W x", "\x1b[34m0.05.071.041\x1b[0m \x1b[32mI \x1b[0m", "10.12.123.111 - -"} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		us, ok := LeadSinceStart(line)
		if ok && (us < 0 || us > 9999999*60e6+59999999) {
			t.Fatalf("%q: %d", line, us)
		}
		if ok && !strings.ContainsAny(string(line), "IWED") {
			t.Fatalf("%q: no level", line)
		}
	})
}

// Noise and records of a llama.cpp log behind their since-start stamps: the stamp is read only
// on a record's prefix, so noise costs what it did (issue 26's benchmark comparison).
func BenchmarkLlamaNoise(b *testing.B) {
	// a slot line of no request (the launch line is now a part of the request join: matched)
	benchLine(b, "0.08.035.000 I slot get_availabl: id  0 | task -1 | selected slot by LRU, t_last = -1", sample.Ignored)
}

func BenchmarkLlamaDraft(b *testing.B) { benchLine(b, "0.10.128.324 "+llamaDraft, sample.Matched) }

// BenchmarkLeadSinceStart is the pipeline's look at every line without an entry time, on a
// llama.cpp line and on a short-iso journal line (which its first bytes rule out).
func BenchmarkLeadSinceStart(b *testing.B) {
	lines := [][]byte{[]byte("0.08.035.006 I slot launch_slot_: id  0 | task 0 | processing task"), []byte(isoPrefix + "[2026-11-20 09:00:01] INFO: x")}
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			LeadSinceStart(l)
		}
	}
}
