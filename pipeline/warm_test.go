package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/model"
)

// entryList is a Journal and a Window over copied entries; it ends with io.EOF.
type entryList struct{ entries []ingest.Entry }

func (l *entryList) Next(e *ingest.Entry, _ time.Duration) (bool, error) {
	if len(l.entries) == 0 {
		return false, io.EOF
	}
	*e, l.entries = l.entries[0], l.entries[1:]
	return true, nil
}

func readEntries(t *testing.T, data []byte) []ingest.Entry {
	t.Helper()
	rd := ingest.NewReader(bytes.NewReader(data), ingest.ReaderOptions{})
	var out []ingest.Entry
	for {
		var e ingest.Entry
		err := rd.Next(&e)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		e.Message, e.Host, e.Unit, e.Cursor = bytes.Clone(e.Message), bytes.Clone(e.Host), bytes.Clone(e.Unit), bytes.Clone(e.Cursor)
		e.Container, e.Namespace, e.Pod = bytes.Clone(e.Container), bytes.Clone(e.Namespace), bytes.Clone(e.Pod)
		out = append(out, e)
	}
}

// stepCount counts the step histogram's observations.
type stepCount struct{ n int }

func (s *stepCount) ObserveStep(int, model.Labels, float64) { s.n++ }

// A restart whose warm-up window holds everything before the cursor ends with the model of an
// uninterrupted run (the same report), and every counter — lines, samples and anomaly raises
// by series, step observations — adds up across the two processes to the uninterrupted run's.
func TestWarmRestartEqualsUninterrupted(t *testing.T) {
	entries := readEntries(t, exportLog(t))
	cut := len(entries) * 3 / 5
	opts := StateOptions{Model: model.Options{Live: true}}
	follow := func(st *State, p *Pipeline, e []ingest.Entry) {
		t.Helper()
		if err := p.Follow(context.Background(), Input{Source: ingest.Poll(&entryList{e}, ingest.PollOptions{})}); err != nil {
			t.Fatal(err)
		}
	}
	whole, wholeSteps := NewState(opts), &stepCount{}
	follow(whole, New(whole, Options{Year: 2026, Steps: wholeSteps}), entries)

	before, beforeSteps := NewState(opts), &stepCount{}
	follow(before, New(before, Options{Year: 2026, Steps: beforeSteps}), entries[:cut])
	after, afterSteps := NewState(opts), &stepCount{}
	p := New(after, Options{Year: 2026, Steps: afterSteps})
	ws, err := p.Warm(context.Background(), &entryList{entries[:cut]}, WarmOptions{})
	if err != nil || ws.Entries != int64(cut) || ws.TimedOut {
		t.Fatalf("warm-up: %+v, %v; want %d entries", ws, err, cut)
	}
	// Rebuilt, and nothing counted: the first process counted those lines.
	if in := after.Status().Input; in != (model.InputCounts{}) || afterSteps.n != 0 {
		t.Errorf("after the warm-up: input %+v, %d step observations; want none", in, afterSteps.n)
	}
	for _, s := range after.Snapshot(nil) {
		if s.Samples != [5]int64{} || s.Raised != [model.NumAnomalyKinds]int64{} {
			t.Errorf("%v after the warm-up: samples %v, raised %v; want zero", s.Labels, s.Samples, s.Raised)
		}
	}
	if got, want := len(after.Snapshot(nil)), len(before.Snapshot(nil)); got != want || got == 0 {
		t.Errorf("%d series rebuilt, the first process had %d", got, want)
	}
	follow(after, p, entries[cut:])

	w, a := whole.Report(), after.Report()
	w.Input, a.Input = model.InputCounts{}, model.InputCounts{}
	if x, y := reportOf(t, w), reportOf(t, a); x != y {
		t.Errorf("the restarted model differs from the uninterrupted one:\nwhole   %.600s\nrestart %.600s", x, y)
	}
	if got, want := sumInput(before.Status().Input, after.Status().Input), whole.Status().Input; got != want {
		t.Errorf("input counted %+v across the restart, %+v uninterrupted", got, want)
	}
	if beforeSteps.n+afterSteps.n != wholeSteps.n {
		t.Errorf("step observations %d + %d, uninterrupted %d", beforeSteps.n, afterSteps.n, wholeSteps.n)
	}
	ws2, bs, as := whole.Snapshot(nil), before.Snapshot(nil), after.Snapshot(nil)
	for i := range ws2 {
		var samples [5]int64
		var raised [model.NumAnomalyKinds]int64
		for _, part := range [][]model.SeriesSnapshot{bs, as} {
			if i < len(part) {
				for k := range samples {
					samples[k] += part[i].Samples[k]
				}
				for k := range raised {
					raised[k] += part[i].Raised[k]
				}
			}
		}
		if samples != ws2[i].Samples || raised != ws2[i].Raised {
			t.Errorf("%v: samples %v raised %v across the restart, %v %v uninterrupted", ws2[i].Labels, samples, raised, ws2[i].Samples, ws2[i].Raised)
		}
	}
}

// The replay is bounded in time: past MaxDuration on the pipeline's clock it stops, and says so.
func TestWarmStopsAtItsTimeBound(t *testing.T) {
	entries := readEntries(t, exportLog(t))
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { now = now.Add(400 * time.Millisecond); return now }
	st := NewState(StateOptions{Live: true, Now: clock})
	ws, err := New(st, Options{Year: 2026, Now: clock}).Warm(context.Background(), &entryList{entries}, WarmOptions{MaxDuration: time.Second})
	if err != nil || !ws.TimedOut || ws.Entries == 0 || ws.Entries >= int64(len(entries)) || ws.Took < time.Second {
		t.Fatalf("warm-up %+v, %v: want it stopped by the bound, part way through %d entries", ws, err, len(entries))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(NewState(StateOptions{}), Options{}).Warm(ctx, &entryList{entries}, WarmOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("warm-up on a cancelled context: %v", err)
	}
}

func reportOf(t *testing.T, r model.Report) string {
	t.Helper()
	return mustJSON(t, r)
}

func sumInput(a, b model.InputCounts) model.InputCounts {
	return model.InputCounts{Lines: a.Lines + b.Lines, Samples: a.Samples + b.Samples, Ignored: a.Ignored + b.Ignored,
		Malformed: a.Malformed + b.Malformed, Unreadable: a.Unreadable + b.Unreadable}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
