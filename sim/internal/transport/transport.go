package transport

import (
	"encoding/binary"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/specwatch/specwatch/sim/internal/appendtext"
)

// Origin is who wrote a record, as journald and docker compose see it.
type Origin struct {
	Host, Unit, Ident, Compose string
	PID                        int // 0: none (the kernel)
	Transport                  string
	Machine, Boot              string // 32 hex digits each, per host
	BootNs                     int64  // realtime of the host's boot: the monotonic clock's zero
}

// Writer wraps messages in a Format. Its exported fields are set once, before the first
// AppendEntry; the zero value writes Format(0) in UTC with an empty seqnum ID.
type Writer struct {
	Format   Format
	Loc      *time.Location // the time zone of journalctl's short times; nil means UTC
	SeqnumID string         // the journal's seqnum ID in cursors: 32 hex digits
	Width    int            // compose name column width, the prefix included

	seq uint64
	num []byte  // scratch for numeric field values; capacity fixed so slices stay valid
	fs  []field // scratch for fields
}

// AppendEntry writes one record: message msg from o, received at at (ns since the epoch).
func (tp *Writer) AppendEntry(b []byte, o *Origin, at int64, msg []byte) []byte {
	tp.seq++
	switch tp.Format {
	case FormatRaw, FormatCat:
		b = append(b, msg...)
	case FormatDocker, FormatDockerTimestamps:
		s := len(b)
		b = append(b, o.Compose...)
		b = append(b, "-1"...)
		b = appendtext.PadRight(b, s, tp.Width)
		b = append(b, " | "...)
		if tp.Format == FormatDockerTimestamps {
			t := time.Unix(0, at).UTC()
			b = appendtext.Date(b, t)
			b = append(b, 'T')
			b = appendtext.Clock(b, t)
			b = append(b, '.')
			b = appendtext.Frac(b, t, 9)
			b = append(b, "Z "...)
		}
		b = append(b, msg...)
	case FormatShort, FormatShortISO, FormatShortPrecise:
		t := time.Unix(0, at).In(tp.location())
		if tp.Format == FormatShortISO {
			b = appendtext.Date(b, t)
			b = append(b, 'T')
			b = appendtext.Clock(b, t)
			b = appendtext.Zone(b, t, false)
		} else {
			b = appendtext.SyslogTime(b, t)
			if tp.Format == FormatShortPrecise {
				b = append(b, '.')
				b = appendtext.Frac(b, t, 6)
			}
		}
		b = append(b, ' ')
		b = append(b, o.Host...)
		b = append(b, ' ')
		b = append(b, o.Ident...)
		if o.PID != 0 {
			b = append(b, '[')
			b = appendtext.Int(b, int64(o.PID))
			b = append(b, ']')
		}
		b = append(b, ": "...)
		b = append(b, msg...)
	case FormatJSON:
		return tp.appendJSON(b, o, at, msg)
	case FormatExport:
		return tp.appendExport(b, o, at, msg)
	}
	return append(b, '\n')
}

// location is the zone of short times; time.Time.In panics on a nil one.
func (tp *Writer) location() *time.Location {
	if tp.Loc == nil {
		return time.UTC
	}
	return tp.Loc
}

// appendCursor writes a journal cursor; readers treat it as opaque, it need only be unique.
func (tp *Writer) appendCursor(b []byte, o *Origin, at int64) []byte {
	b = append(b, "s="...)
	b = append(b, tp.SeqnumID...)
	b = append(b, ";i="...)
	b = strconv.AppendUint(b, tp.seq, 16)
	b = append(b, ";b="...)
	b = append(b, o.Boot...)
	b = append(b, ";m="...)
	b = strconv.AppendInt(b, (at-o.BootNs)/1000, 16)
	b = append(b, ";t="...)
	b = strconv.AppendInt(b, at/1000, 16)
	b = append(b, ";x="...)
	return strconv.AppendUint(b, tp.seq*0x9e3779b97f4a7c15, 16)
}

// field is one journal field of an entry: a string value, or bytes for numbers and MESSAGE.
type field struct {
	key string
	s   string
	b   []byte
	msg bool
}

