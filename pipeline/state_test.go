package pipeline

import (
	"testing"
	"time"
)

func TestStatusLag(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	now := t0.Add(90 * time.Second)
	for _, tc := range []struct {
		name         string
		live, atTail bool
		last         time.Time
		wantHas      bool
		wantLag      time.Duration
	}{
		{"file input", false, false, t0, false, 0},
		{"before the first entry", true, false, time.Time{}, false, 0},
		{"replaying the backlog", true, false, t0, true, 90 * time.Second},
		{"at the tail, idle engine", true, true, t0, true, 0},
		{"clock behind the journal", true, false, now.Add(time.Second), true, 0},
	} {
		s := NewState(StateOptions{Live: tc.live, Now: func() time.Time { return now }})
		s.atTail, s.lastEntry = tc.atTail, tc.last
		st := s.Status()
		if st.HasJournalLag != tc.wantHas || st.JournalLag != tc.wantLag {
			t.Errorf("%s: lag %v (has %v), want %v (has %v)", tc.name, st.JournalLag, st.HasJournalLag, tc.wantLag, tc.wantHas)
		}
	}
}
