package ingest

import (
	"bytes"
	"strings"
	"testing"
)

// The fixtures are one real journal rendered by journalctl in several modes (testdata/README).

func TestFixtureShapes(t *testing.T) {
	for name, want := range map[string]Shape{
		"journal.json": JSON, "journal-all.json": JSON, "journal.export": Export,
		"journal.short-iso": Raw, "journal.short-precise": Raw, "journal.cat": Raw,
	} {
		if got := Detect(fixture(t, name)); got != want {
			t.Errorf("Detect(%s) = %v, want %v", name, got, want)
		}
		_, _, got := readAll(t, fixture(t, name), ReaderOptions{})
		if got != want {
			t.Errorf("NewReader(%s).Shape() = %v, want %v", name, got, want)
		}
	}
}

func TestFixtureJSONMatchesExport(t *testing.T) {
	exp, est, _ := readAll(t, fixture(t, "journal.export"), ReaderOptions{})
	all, ast, _ := readAll(t, fixture(t, "journal-all.json"), ReaderOptions{})
	def, dst, _ := readAll(t, fixture(t, "journal.json"), ReaderOptions{})
	if len(exp) != 10 || est.Bad != 0 || ast.Bad != 0 || dst.Bad != 0 {
		t.Fatalf("entries %d, bad export %d json --all %d json %d", len(exp), est.Bad, ast.Bad, dst.Bad)
	}
	if len(all) != len(exp) || len(def) != len(exp) {
		t.Fatalf("json --all %d entries, json %d, export %d", len(all), len(def), len(exp))
	}
	nulls := 0
	for i := range exp {
		if all[i] != exp[i] {
			t.Errorf("entry %d:\njson   %v\nexport %v", i, all[i], exp[i])
		}
		want := exp[i]
		if len(want.Message) > 4096 { // journalctl prints null without --all
			want.Message = ""
			nulls++
		}
		if def[i] != want {
			t.Errorf("entry %d:\njson   %v\nwant   %v", i, def[i], want)
		}
	}
	if nulls != 1 || dst.NullMessages != 1 || ast.NullMessages != 0 {
		t.Errorf("null messages: %d long, stats %d (json) %d (--all)", nulls, dst.NullMessages, ast.NullMessages)
	}
}

func TestFixtureContent(t *testing.T) {
	es, _, _ := readAll(t, fixture(t, "journal.export"), ReaderOptions{})
	want := []struct {
		i          int
		host, unit string
		msgPrefix  string
	}{
		{0, "gpu07", "sglang.service", "[2026-11-20 09:00:01 TP0] Decode batch"},
		{1, "gpu07", "vllm.service", "\x1b[1;36m(APIServer pid=9120)\x1b[0;0m INFO"},
		{2, "gpu07", "vllm.service", "SpecDecoding metrics: bad utf8 \xff\xfe here"},
		{3, "gpu08", "llama-server", "draft acceptance rate = 0.58824 (  600 accepted /  1020 generated)\nsecond line"},
		{4, "gpu08", "llama-server", "nul\x00inside"},
		{5, "gpu07", "sglang.service", "Decode batch, #running-req: 1, #token: 5553, xxx"},
		{6, "gpu07", "sglang.service", "unicode: ✓ café 😀 \"quoted\" back\\slash\ttab"},
		{7, "gpu07", "python3", "first of a repeated MESSAGE"},
		{8, "gpu07", "sglang.service", ""},
	}
	for _, w := range want {
		e := es[w.i]
		if e.Host != w.host || e.Unit != w.unit || !strings.HasPrefix(e.Message, w.msgPrefix) {
			t.Errorf("entry %d = %v", w.i, e)
		}
		if e.Time != 1795165201000000+int64(w.i)*1000123 {
			t.Errorf("entry %d time %d", w.i, e.Time)
		}
		if !strings.HasPrefix(e.Cursor, "s=") || !strings.Contains(e.Cursor, ";i=") {
			t.Errorf("entry %d cursor %q", w.i, e.Cursor)
		}
	}
	if len(es[5].Message) != len("Decode batch, #running-req: 1, #token: 5553, ")+5000+4 {
		t.Errorf("long message has %d bytes", len(es[5].Message))
	}
}

func TestFixtureRawLines(t *testing.T) {
	for _, name := range []string{"journal.short-iso", "journal.short-precise", "journal.cat"} {
		data := fixture(t, name)
		es, st, _ := readAll(t, data, ReaderOptions{})
		if want := bytes.Count(data, []byte("\n")); len(es) != want || st.Bad != 0 {
			t.Errorf("%s: %d entries (bad %d), %d lines", name, len(es), st.Bad, want)
		}
		for _, e := range es {
			if e.Time != 0 || e.Host != "" || e.Unit != "" || e.Cursor != "" {
				t.Errorf("%s: raw entry carries journal fields: %v", name, e)
			}
		}
	}
}

// Two journalctl runs appended to one file read as one stream.
func TestFixtureConcatenatedExport(t *testing.T) {
	one := fixture(t, "journal.export")
	es, st, _ := readAll(t, append(append([]byte{}, one...), one...), ReaderOptions{})
	if len(es) != 20 || st.Bad != 0 {
		t.Fatalf("%d entries, %d bad", len(es), st.Bad)
	}
	for i := range 10 {
		if es[i] != es[i+10] {
			t.Errorf("entry %d differs in the second copy", i)
		}
	}
}
