package exportertest

import (
	"bytes"
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sim"
)

// DemoSamples runs the demo scenario through ingest and parse as `specwatch analyze` does
// (cmd/specwatch/analyze.go) and returns every resolved line: matched samples and malformed
// ones, with results, deep-copied so that they can be replayed into any number of Sets.
func DemoSamples(tb testing.TB) ([]parse.Sample, []parse.Result) {
	tb.Helper()
	sc := sim.Demo(1)
	pr, pw := io.Pipe()
	go func() {
		_, err := sim.Generate(sc, pw, nil)
		pw.CloseWithError(err)
	}()
	defer pr.Close()
	rd := ingest.NewReader(pr, ingest.ReaderOptions{Name: sc.Name})
	st := parse.NewStream(parse.StreamOptions{Location: time.UTC, Year: 2026})
	p := parse.NewParser(parse.Options{})
	var e ingest.Entry
	var s parse.Sample
	var out []parse.Sample
	var res []parse.Result
	for {
		err := rd.Next(&e)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			tb.Fatalf("reading %s: %v", sc.Name, err)
		}
		r := p.Parse(e.Message, &s)
		if r != parse.Ignored {
			st.Resolve(e.Time, e.Host, e.Unit, &s)
		}
		c := s
		c.Host, c.Unit, c.Rank, c.Proc = bytes.Clone(s.Host), bytes.Clone(s.Unit), bytes.Clone(s.Rank), bytes.Clone(s.Proc)
		out, res = append(out, c), append(res, r)
	}
	return out, res
}

// Replay applies samples to l.Set the way the pipeline does: one lock per entry, and each new
// decode point fed to the step histogram once (model.Series.StepObserved); m may be nil.
func Replay(l *exporter.Locked, m *exporter.Metrics, samples []parse.Sample, res []parse.Result) {
	var seen []int64
	for i := range samples {
		s := &samples[i]
		l.Mu.Lock()
		if se := l.Set.Apply(res[i], s); se != nil && m != nil {
			for len(seen) <= se.ID() {
				seen = append(seen, 0)
			}
			if step, seq := se.StepObserved(); seq != seen[se.ID()] {
				seen[se.ID()] = seq
				m.ObserveStep(se.ID(), se.Labels(), step)
			}
		}
		l.LastEntry = time.Unix(0, s.Time)
		l.Mu.Unlock()
	}
}

// DemoSource is a Locked over a model.Set fed with the demo data, caught up and live, with the
// metrics m builds over it (m may return nil).
func DemoSource(tb testing.TB, m func(exporter.Source) *exporter.Metrics) (*exporter.Locked, *exporter.Metrics) {
	tb.Helper()
	samples, res := DemoSamples(tb)
	l := &exporter.Locked{Set: model.NewSet(model.Options{Live: true}), Live: true}
	mm := m(l)
	Replay(l, mm, samples, res)
	l.Mu.Lock()
	l.AtTail, l.CaughtUp = true, true
	l.HasJournal, l.Journal = true, exporter.JournalCounts{Reopens: 2, CursorMissing: 1, LostEntries: 1200, Duplicates: 3}
	l.Mu.Unlock()
	return l, mm
}

// HeldSource times how long the exporter's snapshots hold the pipeline's lock, the only time
// a scrape or a push can hold ingestion up (Locked.Snapshot, with the hold timed inside the
// lock; the wait for the lock is the reader's, not ingestion's).
type HeldSource struct {
	*exporter.Locked
	Calls, TotalNS, MaxNS atomic.Int64
}

func (h *HeldSource) Snapshot(dst []model.SeriesSnapshot) []model.SeriesSnapshot {
	h.Mu.Lock()
	defer h.Mu.Unlock()
	start := time.Now()
	dst = h.Set.Snapshot(dst)
	d := time.Since(start).Nanoseconds()
	h.Calls.Add(1)
	h.TotalNS.Add(d)
	if d > h.MaxNS.Load() {
		h.MaxNS.Store(d)
	}
	return dst
}
