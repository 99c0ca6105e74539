package backend

import (
	"bytes"
	"fmt"
	"time"
)

// Recovery pacing shared by the backends: a failed read or a journalctl exit is retried after
// RetryMin, doubling up to RetryMax, and given up after RetryAttempts failures in a row with
// no entry read in between (about 25 s), so a journal that stays broken ends in an error the
// daemon reports instead of a silent spin.
const (
	RetryMin      = 100 * time.Millisecond
	RetryMax      = 5 * time.Second
	RetryAttempts = 10
)

// Retry tracks consecutive failures and when the next attempt is due.
type Retry struct {
	failures int
	At       time.Time
	last     error
}

// Failed records err at now; it returns an error once the attempts are used up.
func (r *Retry) Failed(err error, now time.Time) error {
	r.failures++
	r.last = err
	if r.failures >= RetryAttempts {
		return fmt.Errorf("ingest: giving up after %d attempts: %w", r.failures, err)
	}
	d := RetryMin << (r.failures - 1)
	if d > RetryMax || d <= 0 {
		d = RetryMax
	}
	r.At = now.Add(d)
	return nil
}

// Progressed resets the count: an entry was read since the last failure.
func (r *Retry) Progressed() { r.failures = 0 }

// Due sleeps until the next attempt or until deadline, whichever is first, and reports
// whether the attempt is due.
func (r *Retry) Due(deadline time.Time) bool {
	now := time.Now()
	if !now.Before(r.At) {
		return true
	}
	until := r.At
	if deadline.Before(until) {
		until = deadline
	}
	if d := until.Sub(now); d > 0 {
		time.Sleep(d) // a bounded pause between recovery attempts, not a poll
	}
	return !time.Now().Before(r.At)
}

// Progress is how far a journal source got, shared by both backends: the cursor of the last
// entry returned, the resume still to settle after a positioning, and the recovery backoff.
type Progress struct {
	Last   []byte // cursor of the last entry returned (or skipped as already applied)
	Resume ResumePoint
	Retry  Retry
}

// Admit applies the resume protocol and the duplicate check to the entry with cursor c; same
// says, while a resume is pending, whether the entry is the resume cursor's own. It returns
// whether to return the entry (false: skip it).
func (g *Progress) Admit(c []byte, same bool, o *Options, st *Stats) bool {
	if g.Resume.Pending() {
		if g.Resume.first(c, same, o, st) {
			g.Last = append(g.Last[:0], c...)
			return false
		}
	} else if len(c) > 0 && bytes.Equal(c, g.Last) {
		st.Duplicates++
		return false
	}
	if len(c) > 0 { // sdjournal's NoFollow batches carry a cursor on their last entry only
		g.Last = append(g.Last[:0], c...)
	}
	st.Entries++
	g.Retry.Progressed()
	return true
}

// ResumePoint is the cursor the first entry after a positioning must be compared with: the
// saved cursor at start (FromStore), or the last entry returned after a reopen.
type ResumePoint struct {
	Cursor    string
	FromStore bool
	Quiet     bool // a tail start: if the entry is gone, nothing was lost that anyone saw
}

// first settles a pending resume with the first entry read after positioning, whose cursor is
// next: same tells whether that entry is the cursor's own. It returns whether to skip the
// entry. When the cursor's entry is gone, the loss is counted and its size (from the two
// cursors' sequence numbers) added to LostEntries and said in the warning.
func (p *ResumePoint) first(next []byte, same bool, o *Options, st *Stats) (skip bool) {
	c := p.Cursor
	p.Cursor = ""
	if same {
		return true
	}
	if p.Quiet {
		return false
	}
	st.CursorMissing++
	gap := gapBetween(c, next)
	if gap.entries > 0 {
		st.LostEntries += gap.entries
	}
	if p.FromStore {
		o.Warnf("%s: the saved cursor's entry no longer exists (vacuumed while specwatch was down?); resuming at the next entry: %s were lost (cursor %s)", o.Name(), gap.describe(), c)
	} else {
		o.Warnf("%s: the last entry read vanished while reopening (vacuumed?); continuing at the next entry: %s were lost (cursor %s)", o.Name(), gap.describe(), c)
	}
	return false
}

// Pending reports whether a resume is still to be settled.
func (p *ResumePoint) Pending() bool { return p.Cursor != "" }