// fields lists the entry's fields in the order journalctl prints them. The result and its
// number bytes live in tp and are valid until the next call.
func (tp *Writer) fields(o *Origin, at int64, msg []byte) []field {
	if tp.num == nil {
		tp.num, tp.fs = make([]byte, 0, 64), make([]field, 0, 16)
	}
	num := tp.num[:0]
	fs := tp.fs[:0]
	add := func(key, s string) { fs = append(fs, field{key: key, s: s}) }
	addNum := func(key string, v int64) {
		s := len(num)
		num = strconv.AppendInt(num, v, 10)
		fs = append(fs, field{key: key, b: num[s:len(num):len(num)]})
	}
	addNum("__REALTIME_TIMESTAMP", at/1000)
	addNum("__MONOTONIC_TIMESTAMP", (at-o.BootNs)/1000)
	add("_BOOT_ID", o.Boot)
	add("_TRANSPORT", o.Transport)
	if o.Transport == "kernel" {
		add("PRIORITY", "4")
	} else {
		add("PRIORITY", "6")
		add("SYSLOG_FACILITY", "3")
	}
	add("SYSLOG_IDENTIFIER", o.Ident)
	fs = append(fs, field{key: "MESSAGE", b: msg, msg: true})
	if o.PID != 0 {
		addNum("_PID", int64(o.PID))
	}
	if o.Unit != "" {
		add("_SYSTEMD_UNIT", o.Unit)
	}
	add("_MACHINE_ID", o.Machine)
	add("_HOSTNAME", o.Host)
	tp.num, tp.fs = num, fs
	return fs
}

// appendJSON writes journalctl -o json: every value a string, except a MESSAGE that is not
// printable UTF-8 (ANSI escapes, say), which journalctl writes as an array of byte values.
func (tp *Writer) appendJSON(b []byte, o *Origin, at int64, msg []byte) []byte {
	b = append(b, `{"__CURSOR":"`...)
	b = tp.appendCursor(b, o, at)
	b = append(b, '"')
	for _, f := range tp.fields(o, at, msg) {
		b = append(b, `,"`...)
		b = append(b, f.key...)
		b = append(b, `":`...)
		switch {
		case f.msg && !printable(f.b, true):
			b = append(b, '[')
			for i, c := range f.b {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendUint(b, uint64(c), 10)
			}
			b = append(b, ']')
		case f.b != nil || f.msg:
			b = appendJSONString(b, f.b)
		default:
			b = appendJSONString(b, f.s)
		}
	}
	return append(b, "}\n"...)
}

// appendExport writes the journal export format: KEY=value lines, or for values that are not
// printable without newlines, KEY, a newline, a little-endian 64-bit length and the bytes.
func (tp *Writer) appendExport(b []byte, o *Origin, at int64, msg []byte) []byte {
	b = append(b, "__CURSOR="...)
	b = tp.appendCursor(b, o, at)
	b = append(b, '\n')
	for _, f := range tp.fields(o, at, msg) {
		b = append(b, f.key...)
		switch {
		case f.msg && !printable(f.b, false):
			b = append(b, '\n')
			b = binary.LittleEndian.AppendUint64(b, uint64(len(f.b)))
			b = append(b, f.b...)
		case f.b != nil || f.msg:
			b = append(b, '=')
			b = append(b, f.b...)
		default:
			b = append(b, '=')
			b = append(b, f.s...)
		}
		b = append(b, '\n')
	}
	return append(b, '\n')
}

// printable mirrors systemd's utf8_is_printable_newline: valid UTF-8 without control characters,
// tab allowed, newline only if newline is set.
func printable(s []byte, newline bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && (c != '\n' || !newline)) || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && n <= 1 || r <= 0x9f {
			return false
		}
		i += n
	}
	return true
}

func appendJSONString[T string | []byte](b []byte, s T) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	run := 0 // start of the pending run of bytes that need no escape
	for i := range len(s) {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[run:i]...)
		run = i + 1
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		}
	}
	b = append(b, s[run:]...)
	return append(b, '"')
}
