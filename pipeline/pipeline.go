// Package pipeline is specwatch's one feed loop — entry → parse → resolve → model → step
// histogram — and the guarded model state it feeds. `run`, `demo` and `analyze` (and the
// tests) all go through it, so the same log gives the same report offline and live by
// construction.
package pipeline

import (
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sample"
)

// StepObserver feeds the step-duration histogram once per decode point. Implementations are
// called with the State's lock held, so they must be quick and must not call back into it.
type StepObserver interface {
	ObserveStep(seriesID int, labels model.Labels, seconds float64)
}

// Options configure New.
type Options struct {
	// Parser is read for every entry; a reload (SIGHUP) swaps it. Nil parses with the
	// built-in parsers only.
	Parser *atomic.Pointer[parse.Parser]
	// Location is the zone of timestamps written without one; nil means UTC.
	Location *time.Location
	// Year is the year of year-less timestamps in the first input (NewInput sets it for the
	// next ones); zero means the current year.
	Year int
	// Since and Until keep only samples in [Since, Until) (zero: unbounded); the others are
	// counted as out of range (analyze --since / --until).
	Since, Until time.Time
	// Steps, if set, observes each new decode point's step time.
	Steps StepObserver
	// Log is for the live loop's own messages (caught up, cursor saves).
	Log zerolog.Logger
	// Now is the live loop's clock; nil means time.Now.
	Now func() time.Time
	// Snapshots, if set, keeps the model's state beside the inputs' positions when Follow ends.
	Snapshots Snapshotter
}

// Pipeline applies entries to one State. It is used by one goroutine at a time.
type Pipeline struct {
	state        *State
	parser       *atomic.Pointer[parse.Parser]
	loc          *time.Location
	stream       *parse.Stream
	steps        StepObserver
	since, until int64 // Unix ns, 0: unbounded
	log          zerolog.Logger
	now          func() time.Time
	realClock    bool // Options.Now was nil: Follow's housekeeping also runs on a ticker
	snaps        Snapshotter

	entry   ingest.Entry
	rec     parse.Record
	joined  parse.Record      // a llama.cpp request taken from the stream (join.go)
	jsonl   ingest.LlamaJSONL // llama.cpp's --log-jsonl records, from any source
	stepSeq []int64           // per series ID: the last step sequence fed to the histogram

	id identity // the input's names where its lines and entries name nothing (Identify)

	// the live loop (Follow)
	following bool // record each unit's activity for stale detection
	warming   bool // Warm is replaying: the step histogram is not fed (warm.go)
	caughtUp  bool
	sources   []string // the inputs' Kind, for the caught-up line
	saved     bool     // the final flush saved every input's position
}

// New builds a pipeline on state.
func New(state *State, o Options) *Pipeline {
	p := &Pipeline{state: state, parser: o.Parser, loc: o.Location, steps: o.Steps, log: o.Log, now: o.Now, snaps: o.Snapshots}
	if p.parser == nil {
		p.parser = new(atomic.Pointer[parse.Parser])
		p.parser.Store(parse.NewParser(parse.Options{}))
	}
	if p.loc == nil {
		p.loc = time.UTC
	}
	if p.now == nil {
		p.now, p.realClock = time.Now, true
	}
	if !o.Since.IsZero() {
		p.since = o.Since.UnixNano()
	}
	if !o.Until.IsZero() {
		p.until = o.Until.UnixNano()
	}
	if o.Year == 0 {
		o.Year = time.Now().Year()
	}
	p.NewInput(o.Year)
	return p
}

// NewInput starts a new input (another file): year-less timestamps (vLLM, journalctl short)
// take year until the input shows one, and the previous input's time and year rollover state
// is forgotten.
func (p *Pipeline) NewInput(year int) {
	p.EndInput()
	p.stream = parse.NewStream(parse.StreamOptions{Location: p.loc, Year: year})
}

// NewFileInput starts a new input last written at modified (a file's modification time): its
// year-less timestamps end no later than that. origin, when set, is when the engine started
// that stamps its lines with the time since (llama.cpp; see SinceStartSpan); zero places such
// lines by their arrival.
func (p *Pipeline) NewFileInput(modified, origin time.Time) {
	p.EndInput()
	p.stream = parse.NewStream(parse.StreamOptions{Location: p.loc, Year: modified.Year(), Latest: modified, Origin: origin})
}

// Apply puts one entry's effects into the model.
func (p *Pipeline) Apply(e *ingest.Entry) {
	if e.Sample != nil { // a source that structures its own samples (an engine's /metrics)
		p.ApplySample(sample.Matched, e.Sample)
		return
	}
	s := &p.rec
	msg, since, jr := unwrap(&p.jsonl, e)
	r := p.parser.Load().Parse(msg, s)
	st := p.state
	st.mu.Lock()
	defer st.mu.Unlock()
	if p.following {
		st.atTail = false
		if e.Time != 0 {
			st.lastEntry = time.UnixMicro(e.Time)
		}
		// Live, a unit's activity is when its entry arrived, on the clock stale detection
		// and expiry compare with (clock.go), with or without a stamp of its own (a plain
		// file's lines have none); otherwise the entry's own time, where it has one.
		if p.arrivals() {
			st.set.Arrived(e.Host, e.Unit, e.Container, p.arrival())
		} else if e.Time != 0 {
			st.set.Seen(e.Host, e.Unit, e.Container, e.Time*1000)
		}
	}
	if jr == ingest.DamagedJSONL {
		st.set.CountUnreadable(1)
		return
	}
	if r == sample.Ignored {
		// Most lines: counted, and nothing else of applySample applies (analyze's instructions
		// on the chatty corpus, 60 % ignored, 3,546 → 3,523 M, on the mixed corpus 2,479 →
		// 2,452 M; cachegrind).
		p.stream.Pass(since)
		st.set.Count(r)
		return
	}
	s.Container, s.Namespace, s.Pod = e.Container, e.Namespace, e.Pod
	p.identify(&s.Sample)
	if !p.resolve(e, since, s) {
		r = sample.Malformed // a time no sample can carry is refused, never wrapped around
	}
	p.applySample(r, &s.Sample)
}

// ApplySample puts one sample that is already resolved (time, host, unit: a source that does
// not come from a log line, or a benchmark replaying parsed lines) into the model, with the
// same range filter and step observation as Apply.
func (p *Pipeline) ApplySample(r sample.Result, s *sample.Sample) {
	p.state.mu.Lock()
	defer p.state.mu.Unlock()
	p.applySample(r, s)
}

// applySample is Apply's model half; the caller holds the state's lock.
func (p *Pipeline) applySample(r sample.Result, s *sample.Sample) {
	st := p.state
	if r != sample.Ignored && ((p.since != 0 && s.Time < p.since) || (p.until != 0 && s.Time >= p.until)) {
		st.set.CountOutOfRange()
		return
	}
	se := st.set.Apply(r, s)
	p.heard(se, s.Time)
	p.observed(se)
	p.drain()
}

// observed feeds the step histogram; the caller holds the lock. New and expired series are
// logged by the daemon, from the snapshots it diffs (daemon/events.go).
func (p *Pipeline) observed(se *model.Series) {
	if se == nil {
		return
	}
	id := se.ID()
	if p.steps == nil {
		return
	}
	step, seq := se.StepObserved()
	for len(p.stepSeq) <= id {
		p.stepSeq = append(p.stepSeq, 0)
	}
	if seq != p.stepSeq[id] {
		p.stepSeq[id] = seq
		if step > 0 && !p.warming {
			p.steps.ObserveStep(id, se.Labels(), step)
		}
	}
}
