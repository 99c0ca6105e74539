package soak

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

// ledger is the soak's independent account of what the journal holds: the sequence number of
// every engine decode entry, listed by journalctl (not by specwatch's reader) as the soak goes,
// before any vacuum can remove it. Journal sequence numbers count every entry of every unit and
// keep counting across rotations and journald restarts, so "the entries after cursor C" is "the
// ledger entries with a larger sequence number than C's", whatever was vacuumed since.
type ledger struct {
	dir, unit string
	seqID     string   // the journal's sequence number id; a change would void the ledger
	seqs      []uint64 // decode entries, ascending
	last      string   // cursor of the last entry listed (any kind), where the next listing starts
	lost      map[uint64]bool
}

func newLedger(dir, unit string) *ledger {
	return &ledger{dir: dir, unit: unit, lost: map[uint64]bool{}}
}

// cursorSeq splits a journal cursor into its sequence number id and sequence number.
func cursorSeq(c string) (id string, seq uint64, err error) {
	for _, f := range strings.Split(c, ";") {
		switch {
		case strings.HasPrefix(f, "s="):
			id = f[2:]
		case strings.HasPrefix(f, "i="):
			seq, err = strconv.ParseUint(f[2:], 16, 64)
		}
	}
	if id == "" || seq == 0 || err != nil {
		return "", 0, fmt.Errorf("cursor %q: no sequence number (%v)", c, err)
	}
	return id, seq, nil
}

// list returns the sequence numbers of the unit's decode entries after cursor after ("" =
// all), and the cursor of the last entry of the unit. It starts at --cursor and drops the
// cursor's own entry itself: journalctl --after-cursor skips one entry blindly, which is the
// first surviving one when the cursor's entry was vacuumed (systemd 252).
func (l *ledger) list(after string) (decode []uint64, last string, err error) {
	args := []string{"-D", l.dir, "_SYSTEMD_UNIT=" + l.unit, "-o", "json", "--output-fields=MESSAGE", "--no-pager"}
	if after != "" {
		args = append(args, "--cursor="+after)
	}
	out, err := exec.Command("journalctl", args...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok && len(out) == 0 && bytes.Contains(ee.Stderr, []byte("No entries")) {
			return nil, after, nil
		}
		return nil, "", fmt.Errorf("journalctl %v: %w", args, err)
	}
	last = after
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	for sc.Scan() {
		var e struct {
			Cursor  string          `json:"__CURSOR"`
			Message json.RawMessage `json:"MESSAGE"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, "", fmt.Errorf("journalctl json: %w", err)
		}
		if e.Cursor == after {
			continue
		}
		id, seq, err := cursorSeq(e.Cursor)
		if err != nil {
			return nil, "", err
		}
		if l.seqID == "" {
			l.seqID = id
		} else if id != l.seqID {
			return nil, "", fmt.Errorf("the journal's sequence number id changed (%s → %s): the ledger cannot compare positions", l.seqID, id)
		}
		last = e.Cursor
		if bytes.Contains(e.Message, []byte("Decode batch")) {
			decode = append(decode, seq)
		}
	}
	return decode, last, sc.Err()
}

// update appends the decode entries written since the last update.
func (l *ledger) update() error {
	seqs, last, err := l.list(l.last)
	if err != nil {
		return err
	}
	for _, s := range seqs {
		if n := len(l.seqs); n > 0 && s <= l.seqs[n-1] {
			return fmt.Errorf("journalctl listed sequence number %d after %d", s, l.seqs[n-1])
		}
		l.seqs = append(l.seqs, s)
	}
	l.last = last
	return nil
}

// after counts the decode entries with a sequence number above seq that were not lost.
func (l *ledger) after(seq uint64) int {
	i := sort.Search(len(l.seqs), func(i int) bool { return l.seqs[i] > seq })
	n := len(l.seqs) - i
	for s := range l.lost {
		if s > seq {
			n--
		}
	}
	return n
}

// between counts the decode entries in (a, b] that were not lost.
func (l *ledger) between(a, b uint64) int {
	if b <= a {
		return 0
	}
	return l.after(a) - l.after(b)
}

// markVanished records as lost every ledger entry after seq that journalctl no longer lists:
// they were vacuumed before anyone read them. It returns how many.
func (l *ledger) markVanished(seq uint64) (int, error) {
	still, _, err := l.list("")
	if err != nil {
		return 0, err
	}
	present := make(map[uint64]bool, len(still))
	for _, s := range still {
		present[s] = true
	}
	n := 0
	for _, s := range l.seqs {
		if s > seq && !present[s] && !l.lost[s] {
			l.lost[s] = true
			n++
		}
	}
	return n, nil
}
