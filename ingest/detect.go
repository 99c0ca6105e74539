package ingest

import (
	"bytes"
	"strconv"

	"github.com/specwatch/specwatch/ingest/containerlog"
)

// Shape is how a stream encodes its records. Operators hand specwatch whatever they have (a file
// the engine wrote, `journalctl` output in any mode, a pipe), so the reader decides by looking
// rather than by asking.
type Shape int

const (
	// Auto is not a shape of its own: in ReaderOptions it asks the reader to detect one.
	Auto Shape = iota
	// Raw is line-oriented text: engine output, `journalctl -o cat`, and the short modes
	// (short, short-iso, short-precise), whose prefixes package parse strips.
	Raw
	// JSON is `journalctl -o json` (or json-seq): one object per line.
	JSON
	// Export is `journalctl -o export`: binary-safe fields, entries separated by blank lines.
	Export
	// DockerJSON is Docker's json-file log: one {"log","stream","time"} object a line.
	DockerJSON
	// CRI is a Kubernetes container log: `TIME STREAM P|F MESSAGE` a line.
	CRI
)

// String returns the lower-case name used in flags and messages.
func (s Shape) String() string {
	switch s {
	case Auto:
		return "auto"
	case Raw:
		return "raw"
	case JSON:
		return "json"
	case Export:
		return "export"
	case DockerJSON:
		return "docker-json"
	case CRI:
		return "cri"
	}
	return "shape(" + strconv.Itoa(int(s)) + ")"
}

// PeekSize is how much of a stream Detect needs at most; NewReader peeks no further.
const PeekSize = 64 << 10

// Detect decides the shape of a stream from its first bytes. It never returns Auto. It looks
// only at the first line (JSON) or the first entry block (Export), so a prefix of a stream that
// already holds those gives the same answer as the whole stream.
func Detect(peek []byte) Shape {
	s, _ := detect(peek)
	return s
}

// detect is Detect plus whether more input could change the answer, so that NewReader can stop
// peeking as soon as the answer is settled: a live pipe may not deliver 64 KiB for hours.
func detect(p []byte) (s Shape, more bool) {
	i := 0
	for i < len(p) && isJSONSpace(p[i]) {
		i++
	}
	if i == len(p) {
		return Raw, true
	}
	if p[i] == '{' {
		return detectJSON(p[i:], len(p) >= PeekSize)
	}
	if k := bytes.IndexByte(p, '\n'); k >= 0 {
		if containerlog.Sniff(p[:k]) == containerlog.CRI {
			return CRI, false
		}
	} else if criPrefix(p) {
		return Raw, true // a CRI record's time so far: its line decides
	}
	j := 0
	for j < len(p) && (p[j] == '\n' || p[j] == '\r') {
		j++
	}
	return detectExport(p[j:])
}

// isJSONSpace also skips json-seq's record separator and a UTF-8 byte-order mark's bytes.
func isJSONSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', 0x1e, 0xef, 0xbb, 0xbf:
		return true
	}
	return false
}

// journalKeys mark a JSON object as a journal entry. journalctl prints fields in hash order, so
// any of them may come first.
var journalKeys = [...]string{`"MESSAGE"`, `"__CURSOR"`, `"__REALTIME_TIMESTAMP"`}

// full says the peek can grow no more: only then is a first line without its end judged by its
// start (a shorter one may yet end and say otherwise, and the reader, fed a byte at a time,
// would have settled on what the whole peek does not say).
func detectJSON(p []byte, full bool) (Shape, bool) {
	line, complete := p, false
	if k := bytes.IndexByte(p, '\n'); k >= 0 {
		line, complete = p[:k], true
	}
	for _, key := range journalKeys {
		if hasJSONKey(line, key) {
			return JSON, false
		}
	}
	if complete && containerlog.Sniff(line) == containerlog.DockerJSON {
		return DockerJSON, false
	}
	if !complete && full && containerlog.SniffPrefix(line) == containerlog.DockerJSON {
		// A first record past the peek (dockerd writes '<' as six bytes: a 12 KiB line of
		// them is 72 KiB): json-file writes "log" first, which no journal entry has.
		return DockerJSON, false
	}
	return Raw, !complete
}

