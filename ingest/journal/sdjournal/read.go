//go:build cgo && linux

package sdjournal

import (
	"errors"
	"fmt"
	"syscall"

	sdj "github.com/coreos/go-systemd/v22/sdjournal"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/record"
)

// errFieldRead marks a failure to read an entry the journal did move to: the entry is
// damaged, not the handle (see Source.step).
var errFieldRead = errors.New("reading entry")

// Batch sizes: entries per request to the owner. A request is a hand-off to the owner's
// thread and back, so reading to the end (analyze) asks for many entries at once; following
// asks for what a 20 ms poll finds at thousands of lines a second.
const (
	batchFollow = 64
	batchRead   = 512
)

// entry is one journal entry, copied out of libsystemd's mappings (go-systemd copies every
// field it returns).
type entry struct {
	time                               uint64
	host, unit, ident, message, cursor []byte
	cname, cid                         []byte
	same                               bool // the batch's first entry is the one the batch's test cursor names
}

// batch holds entries read ahead by the owner: ents[pos:] are still to be served; then, when
// ended, stop (nil: the end of the journal); otherwise the next read goes on from there.
type batch struct {
	ents  []entry
	pos   int
	stop  error
	ended bool
}

func (b *batch) reset() { b.ents, b.pos, b.stop, b.ended = b.ents[:0], 0, nil, false }

// served says whether every entry of b was handed out.
func (b *batch) served() bool { return b.pos == len(b.ents) }

// fill reads up to max entries after the handle's position (on the owner's thread). The first
// entry read is tested against test when set (the resume protocol's TestCursor, which needs
// the handle on the entry). It stops at max, or, ended, at the end of the journal or at the
// first error, which it keeps in stop after the entries read before it: a failed move leaves
// libsystemd's position where it was, a failed read leaves it on the entry that failed.
func (b *batch) fill(j *sdj.Journal, max int, test string) {
	b.ended = true
	for k := 0; k < max; k++ {
		n, err := j.Next()
		if err != nil {
			b.stop = fmt.Errorf("moving to the next entry: %w", err)
			return
		}
		if n == 0 {
			return
		}
		var e entry
		if err := readEntry(j, &e); err != nil {
			b.stop = fmt.Errorf("%w: %w", errFieldRead, err)
			return
		}
		if k == 0 && test != "" {
			e.same = j.TestCursor(test) == nil
		}
		b.ents = append(b.ents, e)
	}
	b.ended = false
}

// The fields an Entry carries, read with sd_journal_get_data, which returns the first of a
// repeated field (as journalctl shows it) and skips data objects it cannot read.
var fieldNames = [...]string{"MESSAGE", "_HOSTNAME", "_SYSTEMD_UNIT", "SYSLOG_IDENTIFIER", "CONTAINER_NAME", "CONTAINER_ID"}

// readEntry copies the entry the handle is on. A field the entry does not have is empty.
func readEntry(j *sdj.Journal, e *entry) error {
	dst := [...]*[]byte{&e.message, &e.host, &e.unit, &e.ident, &e.cname, &e.cid}
	for i, name := range fieldNames {
		v, err := j.GetDataBytes(name)
		if errors.Is(err, syscall.ENOENT) {
			continue
		}
		if err != nil {
			return fmt.Errorf("field %s: %w", name, err)
		}
		*dst[i] = v[len(name)+1:] // "NAME=value"
	}
	c, err := j.GetCursor()
	if err != nil {
		return err
	}
	e.cursor = []byte(c)
	e.time, err = j.GetRealtimeUsec()
	return err
}

// readFast returns the next entry, from the batch or from a new one; false at the end of the
// journal. An error is reported after the entries read before it.
func (s *Source) readFast(e *ingest.Entry) (bool, error) {
	b := &s.batch
	var ce *entry
	for {
		if b.served() && !b.ended {
			s.own.read(b, s.batchMax(), s.testCursor())
		}
		if b.served() { // ended: a read returns at least one entry otherwise
			err := b.stop
			b.reset()
			return false, err
		}
		ce = &b.ents[b.pos]
		b.pos++
		// Entries of other containers are dropped here (globs cannot be journal matches),
		// except the one a pending resume tests: step settles the resume with it.
		if (ce.same && s.Resume.Pending()) || s.o.KeepContainer(record.Container(ce.cname, ce.cid)) {
			break
		}
	}
	*e = ingest.Entry{Time: int64(ce.time), Host: ce.host, Unit: ingest.UnitOf(ce.unit, ce.ident), Message: ce.message,
		Cursor: ce.cursor, Container: record.Container(ce.cname, ce.cid)}
	s.same = ce.same
	return true, nil
}

// batchMax is how many entries the next read may return: one while faults are injected
// (tests), so that an injected failure happens where the handle is.
func (s *Source) batchMax() int {
	if s.fault != nil {
		return 1
	}
	if s.o.NoFollow {
		return batchRead
	}
	return batchFollow
}

// testCursor is the cursor the next batch's first entry is tested against: the pending
// resume's, if any.
func (s *Source) testCursor() string {
	if s.Resume.Pending() {
		return s.Resume.Cursor
	}
	return ""
}
