// Package testdemo is the demo data as the exporter's and the web server's tests replay it:
// parsed samples, a pipeline that followed it with a journal reader's counters, and loops.
package testdemo

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/pipeline"
	"github.com/specwatch/specwatch/sample"
	"github.com/specwatch/specwatch/sim"
)

// Samples runs the demo scenario through ingest and parse as `specwatch analyze` does
// (package analyze) and returns every resolved line: matched samples and malformed
// ones, with results, deep-copied so that they can be replayed into any number of Sets.
func Samples(tb testing.TB) ([]sample.Sample, []sample.Result) {
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
	var s parse.Record
	var out []sample.Sample
	var res []sample.Result
	for {
		err := rd.Next(&e)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			tb.Fatalf("reading %s: %v", sc.Name, err)
		}
		r := p.Parse(e.Message, &s)
		if r != sample.Ignored {
			st.Resolve(e.Time, e.Host, e.Unit, &s)
		}
		c := s.Sample
		c.Host, c.Unit, c.Rank, c.Proc = bytes.Clone(s.Host), bytes.Clone(s.Unit), bytes.Clone(s.Rank), bytes.Clone(s.Proc)
		out, res = append(out, c), append(res, r)
	}
	return out, res
}

// Replay applies samples to state through p the way Apply does after parsing (the sample
// half of the pipeline: one lock per sample, each new decode point fed to p's step observer).
func Replay(p *pipeline.Pipeline, samples []sample.Sample, res []sample.Result) {
	for i := range samples {
		p.ApplySample(res[i], &samples[i])
	}
}

// demoJournal is the demo's journal export read once, with the counters of a journal reader
// that lost and re-read entries.
type demoJournal struct{ r pipeline.Reader }

func (d demoJournal) Next(e *ingest.Entry, _ time.Duration) (bool, error) {
	if err := d.r.Next(e); err != nil {
		return false, err
	}
	return true, nil
}

func (demoJournal) Stats() journal.Stats {
	return journal.Stats{Reopens: 2, CursorMissing: 1, LostEntries: 1200, Duplicates: 3}
}

func (demoJournal) Close() error { return nil }

// Source is a live pipeline.State that followed the demo data (as `journalctl -o export`
// writes it, the daemon's demo input) to its end through the pipeline, with journal counters,
// and the metrics m builds over it (m may return nil), the journal's own registered on them.
func Source(tb testing.TB, m func(exporter.Source) *exporter.Metrics) (*pipeline.State, *exporter.Metrics) {
	tb.Helper()
	var buf bytes.Buffer
	sc := sim.Demo(1)
	sc.Format = sim.FormatExport
	if _, err := sim.Generate(sc, &buf, nil); err != nil {
		tb.Fatal(err)
	}
	st := pipeline.NewState(pipeline.StateOptions{Live: true})
	mm := m(st)
	o := pipeline.Options{Year: 2026}
	if mm != nil {
		o.Steps = mm
	}
	// The clock stands still at the data's end: housekeeping (stale checks) sees the data's
	// time, not the test's.
	end := sc.Start.Add(sc.Duration)
	o.Now = func() time.Time { return end }
	j := journal.WithMetrics(demoJournal{ingest.NewReader(&buf, ingest.ReaderOptions{Name: sc.Name})})
	if mm != nil {
		mm.Registry().MustRegister(j)
	}
	if err := pipeline.New(st, o).Follow(context.Background(), pipeline.Input{Source: ingest.Poll(j, ingest.PollOptions{})}); err != nil {
		tb.Fatal(err)
	}
	return st, mm
}

// HeldSource times the exporter's snapshots of the state: the only time a scrape or a push can
// hold ingestion up is inside them. The time of the call bounds the lock's hold from above
// (it includes the wait for the lock, at most one entry's apply).
type HeldSource struct {
	*pipeline.State
	Calls, TotalNS, MaxNS atomic.Int64
}

func (h *HeldSource) Snapshot(dst []model.SeriesSnapshot) []model.SeriesSnapshot {
	start := time.Now()
	dst = h.State.Snapshot(dst)
	d := time.Since(start).Nanoseconds()
	h.Calls.Add(1)
	h.TotalNS.Add(d)
	if d > h.MaxNS.Load() {
		h.MaxNS.Store(d)
	}
	return dst
}

// SampleLoop replays parsed samples endlessly, each pass shifted past the end of the previous
// one, so that time keeps moving forward for the model (as the demo's replay does).
type SampleLoop struct {
	samples     []sample.Sample
	res         []sample.Result
	i           int
	shift, span int64
}

// NewSampleLoop loops over samples (Samples' output).
func NewSampleLoop(samples []sample.Sample, res []sample.Result) *SampleLoop {
	var first, last int64
	for i := range samples {
		if t := samples[i].Time; t != 0 {
			if first == 0 {
				first = t
			}
			last = max(last, t)
		}
	}
	return &SampleLoop{samples: samples, res: res, span: last - first + int64(time.Second)}
}

// Next copies the next sample into c and returns its result.
func (l *SampleLoop) Next(c *sample.Sample) sample.Result {
	if l.i == len(l.samples) {
		l.i, l.shift = 0, l.shift+l.span
	}
	*c = l.samples[l.i]
	if c.Time != 0 {
		c.Time += l.shift
	}
	l.i++
	return l.res[l.i-1]
}