// hasJSONKey reports whether quoted key occurs in line as an object key, that is after `{` or `,`
// and before `:`. Inside a JSON string a quote is escaped, so a message that mentions the key
// does not match.
func hasJSONKey(line []byte, key string) bool {
	for off := 0; ; {
		k := bytes.Index(line[off:], []byte(key))
		if k < 0 {
			return false
		}
		k += off
		off = k + 1
		b := k - 1
		for b >= 0 && isJSONSpace(line[b]) {
			b--
		}
		if b < 0 || (line[b] != '{' && line[b] != ',') {
			continue
		}
		a := k + len(key)
		for a < len(line) && isJSONSpace(line[a]) {
			a++
		}
		if a < len(line) && line[a] == ':' {
			return true
		}
	}
}

// detectExport walks the fields of the first entry block the way the export reader would. It
// answers Export when that block holds a MESSAGE or __REALTIME_TIMESTAMP field and ends, at a
// blank line, after nothing but valid field lines; Raw on the first line that is not a field,
// or a block without either marker. Walking to the block's end keeps a text log whose first
// line happens to read "MESSAGE=…" from being taken for an export (it read as 0 lines).
func detectExport(p []byte) (Shape, bool) {
	marker := false
	likely := func() (Shape, bool) { // the block goes on past what we have
		if marker {
			return Export, true
		}
		return Raw, true
	}
	for pos := 0; ; {
		rest := p[pos:]
		k := bytes.IndexByte(rest, '\n')
		if k < 0 {
			// An incomplete line is often settled already: by a byte no field name has
			// (engine output rarely gets far as a field name). A lone '\r' may be a CRLF's half.
			rest = trimCR(rest)
			if eq := bytes.IndexByte(rest, '='); eq >= 0 {
				if !validKey(rest[:eq]) {
					return Raw, false
				}
				marker = marker || isExportMarker(rest[:eq])
				return likely()
			}
			if !validKeyPrefix(rest) {
				return Raw, false
			}
			return likely()
		}
		line := trimCR(rest[:k])
		pos += k + 1
		if len(line) == 0 {
			if marker {
				return Export, false
			}
			return Raw, false
		}
		if eq := bytes.IndexByte(line, '='); eq >= 0 {
			if !validKey(line[:eq]) {
				return Raw, false
			}
			marker = marker || isExportMarker(line[:eq])
			continue
		}
		if !validKey(line) {
			return Raw, false
		}
		// A bare KEY is only a binary field if a sane length and the closing newline follow.
		if len(p)-pos < 8 {
			return likely()
		}
		n := le64(p[pos:])
		if n > maxDetectBinary {
			return Raw, false
		}
		end := pos + 8 + int(n)
		marker = marker || isExportMarker(line)
		if end >= len(p) {
			return likely() // the payload runs past what we have
		}
		if p[end] != '\n' {
			return Raw, false
		}
		pos = end + 1
	}
}

// maxDetectBinary bounds a binary field length that detection believes; journald itself stores
// no field anywhere near this large.
const maxDetectBinary = 1 << 30

func isExportMarker(key []byte) bool {
	return string(key) == "MESSAGE" || string(key) == "__REALTIME_TIMESTAMP"
}

// validKey matches [A-Z_][A-Z0-9_]*, journald's field-name alphabet.
func validKey(k []byte) bool {
	return len(k) > 0 && validKeyPrefix(k)
}

func validKeyPrefix(k []byte) bool {
	for _, c := range k {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return len(k) == 0 || k[0] < '0' || k[0] > '9'
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

func le64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// criPrefix reports whether p, a first line without its end yet, still begins like a CRI
// record's RFC 3339 time.
func criPrefix(p []byte) bool {
	const layout = "dddd-dd-ddTdd:dd:dd"
	for i := 0; i < len(p) && i < len(layout); i++ {
		switch c := p[i]; layout[i] {
		case 'd':
			if c < '0' || c > '9' {
				return false
			}
		case 'T':
			if c != 'T' && c != 't' {
				return false
			}
		default:
			if c != layout[i] {
				return false
			}
		}
	}
	return true
}
