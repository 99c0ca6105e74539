package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"reflect"

	"github.com/specwatch/specwatch/model/internal/statecodec"
)

// stateMagic and stateVersion head a saved state; the fingerprint of Series' type and of the
// options follow, so that another build's or another configuration's state is refused rather
// than misread, and a CRC-32C of everything after it closes it.
const (
	stateMagic   = "specwatch-model\x00"
	stateVersion = 1
)

var seriesFingerprint = statecodec.Fingerprint(reflect.TypeFor[Series]())

// ErrForeignState is wrapped when a saved state is of another build, version or configuration.
var ErrForeignState = errors.New("model state of another build or configuration")

// AppendState appends the model's state to dst: every series whole (fits, detector baselines
// and accumulators, learned cadence, open anomalies, acceptance per position, attribution
// windows, plots) and when each unit last logged. The input counts are not state: each process
// counts the lines it reads.
func (m *Set) AppendState(dst []byte) []byte {
	dst = append(dst, stateMagic...)
	dst = binary.AppendUvarint(dst, stateVersion)
	dst = binary.LittleEndian.AppendUint64(dst, seriesFingerprint)
	dst = binary.LittleEndian.AppendUint64(dst, m.optionsHash())
	start := len(dst)
	dst = binary.AppendUvarint(dst, uint64(len(m.order)))
	for _, se := range m.order {
		dst = statecodec.Append(dst, se)
	}
	dst = statecodec.Append(dst, &m.units)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// LoadState makes an empty Set the one AppendState saved. On an error the Set is left empty;
// the error wraps ErrForeignState or statecodec.ErrCorrupt.
func (m *Set) LoadState(b []byte) error {
	if len(m.order) > 0 {
		return errors.New("model state loaded into a model that has series")
	}
	if err := m.loadState(b); err != nil {
		*m = *NewSet(m.opts)
		return err
	}
	return nil
}

func (m *Set) loadState(b []byte) error {
	if !bytes.HasPrefix(b, []byte(stateMagic)) {
		return fmt.Errorf("%w: not a model state", ErrForeignState)
	}
	b = b[len(stateMagic):]
	v, n := binary.Uvarint(b)
	if n <= 0 || v != stateVersion || len(b) < n+16 {
		return fmt.Errorf("%w: version %d, this build reads %d", ErrForeignState, v, stateVersion)
	}
	b = b[n:]
	if fp := binary.LittleEndian.Uint64(b); fp != seriesFingerprint {
		return fmt.Errorf("%w: the model's state types differ (%x, this build %x)", ErrForeignState, fp, seriesFingerprint)
	}
	if h := binary.LittleEndian.Uint64(b[8:]); h != m.optionsHash() {
		return fmt.Errorf("%w: the model options (model: in the configuration) changed since it was saved", ErrForeignState)
	}
	b = b[16:]
	if len(b) < 4 || crc32.Checksum(b[:len(b)-4], castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return fmt.Errorf("%w: checksum mismatch", statecodec.ErrCorrupt)
	}
	b = b[:len(b)-4]
	count, n := binary.Uvarint(b)
	if n <= 0 || count > uint64(m.opts.MaxSeries) {
		return fmt.Errorf("%w: %d series, the cap is %d", statecodec.ErrCorrupt, count, m.opts.MaxSeries)
	}
	b = b[n:]
	for range count {
		se := newSeries(Labels{}, &m.opts, &m.fitBuf)
		var err error
		if b, err = statecodec.Read(b, se); err != nil {
			return err
		}
		if _, dup := m.series[se.key]; dup || se.id != len(m.order) {
			return fmt.Errorf("%w: series %q out of place", statecodec.ErrCorrupt, se.key)
		}
		m.series[se.key] = se
		m.order = append(m.order, se)
		g := m.group(se)
		se.det.skew.group, g.members = g, append(g.members, se)
	}
	rest, err := statecodec.Read(b, &m.units)
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("%w: %d bytes after the state", statecodec.ErrCorrupt, len(rest))
	}
	return err
}

// optionsHash identifies the options the state was built with: windows, half-lives and caps
// shape the detectors' state.
func (m *Set) optionsHash() uint64 {
	h := fnv.New64a()
	h.Write(statecodec.Append(nil, &m.opts))
	return h.Sum64()
}
