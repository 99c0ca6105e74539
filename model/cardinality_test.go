package model

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sample"
)

// Cardinality attack: a writer with access to the journal floods it with statistics lines
// under thousands of fake units and ranks. The series cap must hold, every dropped sample must
// be counted, the per-unit bookkeeping of stale detection must stay capped, and memory must not
// grow with the number of distinct labels once the cap is reached.

// flood parses and applies hostile decode lines, each under its own fake unit and rank, the
// way the daemon does (parse, resolve with the journal entry's unit, Seen, Apply). line
// returns the i-th line; it is built in a reused buffer so that the flood itself allocates
// nothing per line and the heap measures the Set alone.
type flood struct {
	p   *parse.Parser
	st  *parse.Stream
	buf []byte
	s   parse.Record
}

func newFlood() *flood {
	return &flood{p: parse.NewParser(parse.Options{}), st: parse.NewStream(parse.StreamOptions{Year: 2026, Location: time.UTC})}
}

// line i: host gpu<i%7>, unit fake-<i>.service, rank "DP<i%13> TP<i>": every line a new series.
func (f *flood) line(i int) []byte {
	b := append(f.buf[:0], "Nov 20 09:00:01 gpu"...)
	b = strconv.AppendInt(b, int64(i%7), 10)
	b = append(b, " fake-"...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, ".service[1]: [2026-11-20 09:00:01 DP"...)
	b = strconv.AppendInt(b, int64(i%13), 10)
	b = append(b, " TP"...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, "] Decode batch, #running-req: 4, #token: 8192, token usage: 0.05, accept len: 2.90, cuda graph: True, gen throughput (token/s): 120.00, #queue-req: 0"...)
	f.buf = b
	return b
}

// apply feeds line i to m and returns the series it landed in (nil when dropped).
func (f *flood) apply(t testing.TB, m *Set, i int) *Series {
	r := f.p.Parse(f.line(i), &f.s)
	if r != sample.Matched {
		t.Fatalf("line %d: %v (%s)", i, r, f.s.Why)
	}
	f.st.Resolve(int64(1_795_000_000_000_000+i), nil, nil, &f.s)
	m.Seen(f.s.Host, f.s.Unit, nil, f.s.Time)
	return m.Apply(r, &f.s.Sample)
}

func TestCardinalityFloodCapsSeries(t *testing.T) {
	const distinct = 10_000
	for _, c := range []struct {
		name string
		opts Options
		cap  int
	}{
		{"default", Options{Live: true}, DefaultMaxSeries},
		{"configured", Options{Live: true, MaxSeries: 40}, 40},
		{"configured-large", Options{Live: true, MaxSeries: 1000}, 1000},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := NewSet(c.opts)
			f := newFlood()
			var dropped int64
			for i := range distinct {
				if se := f.apply(t, m, i); se == nil {
					dropped++
				} else if se.ID() >= c.cap {
					t.Fatalf("line %d: series ID %d past the cap %d", i, se.ID(), c.cap)
				}
				if m.Len() > c.cap {
					t.Fatalf("line %d: %d series, cap %d", i, m.Len(), c.cap)
				}
			}
			if want := int64(distinct - c.cap); dropped != want || m.Overflow() != want {
				t.Errorf("dropped %d, Overflow %d, want %d", dropped, m.Overflow(), want)
			}
			// Series that made it keep receiving; dropped ones keep being dropped and counted.
			for i := range 2 * c.cap {
				if se := f.apply(t, m, i); (se != nil) != (i < c.cap) {
					t.Fatalf("second pass, line %d: series %v", i, se)
				}
			}
			if want := int64(distinct - c.cap + c.cap); m.Overflow() != want {
				t.Errorf("after a second pass: Overflow %d, want %d", m.Overflow(), want)
			}
			// A malformed line of a series past the cap is counted as input, never as a series.
			f.s.Reset()
			f.s.Unit, f.s.Rank = []byte("fake-malformed.service"), []byte("TP99999")
			m.Apply(sample.Malformed, &f.s.Sample)
			if m.Len() != c.cap || m.Input().Malformed != 1 {
				t.Errorf("malformed past the cap: %d series, %d malformed", m.Len(), m.Input().Malformed)
			}
			if m.units.Len() > 4*c.cap {
				t.Errorf("stale bookkeeping: %d units, cap %d", m.units.Len(), 4*c.cap)
			}
			if n := len(m.Report().Series); n != c.cap {
				t.Errorf("report: %d series, want %d", n, c.cap)
			}
			if n := len(m.Snapshot(nil)); n != c.cap {
				t.Errorf("snapshot: %d series, want %d", n, c.cap)
			}
			if in := m.Input(); in.Samples != int64(distinct+2*c.cap) {
				t.Errorf("input %+v", in)
			}
			m.Tick(1_795_000_000_000_000_000 + int64(time.Hour)) // walks every series and unit: bounded too
		})
	}
}

