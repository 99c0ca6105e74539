package ingest

import (
	"bytes"
	"fmt"
	"time"
)

// Recovery pacing shared by the backends: a failed read or a journalctl exit is retried after
// retryMin, doubling up to retryMax, and given up after retryAttempts failures in a row with
// no entry read in between (about 25 s), so a journal that stays broken ends in an error the
// daemon reports instead of a silent spin.
const (
	retryMin      = 100 * time.Millisecond
	retryMax      = 5 * time.Second
	retryAttempts = 10
)

// retry tracks consecutive failures and when the next attempt is due.
type retry struct {
	failures int
	at       time.Time
	last     error
}

// failed records err at now; it returns an error once the attempts are used up.
func (r *retry) failed(err error, now time.Time) error {
	r.failures++
	r.last = err
	if r.failures >= retryAttempts {
		return fmt.Errorf("ingest: giving up after %d attempts: %w", r.failures, err)
	}
	d := retryMin << (r.failures - 1)
	if d > retryMax || d <= 0 {
		d = retryMax
	}
	r.at = now.Add(d)
	return nil
}

// progressed resets the count: an entry was read since the last failure.
func (r *retry) progressed() { r.failures = 0 }

// due sleeps until the next attempt or until deadline, whichever is first, and reports
// whether the attempt is due.
func (r *retry) due(deadline time.Time) bool {
	now := time.Now()
	if !now.Before(r.at) {
		return true
	}
	until := r.at
	if deadline.Before(until) {
		until = deadline
	}
	if d := until.Sub(now); d > 0 {
		time.Sleep(d) // a bounded pause between recovery attempts, not a poll
	}
	return !time.Now().Before(r.at)
}

// progress is how far a journal source got, shared by both backends: the cursor of the last
// entry returned, the resume still to settle after a positioning, and the recovery backoff.
type progress struct {
	last   []byte // cursor of the last entry returned (or skipped as already applied)
	resume resumePoint
	retry  retry
}

// admit applies the resume protocol and the duplicate check to the entry with cursor c; same
// says, while a resume is pending, whether the entry is the resume cursor's own. It returns
// whether to return the entry (false: skip it).
func (g *progress) admit(c []byte, same bool, o *JournalOptions, st *JournalStats) bool {
	if g.resume.pending() {
		if g.resume.first(c, same, o, st) {
			g.last = append(g.last[:0], c...)
			return false
		}
	} else if len(c) > 0 && bytes.Equal(c, g.last) {
		st.Duplicates++
		return false
	}
	if len(c) > 0 { // sdjournal's NoFollow batches carry a cursor on their last entry only
		g.last = append(g.last[:0], c...)
	}
	st.Entries++
	g.retry.progressed()
	return true
}

// resumePoint is the cursor the first entry after a positioning must be compared with: the
// saved cursor at start (fromStore), or the last entry returned after a reopen.
type resumePoint struct {
	cursor    string
	fromStore bool
	quiet     bool // a tail start: if the entry is gone, nothing was lost that anyone saw
}

// first settles a pending resume with the first entry read after positioning, whose cursor is
// next: same tells whether that entry is the cursor's own. It returns whether to skip the
// entry. When the cursor's entry is gone, the loss is counted and its size (from the two
// cursors' sequence numbers) added to LostEntries and said in the warning.
func (p *resumePoint) first(next []byte, same bool, o *JournalOptions, st *JournalStats) (skip bool) {
	c := p.cursor
	p.cursor = ""
	if same {
		return true
	}
	if p.quiet {
		return false
	}
	st.CursorMissing++
	gap := gapBetween(c, next)
	if gap.entries > 0 {
		st.LostEntries += gap.entries
	}
	if p.fromStore {
		o.warn("%s: the saved cursor's entry no longer exists (vacuumed while specwatch was down?); resuming at the next entry: %s were lost (cursor %s)", o.name(), gap.describe(), c)
	} else {
		o.warn("%s: the last entry read vanished while reopening (vacuumed?); continuing at the next entry: %s were lost (cursor %s)", o.name(), gap.describe(), c)
	}
	return false
}

// pending reports whether a resume is still to be settled.
func (p *resumePoint) pending() bool { return p.cursor != "" }
