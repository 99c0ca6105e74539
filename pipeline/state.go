package pipeline

import (
	"sync"
	"time"

	"github.com/specwatch/specwatch/model"
)

// State is the model and the ingestion status behind one lock. The pipeline holds the lock
// per entry (microseconds); readers — scrapes, pushes, the API, the status page, /-/ready —
// hold it only to copy, so a slow client never holds ingestion up, and nothing they keep
// aliases the model. Every method is safe for concurrent use.
type State struct {
	mu   sync.Mutex
	set  *model.Set
	live bool // the input is a journal being followed, so lag means something
	// liveModel: verdicts follow the anomalies active now (model.Options.Live), as on any page
	// that follows a stream, the demo's replay included.
	liveModel bool
	now       func() time.Time // the clock for the journal lag

	// Written by the pipeline under mu.
	lastEntry          time.Time // journal timestamp of the latest entry applied
	atTail             bool      // the reader has nothing more to read right now
	caughtUp           bool      // atTail was true at least once (sticky; readiness)
	cursorSaveFailures int64
}

// StateOptions configure NewState.
type StateOptions struct {
	Model model.Options
	// Live: the input is followed as it is written (run), so journal lag is exported. It
	// implies Model.Live; a replay shown live (the demo) sets Model.Live alone.
	Live bool
	// Now is the clock for the journal lag; nil means time.Now.
	Now func() time.Time
}

// NewState starts an empty model.
func NewState(o StateOptions) *State {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	o.Model.Live = o.Model.Live || o.Live
	return &State{set: model.NewSet(o.Model), live: o.Live, liveModel: o.Model.Live, now: now}
}

// AppendModel appends the model's saved state (model.Set.AppendState) to dst.
func (s *State) AppendModel(dst []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set.AppendState(dst)
}

// LoadModel makes the empty model the one a saved state holds (model.Set.LoadState).
func (s *State) LoadModel(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set.LoadState(b)
}

// Snapshot appends a copy of every series to dst[:0].
func (s *State) Snapshot(dst []model.SeriesSnapshot) []model.SeriesSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set.Snapshot(dst)
}

// Report builds the report; model.Set.Report returns freshly allocated values.
func (s *State) Report() model.Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set.Report()
}

// Plots copies the status page's plot data.
func (s *State) Plots() []model.SeriesPlot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set.Plots()
}

// Status reads the counters and the pipeline's fields; the clock is read after the lock is
// released, so the critical section is one copy.
func (s *State) Status() Status {
	s.mu.Lock()
	st := Status{
		Input:              s.set.Input(),
		Overflow:           s.set.Overflow(),
		LastEntry:          s.lastEntry,
		CaughtUp:           s.caughtUp,
		CursorSaveFailures: s.cursorSaveFailures,
	}
	atTail := s.atTail
	s.mu.Unlock()
	if s.live && !st.LastEntry.IsZero() {
		st.HasJournalLag = true
		if !atTail {
			st.JournalLag = max(s.now().Sub(st.LastEntry), 0)
		}
	}
	return st
}

// Reconfigure applies reloaded model thresholds (SIGHUP) to every series.
func (s *State) Reconfigure(o model.Options) {
	o.Live = s.liveModel
	s.mu.Lock()
	s.set.Reconfigure(o)
	s.mu.Unlock()
}

// Tick runs the model's time-driven checks (stale series) at now.
func (s *State) Tick(now time.Time) {
	s.mu.Lock()
	s.set.Tick(now.UnixNano())
	s.mu.Unlock()
}

// CountDamaged counts an input read only as far as it decoded.
func (s *State) CountDamaged() {
	s.mu.Lock()
	s.set.CountDamaged()
	s.mu.Unlock()
}

// CountUnreadable adds records an input could not decode to the report's input counts.
func (s *State) CountUnreadable(n int64) {
	s.mu.Lock()
	s.set.CountUnreadable(n)
	s.mu.Unlock()
}
