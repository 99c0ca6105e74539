package sim

import (
	"encoding/binary"
	"strconv"
	"time"
	"unicode/utf8"
)

// origin is who wrote a record, as journald and docker compose see it.
type origin struct {
	host, unit, ident, compose string
	pid                        int // 0: none (the kernel)
	transport                  string
	machine, boot              string // 32 hex digits each, per host
	bootNs                     int64  // realtime of the host's boot: the monotonic clock's zero
}

// transport wraps messages in the scenario's Format.
type transport struct {
	f        Format
	loc      *time.Location
	seqnumID string
	seq      uint64
	width    int     // compose name column width
	num      []byte  // scratch for numeric field values; capacity fixed so slices stay valid
	fs       []field // scratch for fields
}

// appendEntry writes one record: message msg from o, received at at (ns).
func (tp *transport) appendEntry(b []byte, o *origin, at int64, msg []byte) []byte {
	tp.seq++
	switch tp.f {
	case FormatRaw, FormatCat:
		b = append(b, msg...)
	case FormatDocker, FormatDockerTimestamps:
		s := len(b)
		b = append(b, o.compose...)
		b = append(b, "-1"...)
		b = padRight(b, s, tp.width)
		b = append(b, " | "...)
		if tp.f == FormatDockerTimestamps {
			t := time.Unix(0, at).UTC()
			b = appendDate(b, t)
			b = append(b, 'T')
			b = appendClock(b, t)
			b = append(b, '.')
			b = appendFrac(b, t, 9)
			b = append(b, "Z "...)
		}
		b = append(b, msg...)
	case FormatShort, FormatShortISO, FormatShortPrecise:
		t := time.Unix(0, at).In(tp.loc)
		if tp.f == FormatShortISO {
			b = appendDate(b, t)
			b = append(b, 'T')
			b = appendClock(b, t)
			b = appendZone(b, t, false)
		} else {
			b = appendSyslogTime(b, t)
			if tp.f == FormatShortPrecise {
				b = append(b, '.')
				b = appendFrac(b, t, 6)
			}
		}
		b = append(b, ' ')
		b = append(b, o.host...)
		b = append(b, ' ')
		b = append(b, o.ident...)
		if o.pid != 0 {
			b = append(b, '[')
			b = appendInt(b, int64(o.pid))
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

func padRight(b []byte, start, width int) []byte {
	for len(b)-start < width {
		b = append(b, ' ')
	}
	return b
}

// appendCursor writes a journal cursor; readers treat it as opaque, it need only be unique.
func (tp *transport) appendCursor(b []byte, o *origin, at int64) []byte {
	b = append(b, "s="...)
	b = append(b, tp.seqnumID...)
	b = append(b, ";i="...)
	b = strconv.AppendUint(b, tp.seq, 16)
	b = append(b, ";b="...)
	b = append(b, o.boot...)
	b = append(b, ";m="...)
	b = strconv.AppendInt(b, (at-o.bootNs)/1000, 16)
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
func (tp *transport) fields(o *origin, at int64, msg []byte) []field {
	num := tp.num[:0]
	fs := tp.fs[:0]
	add := func(key, s string) { fs = append(fs, field{key: key, s: s}) }
	addNum := func(key string, v int64) {
		s := len(num)
		num = strconv.AppendInt(num, v, 10)
		fs = append(fs, field{key: key, b: num[s:len(num):len(num)]})
	}
	addNum("__REALTIME_TIMESTAMP", at/1000)
	addNum("__MONOTONIC_TIMESTAMP", (at-o.bootNs)/1000)
	add("_BOOT_ID", o.boot)
	add("_TRANSPORT", o.transport)
	if o.transport == "kernel" {
		add("PRIORITY", "4")
	} else {
		add("PRIORITY", "6")
		add("SYSLOG_FACILITY", "3")
	}
	add("SYSLOG_IDENTIFIER", o.ident)
	fs = append(fs, field{key: "MESSAGE", b: msg, msg: true})
	if o.pid != 0 {
		addNum("_PID", int64(o.pid))
	}
	if o.unit != "" {
		add("_SYSTEMD_UNIT", o.unit)
	}
	add("_MACHINE_ID", o.machine)
	add("_HOSTNAME", o.host)
	tp.num, tp.fs = num, fs
	return fs
}

// appendJSON writes journalctl -o json: every value a string, except a MESSAGE that is not
// printable UTF-8 (ANSI escapes, say), which journalctl writes as an array of byte values.
func (tp *transport) appendJSON(b []byte, o *origin, at int64, msg []byte) []byte {
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
func (tp *transport) appendExport(b []byte, o *origin, at int64, msg []byte) []byte {
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
