//go:build cgo && linux

package ingest

import (
	"errors"
	"fmt"
	"syscall"
)

// readSlow is the same through go-systemd's getters: a cgo call, a C string and a Go copy
// per field. It is the fallback when rawHandle fails, and the baseline the fast path is
// measured against.
func (s *sdSource) readSlow(e *Entry, advance bool) (bool, error) {
	if advance {
		n, err := s.j.Next()
		if err != nil {
			return false, fmt.Errorf("moving to the next entry: %w", err)
		}
		if n == 0 {
			return false, nil
		}
	}
	b := s.sbuf[:0]
	var val [4][2]int // start and end in b of MESSAGE, _HOSTNAME, _SYSTEMD_UNIT, SYSLOG_IDENTIFIER
	for i, name := range [...]string{"MESSAGE", "_HOSTNAME", "_SYSTEMD_UNIT", "SYSLOG_IDENTIFIER"} {
		if i == 3 && val[2][1] > val[2][0] {
			break // the entry has a unit: the identifier is not needed
		}
		d, err := s.j.GetDataBytes(name) // "NAME=value", already a Go copy
		if errors.Is(err, syscall.ENOENT) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("%w: %s: %w", errFieldRead, name, err)
		}
		start := len(b)
		b = append(b, d[len(name)+1:]...)
		val[i] = [2]int{start, len(b)}
	}
	t, err := s.j.GetRealtimeUsec()
	if err != nil {
		return false, fmt.Errorf("%w: %w", errFieldRead, err)
	}
	c, err := s.j.GetCursor()
	if err != nil {
		return false, fmt.Errorf("%w: %w", errFieldRead, err)
	}
	cs := len(b)
	b = append(b, c...)
	s.sbuf = b
	get := func(i int) []byte { return b[val[i][0]:val[i][1]:val[i][1]] }
	*e = Entry{Time: int64(t), Message: get(0), Host: get(1), Unit: get(2), Cursor: b[cs:len(b):len(b)]}
	if len(e.Unit) == 0 {
		e.Unit = get(3)
	}
	return true, nil
}
