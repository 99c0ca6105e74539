package transport

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// TestJournalEncoding checks journalctl's rules for MESSAGE: JSON arrays for escapes, export
// binary fields for escapes and newlines, UTF-8 kept as text.
func TestJournalEncoding(t *testing.T) {
	o := &Origin{Host: "gpu07", Unit: "u.service", Ident: "python3", PID: 7, Transport: "stdout",
		Machine: "m", Boot: "b"}
	cases := []struct {
		msg        string
		json       string
		exportText bool
	}{
		{"plain käse", `"MESSAGE":"plain käse"`, true},
		{"a\tb \"q\"", `"MESSAGE":"a\tb \"q\""`, true},
		{"two\nlines", `"MESSAGE":"two\nlines"`, false},
		{"\x1b[32mINFO", `"MESSAGE":[27,91,51,50,109,73,78,70,79]`, false},
		{"bad \xff", `"MESSAGE":[98,97,100,32,255]`, false},
	}
	for _, c := range cases {
		tp := &Writer{Format: FormatJSON}
		js := string(tp.AppendEntry(nil, o, 1e15, []byte(c.msg)))
		if !strings.Contains(js, c.json) {
			t.Errorf("json %q: %s lacks %s", c.msg, js, c.json)
		}
		tp.Format = FormatExport
		ex := tp.AppendEntry(nil, o, 1e15, []byte(c.msg))
		text := bytes.Contains(ex, []byte("\nMESSAGE="+c.msg+"\n"))
		var lenLE [8]byte
		binary.LittleEndian.PutUint64(lenLE[:], uint64(len(c.msg)))
		bin := bytes.Contains(ex, append(append([]byte("\nMESSAGE\n"), lenLE[:]...), c.msg+"\n"...))
		if text != c.exportText || bin == c.exportText || !bytes.HasSuffix(ex, []byte("\n\n")) {
			t.Errorf("export %q: text %v binary %v in %q", c.msg, text, bin, ex)
		}
	}
}
