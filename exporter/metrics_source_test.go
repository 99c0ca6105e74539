package exporter_test

import (
	"testing"
	"time"

	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/model"
)

func TestLockedStatusLag(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	now := t0.Add(90 * time.Second)
	l := &exporter.Locked{Set: model.NewSet(model.Options{}), Now: func() time.Time { return now }}
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
		l.Mu.Lock()
		l.Live, l.AtTail, l.LastEntry = tc.live, tc.atTail, tc.last
		l.Mu.Unlock()
		st := l.Status()
		if st.HasJournalLag != tc.wantHas || st.JournalLag != tc.wantLag {
			t.Errorf("%s: lag %v (has %v), want %v (has %v)", tc.name, st.JournalLag, st.HasJournalLag, tc.wantLag, tc.wantHas)
		}
	}
}
