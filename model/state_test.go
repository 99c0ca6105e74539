package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/specwatch/specwatch/model/internal/statecodec"
	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sample"
	"github.com/specwatch/specwatch/sim"
)

// feed applies lines to set with one parser and stream, which the caller keeps across calls
// (a restart of the model, not of the reader).
type feeder struct {
	p  *parse.Parser
	st *parse.Stream
	r  parse.Record
}

func newFeeder() *feeder {
	return &feeder{p: parse.NewParser(parse.Options{}), st: parse.NewStream(parse.StreamOptions{Year: 2026, Location: time.UTC})}
}

func (f *feeder) feed(set *Set, lines [][]byte) {
	for _, l := range lines {
		r := f.p.Parse(l, &f.r)
		if r != sample.Ignored {
			f.st.Resolve(0, nil, nil, &f.r)
		}
		set.Apply(r, &f.r.Sample)
	}
}

func simLines(t *testing.T, sc sim.Scenario) [][]byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := sim.Generate(sc, &buf, nil); err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	s := bufio.NewScanner(&buf)
	s.Buffer(make([]byte, 0, 1<<16), 1<<21)
	for s.Scan() {
		lines = append(lines, bytes.Clone(s.Bytes()))
	}
	return lines
}

// seriesJSON is the report's series, which a restart must not change (the input counts are
// each process's own).
func seriesJSON(t *testing.T, set *Set) string {
	b, err := json.MarshalIndent(set.Report().Series, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A model saved at any point and loaded into a new Set continues exactly as the uninterrupted
// one: the same report, byte for byte, on the demo's services, a healthy day and a 6-hour
// acceptance drift cut inside the drift.
func TestStateContinuesExactly(t *testing.T) {
	drift := steady(1, 6*time.Hour, sim.Fault{Kind: sim.AcceptanceDrift, Start: time.Hour, Size: 0.3, Ramp: 5 * time.Hour})
	for name, sc := range map[string]sim.Scenario{"demo": sim.Demo(1), "healthy day": sim.HealthyDay(2), "drift": drift} {
		lines := simLines(t, sc)
		whole := NewSet(Options{})
		newFeeder().feed(whole, lines)
		want := seriesJSON(t, whole)
		for _, cut := range []float64{0.1, 0.5, 0.9} {
			at := int(cut * float64(len(lines)))
			f, before := newFeeder(), NewSet(Options{})
			f.feed(before, lines[:at])
			saved := before.AppendState(nil)
			after := NewSet(Options{})
			if err := after.LoadState(saved); err != nil {
				t.Fatalf("%s at %.0f %%: %v", name, 100*cut, err)
			}
			f.feed(after, lines[at:])
			if got := seriesJSON(t, after); got != want {
				t.Errorf("%s, saved at %.0f %% (%d bytes): the report differs from the uninterrupted one", name, 100*cut, len(saved))
			}
		}
	}
}

// A state that is truncated, of other options or not a state at all is refused with an error,
// and the Set stays empty and usable.
func TestStateRefused(t *testing.T) {
	lines := simLines(t, sim.Demo(1))
	set := NewSet(Options{})
	newFeeder().feed(set, lines[:len(lines)/3])
	saved := set.AppendState(nil)
	for name, c := range map[string]struct {
		b    []byte
		opts Options
		want error
	}{
		"truncated":     {saved[:len(saved)/2], Options{}, statecodec.ErrCorrupt},
		"trailing":      {append(bytes.Clone(saved), 1), Options{}, statecodec.ErrCorrupt},
		"other options": {saved, Options{Window: 20}, ErrForeignState},
		"not a state":   {[]byte("cursor=s=abc"), Options{}, ErrForeignState},
		"empty":         {nil, Options{}, ErrForeignState},
	} {
		s := NewSet(c.opts)
		if err := s.LoadState(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
		if s.Len() != 0 {
			t.Errorf("%s: %d series after a refused state", name, s.Len())
		}
		newFeeder().feed(s, lines[:100])
		if s.Len() == 0 {
			t.Errorf("%s: the Set is not usable after a refused state", name)
		}
	}
}
