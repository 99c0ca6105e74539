package parse

import (
	"testing"
	"time"

	"github.com/specwatch/specwatch/sample"
)

func resolve(t *testing.T, st *Stream, entryTime int64, host, unit, line string) Record {
	t.Helper()
	var s Record
	if r := NewParser(Options{}).Parse([]byte(line), &s); r != sample.Matched {
		t.Fatalf("%q: %v (%s)", line, r, s.Why)
	}
	st.Resolve(entryTime, []byte(host), []byte(unit), &s)
	return s
}

const dec = "Decode batch, #running-req: 1, #token: 10, gen throughput (token/s): 30.00, #queue-req: 0"
const eng = "Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 96.4 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 7.3%"
const spec = "SpecDecoding metrics: Mean acceptance length: 2.37, Accepted: 411 tokens, Drafted: 900 tokens"

func ts(s string) int64 {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t.UnixNano()
}

func TestStreamTimes(t *testing.T) {
	st := NewStream(StreamOptions{Year: 2020})
	cases := []struct{ line, want string }{
		{"2026-05-14T17:22:08.904412331Z [2026-05-14 19:22:08 TP0] " + dec, "2026-05-14T17:22:08.904412331Z"}, // docker beats the local stamp
		{"2026-11-20T09:00:01+0200 gpu07 sglang[1]: " + dec, "2026-11-20T07:00:01Z"},
		{"[2026-11-20 09:00:01.250 TP0] " + dec, "2026-11-20T09:00:01.25Z"},
		{"[23:59:59 TP0] " + dec, "2026-11-20T23:59:59Z"},
		{"[00:00:02 TP0] " + dec, "2026-11-21T00:00:02Z"}, // past midnight
		{"INFO 12-31 23:59:00 [loggers.py:271] " + eng, "2026-12-31T23:59:00Z"},
		{"INFO 01-01 00:01:00 [loggers.py:271] " + eng, "2027-01-01T00:01:00Z"}, // New Year
		{"Jan  2 10:00:00 gpu07 python3[4]: " + dec, "2027-01-02T10:00:00Z"},
		{dec, "2027-01-02T10:00:00Z"}, // no stamp: carries the previous time
	}
	for _, c := range cases {
		s := resolve(t, st, 0, "", "", c.line)
		if got, want := s.Time, ts(c.want); got != want {
			t.Errorf("%q: time %s, want %s", c.line, time.Unix(0, got).UTC(), c.want)
		}
	}
	// The journal entry's own time wins over the line's, and its host and unit over the prefix's.
	s := resolve(t, st, ts("2026-03-01T00:00:00Z")/1000, "h1", "sglang.service", "Nov 20 09:00:01 gpu07 python3[4]: "+dec)
	if s.Time != ts("2026-03-01T00:00:00Z") || string(s.Host) != "h1" || string(s.Unit) != "sglang.service" {
		t.Errorf("entry fields not preferred: %v %s %s", s.Time, s.Host, s.Unit)
	}
}

func TestStreamYearFromOptionsUntilInputShowsOne(t *testing.T) {
	st := NewStream(StreamOptions{Year: 2025, Location: time.UTC})
	s := resolve(t, st, 0, "", "", "INFO 11-20 09:00:01 [loggers.py:271] "+eng)
	if s.Time != ts("2025-11-20T09:00:01Z") {
		t.Errorf("time %s", time.Unix(0, s.Time).UTC())
	}
}

func TestStreamJoinsSpecLineToItsEngine(t *testing.T) {
	st := NewStream(StreamOptions{Year: 2026})
	pre := func(pid string) string { return "(APIServer pid=" + pid + ") INFO 11-20 09:00:01 [loggers.py:271] " }
	resolve(t, st, 0, "h", "u", pre("1")+"Engine 000: "+eng)
	resolve(t, st, 0, "h", "u", pre("2")+"Engine 001: "+eng)
	if s := resolve(t, st, 0, "h", "u", pre("1")+spec); string(s.Rank) != "Engine 000" {
		t.Errorf("pid 1 spec line joined %q", s.Rank)
	}
	if s := resolve(t, st, 0, "h", "u", pre("2")+spec); string(s.Rank) != "Engine 001" {
		t.Errorf("pid 2 spec line joined %q", s.Rank)
	}
	if s := resolve(t, st, 0, "h", "other", pre("1")+spec); string(s.Rank) != "" {
		t.Errorf("another unit's spec line joined %q", s.Rank)
	}
}

// TestAbsTime checks the cached-midnight arithmetic of absolute stamps against time.Date, over
// day, month and year changes, offsets either side of UTC, leap seconds and days past a
// month's end (which time.Date carries into the next month).
func TestAbsTime(t *testing.T) {
	st := NewStream(StreamOptions{})
	stamps := []Stamp{
		{Year: 2026, Month: 11, Day: 20, Hour: 9, Min: 0, Sec: 1},
		{Year: 2026, Month: 11, Day: 20, Hour: 23, Min: 59, Sec: 60, Nano: 999999999},
		{Year: 2026, Month: 11, Day: 21, Hour: 0, Min: 0, Sec: 0, Offset: 3600},
		{Year: 2026, Month: 2, Day: 31, Hour: 12, Min: 30, Sec: 5, Offset: -5*3600 - 1800},
		{Year: 2024, Month: 2, Day: 29, Hour: 1, Offset: 14 * 3600},
		{Year: 1970, Month: 1, Day: 1},
		{Year: 1969, Month: 12, Day: 31, Hour: 23, Min: 59, Sec: 59, Nano: 1},
		{Year: 2026, Month: 12, Day: 31, Hour: 23, Min: 59, Sec: 59},
		{Year: 2027, Month: 1, Day: 1, Nano: 5},
	}
	for _, s := range append(stamps, stamps...) { // again in order: each day once cached, once not
		s.Prec = PrecAbsolute
		want := time.Date(s.Year, time.Month(s.Month), s.Day, s.Hour, s.Min, s.Sec, s.Nano, time.UTC).UnixNano() -
			int64(s.Offset)*int64(time.Second)
		if got := st.stampTime(&s); got != want {
			t.Errorf("%+v: %d, want %d", s, got, want)
		}
	}
}
