package scrape

import (
	"bytes"
	"errors"
)

// errLine marks a line that is no exposition line at all (an HTML error page, binary).
var errLine = errors.New("a line that starts with no metric name")

// filterExposition copies into dst the lines of body that belong to families specwatch reads
// (their HELP, TYPE and samples), so that expfmt parses a few dozen lines instead of every
// histogram an engine serves: a vLLM body is mostly histograms, and parsing all of them cost
// 13,000 allocations and 1.9 ms a scrape. With om, body is OpenMetrics 1.0 and is rewritten as
// the Prometheus text format on the way: expfmt's own OpenMetrics decoder is a general ABNF
// parser that took 5.5 s for 100 kB of vLLM-shaped families, which a target could use to burn
// the daemon's core.
//
// What OpenMetrics loses: "# EOF" and "# UNIT" lines; a TYPE the text format lacks (unknown,
// info, stateset, gaugehistogram) becomes untyped; exemplars (" # {…} v [t]") are cut. A
// counter's samples (name_total) then stand as untyped families of their own names, which is
// how lookup finds them anyway. Timestamps in seconds stay and make the text parser fail:
// engines write none. A line that does not start with a metric name is an error.
func filterExposition(body []byte, om bool, dst *bytes.Buffer) error {
	dst.Reset()
	for len(body) > 0 {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		line = bytes.Trim(line, " \t\r")
		if len(line) == 0 {
			continue
		}
		if line[0] == '#' {
			kind, rest, ok := descriptor(line)
			if !ok || !known(metricName(rest)) {
				continue // other comments, # EOF, # UNIT, families not read
			}
			if om && kind == "TYPE" {
				if f := bytes.Fields(rest); len(f) == 2 && !knownType(f[1]) {
					dst.WriteString("# TYPE ")
					dst.Write(f[0])
					dst.WriteString(" untyped\n")
					continue
				}
			}
			dst.Write(line)
			dst.WriteByte('\n')
			continue
		}
		name := metricName(line)
		if len(name) == 0 {
			return errLine
		}
		if !known(name) {
			continue
		}
		if om {
			line = cutExemplar(line)
		}
		dst.Write(line)
		dst.WriteByte('\n')
	}
	return nil
}

// descriptor splits "# HELP name …" and "# TYPE name …".
func descriptor(line []byte) (kind string, rest []byte, ok bool) {
	for _, k := range []string{"HELP", "TYPE"} {
		if r, found := bytes.CutPrefix(line, []byte("# "+k+" ")); found {
			return k, bytes.TrimLeft(r, " \t"), true
		}
	}
	return "", nil, false
}

// metricName is the legacy metric name that starts b ([a-zA-Z_:][a-zA-Z0-9_:]*), or nothing.
func metricName(b []byte) []byte {
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == ':':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return b[:i]
		}
	}
	return b
}

// known reports whether lookup reads the family or sample name (without allocating).
func known(name []byte) bool {
	if bytes.HasSuffix(name, []byte("_created")) {
		return false
	}
	_, ok := metrics[string(bytes.TrimSuffix(name, []byte("_total")))]
	return ok
}

func knownType(t []byte) bool {
	switch string(t) {
	case "counter", "gauge", "histogram", "summary", "untyped":
		return true
	}
	return false
}

// cutExemplar drops " # {…}…" after a sample's labels (a '#' inside a quoted label value is
// part of the value).
func cutExemplar(line []byte) []byte {
	quoted, escaped := false, false
	start := 0
	sp := bytes.IndexByte(line, ' ')
	if i := bytes.IndexByte(line, '{'); i >= 0 && (sp < 0 || i < sp) {
		for j := i; j < len(line); j++ {
			c := line[j]
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = quoted
			case c == '"':
				quoted = !quoted
			case c == '}' && !quoted:
				start = j
				j = len(line)
			}
		}
	}
	if k := bytes.Index(line[start:], []byte(" # ")); k >= 0 {
		return line[:start+k]
	}
	return line
}
