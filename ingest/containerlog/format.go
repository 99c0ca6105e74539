// Package containerlog decodes the line formats container runtimes write to files — Docker's
// json-file driver and the CRI format of the kubelet, containerd and CRI-O — and reads a
// container's identity from where its log lives. It is pure (bytes in, a line out) apart from
// DockerName, which reads the container's config.v2.json; package ingest (analyze) and
// ingest/file (run) share it, so that offline and live read a file the same way.
package containerlog

import "bytes"

// Format is how a file encodes its lines.
type Format uint8

const (
	// Plain is text as the engine wrote it, one line per line.
	Plain Format = iota
	// DockerJSON is Docker's json-file driver: one {"log","stream","time"} object a line.
	DockerJSON
	// CRI is `TIME STREAM P|F MESSAGE`, the kubelet's container log format.
	CRI
)

// String names the format in logs and errors.
func (f Format) String() string {
	switch f {
	case DockerJSON:
		return "docker-json"
	case CRI:
		return "cri"
	}
	return "plain"
}

// Sniff decides the format from a file's first complete line. A plain log whose first line
// happened to look like a record would be decoded wrongly, so the test is strict: a JSON
// object with "log" and "time" keys whose time parses, or a CRI prefix whose time parses.
func Sniff(line []byte) Format {
	line = trimCR(line)
	if len(line) > 0 && line[0] == '{' {
		var d dockerLine
		if d.decode(line) == nil {
			if _, ok := ParseTime(d.rec.Time); ok {
				return DockerJSON
			}
		}
		return Plain
	}
	if _, _, _, _, ok := splitCRI(line); ok {
		return CRI
	}
	return Plain
}

// SniffPrefix decides the format from the start of a first line too long to hold whole (a
// Docker json-file record of a 1 MB line, whose "time" comes last): the json-file driver
// writes "log" first, the CRI prefix is whole at the start. Anything else is plain.
func SniffPrefix(head []byte) Format {
	if bytes.HasPrefix(head, []byte(`{"log":"`)) {
		return DockerJSON
	}
	if sp := bytes.IndexByte(head, ' '); sp > 0 {
		if _, _, _, _, ok := splitCRI(head); ok {
			return CRI
		}
	}
	return Plain
}

// splitCRI splits `TIME STREAM TAG MESSAGE`. TAG is P (partial) or F (full), possibly followed
// by ':'-separated flags a later CRI version may add. The message may be empty, with or without
// the space before it.
func splitCRI(line []byte) (t int64, stderr, partial bool, msg []byte, ok bool) {
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 {
		return 0, false, false, nil, false
	}
	t, ok = ParseTime(line[:sp])
	if !ok {
		return 0, false, false, nil, false
	}
	rest := line[sp+1:]
	switch {
	case bytes.HasPrefix(rest, []byte("stdout ")):
		rest = rest[len("stdout "):]
	case bytes.HasPrefix(rest, []byte("stderr ")):
		rest, stderr = rest[len("stderr "):], true
	default:
		return 0, false, false, nil, false
	}
	tag := rest
	if sp := bytes.IndexByte(rest, ' '); sp >= 0 {
		tag, msg = rest[:sp], rest[sp+1:]
	}
	if c := bytes.IndexByte(tag, ':'); c >= 0 {
		tag = tag[:c]
	}
	switch string(tag) {
	case "P":
		partial = true
	case "F":
	default:
		return 0, false, false, nil, false
	}
	return t, stderr, partial, msg, true
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}
