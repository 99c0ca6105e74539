//go:build linux

package native

import (
	"encoding/hex"
	"errors"
	"strconv"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/record"
)

// The fields of an entry the native backend hands on, and its cursor.

// The set of data objects known to hold none of the fields read (most of an entry's: _PID,
// _COMM, _BOOT_ID, … shared by many entries) is bounded, and starts again when full. Skipping
// them without reading saves a cache lookup each: analyze of one unit of the benchmark corpus
// took 0.55 s instead of 0.89. Reading to the end it may hold 1<<18 (about 10 MB); following, the
// objects entries share are few, and a large set only fills with each entry's own (its
// timestamps): 1<<12 keeps the daemon's RSS where it was (a 1<<18 set cost 6 MB in the live
// benchmark).
const (
	nativeOtherRead   = 1 << 18
	nativeOtherFollow = 1 << 12
)

// read fills e from j's peeked entry; false when it does not match.
func (s *Source) read(j *jfile, e *ingest.Entry) (bool, error) {
	var err error
	s.items, err = j.items(s.items[:0])
	if err != nil {
		return false, err
	}
	var msg, host, unit, ident, cname, cid [2]int
	var have [6]bool // the first of a repeated field wins, as in libsystemd and journalctl
	haveUnit := false
	s.out = s.out[:0]
	z := j.zcount
	for _, off := range s.items {
		key := j.id<<jblockKeyBits | off
		if _, skip := s.other[key]; skip {
			continue
		}
		p, err := j.payload(off)
		if errors.Is(err, errBadObject) || errors.Is(err, errUninit) {
			continue // libsystemd skips the field, not the entry
		}
		if err != nil {
			return false, err
		}
		var dst *[2]int
		var v []byte
		f := -1
		switch {
		case hasField(p, "MESSAGE="):
			dst, v, f = &msg, p[len("MESSAGE="):], 0
		case hasField(p, "_HOSTNAME="):
			dst, v, f = &host, p[len("_HOSTNAME="):], 1
		case hasField(p, "_SYSTEMD_UNIT="):
			dst, v, f, haveUnit = &unit, p[len("_SYSTEMD_UNIT="):], 2, true
		case hasField(p, "SYSLOG_IDENTIFIER="):
			dst, v, f = &ident, p[len("SYSLOG_IDENTIFIER="):], 3
		case hasField(p, "CONTAINER_NAME="):
			dst, v, f = &cname, p[len("CONTAINER_NAME="):], 4
		case hasField(p, "CONTAINER_ID="):
			dst, v, f = &cid, p[len("CONTAINER_ID="):], 5
		default:
			if len(s.other) >= s.otherMax {
				clear(s.other)
			}
			s.other[key] = struct{}{}
			continue
		}
		if have[f] {
			continue
		}
		have[f] = true
		dst[0] = len(s.out)
		s.out = append(s.out, v...)
		dst[1] = len(s.out)
	}
	s.decompressed += j.zcount - z
	if !s.matches(s.out[unit[0]:unit[1]], haveUnit, s.out[ident[0]:ident[1]]) {
		return false, nil
	}
	if !s.o.KeepContainer(record.Container(s.out[cname[0]:cname[1]], s.out[cid[0]:cid[1]])) {
		return false, nil
	}
	c := len(s.out)
	s.out = appendCursor(s.out, j)
	*e = ingest.Entry{
		Time:      int64(j.head.realtime),
		Host:      s.out[host[0]:host[1]:host[1]],
		Unit:      ingest.UnitOf(s.out[unit[0]:unit[1]:unit[1]], s.out[ident[0]:ident[1]:ident[1]]),
		Message:   s.out[msg[0]:msg[1]:msg[1]],
		Cursor:    s.out[c:],
		Container: record.Container(s.out[cname[0]:cname[1]:cname[1]], s.out[cid[0]:cid[1]:cid[1]]),
	}
	return true, nil
}

func hasField(p []byte, prefix string) bool {
	return len(p) >= len(prefix) && string(p[:len(prefix)]) == prefix
}

// matches applies the options' matches: any unit or any identifier; everything when none.
func (s *Source) matches(unit []byte, haveUnit bool, ident []byte) bool {
	if len(s.o.Units) == 0 && len(s.o.Identifiers) == 0 {
		return true
	}
	if haveUnit {
		for _, u := range s.o.Units {
			if string(unit) == u {
				return true
			}
		}
	}
	for _, id := range s.o.Identifiers {
		if string(ident) == id {
			return true
		}
	}
	return false
}

// appendCursor formats the peeked entry's cursor exactly as sd_journal_get_cursor does.
func appendCursor(b []byte, j *jfile) []byte {
	h := &j.head
	b = append(b, "s="...)
	b = hex.AppendEncode(b, j.seqID[:])
	b = append(b, ";i="...)
	b = strconv.AppendUint(b, h.seqnum, 16)
	b = append(b, ";b="...)
	b = hex.AppendEncode(b, h.boot[:])
	b = append(b, ";m="...)
	b = strconv.AppendUint(b, h.monotonic, 16)
	b = append(b, ";t="...)
	b = strconv.AppendUint(b, h.realtime, 16)
	b = append(b, ";x="...)
	return strconv.AppendUint(b, h.xor, 16)
}
