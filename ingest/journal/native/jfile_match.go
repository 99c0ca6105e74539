//go:build linux

package native

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/dchest/siphash"
)

// A source with one match (--unit U, the common case) reads only that value's entries, as
// libsystemd does: journald keeps, for every data object, the list of entries that carry it
// (its first entry, then an entry-array chain). The data object is found through the file's
// data hash table (siphash keyed with the file id, or in files without the keyed hash
// Jenkins' lookup3: jenkins64). Scanning every entry instead cost `analyze` of one unit in a
// journal where it is half the entries three times the CPU of journalctl (perf: the fields of
// the other units' entries). Sources with several matches scan entry by entry.

// setMatch makes j read only the entries carrying payload ("FIELD=value"), when it can.
func (j *jfile) setMatch(payload []byte) error {
	j.match = payload
	return j.refresh()
}

// snapMatch sets the list's snapshot from the match's data object: entries 0 … n-1 are its
// first entry, then the items of the chain at first. The object is looked up again while
// missing, when the file gained entries.
func (j *jfile) snapMatch() error {
	if j.matchData == 0 && j.total != j.lookedUp {
		j.lookedUp = j.total
		off, err := j.lookup(j.match)
		if err != nil {
			return err
		}
		j.matchData = off
	}
	if j.matchData == 0 {
		j.n, j.first = 0, 0
		return nil
	}
	var b [24]byte // entry_offset, entry_array_offset, n_entries: written in place, read afresh
	if got, err := j.pread(b[:], int64(j.matchData+40)); err != nil || got < len(b) {
		return fmt.Errorf("journal file %s: data object at %d: %w", j.path, j.matchData, orShort(err))
	}
	j.matchHead = binary.LittleEndian.Uint64(b[0:])
	j.first = binary.LittleEndian.Uint64(b[8:])
	j.n = binary.LittleEndian.Uint64(b[16:])
	return nil
}

// jfileMaxChain bounds a hash chain walk: a damaged file may link a chain into a loop.
const jfileMaxChain = 1 << 16

// lookup finds the data object holding payload; 0 when the file has none.
func (j *jfile) lookup(payload []byte) (uint64, error) {
	buckets := j.htSize / 16
	if buckets == 0 {
		return 0, nil
	}
	var h uint64
	if j.flags&jflagKeyed != 0 {
		h = siphash.Hash(binary.LittleEndian.Uint64(j.fileID[:8]), binary.LittleEndian.Uint64(j.fileID[8:]), payload)
	} else {
		h = jenkins64(payload)
	}
	var b [8]byte
	if got, err := j.pread(b[:], int64(j.htOff+(h%buckets)*16)); err != nil || got < len(b) {
		return 0, fmt.Errorf("journal file %s: data hash table: %w", j.path, orShort(err))
	}
	p := binary.LittleEndian.Uint64(b[:])
	for steps := 0; p != 0; steps++ {
		if steps == jfileMaxChain || p%8 != 0 {
			return 0, fmt.Errorf("journal file %s: data hash chain damaged at %d", j.path, p)
		}
		var o [32]byte // header, hash, next_hash_offset: the chain is relinked in place
		if got, err := j.pread(o[:], int64(p)); err != nil || got < len(o) {
			return 0, fmt.Errorf("journal file %s: data object at %d: %w", j.path, p, orShort(err))
		}
		if o[0] != jobjData {
			return 0, fmt.Errorf("journal file %s: data hash chain leads to a type %d object at %d", j.path, o[0], p)
		}
		if binary.LittleEndian.Uint64(o[16:]) == h {
			// not through the block cache: the object may be newer than any entry read so far
			got, err := j.payloadAt(p, true)
			if err != nil {
				return 0, err
			}
			if bytes.Equal(got, payload) {
				return p, nil
			}
		}
		p = binary.LittleEndian.Uint64(o[24:])
	}
	return 0, nil
}
