package scrape

import (
	"bytes"
)

// openMetricsToText rewrites an OpenMetrics 1.0 exposition as the Prometheus text format, line
// by line, into dst, so that one fast parser reads both. expfmt's own OpenMetrics decoder is a
// general ABNF parser: it took 5.5 s for 100 kB of vLLM-shaped families here (the text parser:
// about 2 ms), which a target could use to burn the daemon's core.
//
// What changes: "# EOF" and "# UNIT" lines go; a TYPE the text format lacks (unknown, info,
// stateset, gaugehistogram) becomes untyped; exemplars (" # {…} v [t]") are cut from samples.
// A counter's samples (name_total, name_created) then stand as untyped families of their own
// names, which is how lookup finds them anyway. Timestamps in seconds are left as they are and
// make the text parser fail: engines do not write them.
func openMetricsToText(body []byte, dst *bytes.Buffer) {
	dst.Reset()
	dst.Grow(len(body))
	for len(body) > 0 {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		switch {
		case bytes.Equal(line, []byte("# EOF")), bytes.HasPrefix(line, []byte("# UNIT ")):
			continue
		case bytes.HasPrefix(line, []byte("# TYPE ")):
			f := bytes.Fields(line)
			if len(f) == 4 && !knownType(f[3]) {
				dst.Write(line[:len(line)-len(f[3])])
				dst.WriteString("untyped\n")
				continue
			}
		case len(line) > 0 && line[0] != '#':
			line = cutExemplar(line)
		}
		dst.Write(line)
		dst.WriteByte('\n')
	}
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