// TestCardinalityFloodAfterReconfigure: a reload that lowers the cap keeps the series already
// there (they are not torn down mid-flight) but admits no new one while above the new cap.
func TestCardinalityFloodAfterReconfigure(t *testing.T) {
	m := NewSet(Options{MaxSeries: 100})
	f := newFlood()
	for i := range 100 {
		f.apply(t, m, i)
	}
	m.Reconfigure(Options{MaxSeries: 10})
	for i := 100; i < 1100; i++ {
		if se := f.apply(t, m, i); se != nil {
			t.Fatalf("line %d admitted a new series above the lowered cap", i)
		}
	}
	if m.Len() != 100 || m.Overflow() != 1000 {
		t.Errorf("%d series, overflow %d", m.Len(), m.Overflow())
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC() // a second cycle frees what the first one's finalizers and pools released
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestCardinalityMemoryBounded: with the cap reached, 10k, 100k and 1M distinct hostile labels
// leave the live heap where the cap put it. The bound, 1 MiB of growth from 100k to 1M
// distinct labels, would fail at a byte per label; a map entry or a label string per distinct
// label would cost tens of MiB.
func TestCardinalityMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("1M lines")
	}
	before := heapInUse()
	m := NewSet(Options{Live: true})
	f := newFlood()
	var heap [3]uint64
	marks := [3]int{10_000, 100_000, 1_000_000}
	i := 0
	for k, n := range marks {
		for ; i < n; i++ {
			f.apply(t, m, i)
		}
		heap[k] = heapInUse()
		t.Logf("after %7d distinct labels: heap %8.1f KiB above the start (%d series, %d dropped, %d units tracked)",
			n, (float64(heap[k])-float64(before))/1024, m.Len(), m.Overflow(), m.units.Len())
	}
	runtime.KeepAlive(m)
	t.Logf("growth 10k→100k: %+d B, 100k→1M: %+d B; per series at the cap: %.0f KiB",
		int64(heap[1])-int64(heap[0]), int64(heap[2])-int64(heap[1]), (float64(heap[0])-float64(before))/1024/float64(m.Len()))
	if m.Overflow() != int64(marks[2]-DefaultMaxSeries) {
		t.Errorf("overflow %d", m.Overflow())
	}
	const bound = 1 << 20
	if heap[2] > heap[1]+bound {
		t.Errorf("heap grew %d bytes from 100k to 1M distinct labels (bound %d)", heap[2]-heap[1], bound)
	}
	if heap[2] > heap[0]+bound {
		t.Errorf("heap grew %d bytes from 10k to 1M distinct labels (bound %d)", heap[2]-heap[0], bound)
	}
}

// BenchmarkCardinalityDropped: the cost of a sample whose series the cap drops (parse,
// resolve, Seen, Apply), which is what a flood costs once the cap is reached.
func BenchmarkCardinalityDropped(b *testing.B) {
	m := NewSet(Options{Live: true})
	f := newFlood()
	for i := range DefaultMaxSeries {
		f.apply(b, m, i)
	}
	b.ReportAllocs()
	i := DefaultMaxSeries
	for b.Loop() {
		f.apply(b, m, i)
		i++
	}
	if m.Len() != DefaultMaxSeries {
		b.Fatalf("%d series", m.Len())
	}
}
