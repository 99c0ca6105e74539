package sim

import (
	"bytes"
	"testing"

	"github.com/specwatch/specwatch/sim/internal/noise"
)

// TestChatty checks the second benchmark corpus against what bench/run.sh promises of it: one
// unit, short-iso lines of about 186 bytes, 30 % decode lines over four DP ranks, and noise that
// carries no engine marker.
func TestChatty(t *testing.T) {
	const n = 50000
	out, truths, sum := run(t, Chatty(1, n))
	es := split(t, FormatShortISO, out)
	if sum.Lines != n || len(es) != n {
		t.Fatalf("%d records, %d read back, want %d", sum.Lines, len(es), n)
	}
	if mean := float64(len(out)) / n; mean < 180 || mean > 192 {
		t.Errorf("mean line %.1f bytes, want about 186", mean)
	}
	kinds := map[LineKind]int{}
	ranks := map[string]int{}
	engine := make([]bool, n)
	for _, tr := range truths {
		kinds[tr.Line]++
		engine[tr.Record-1] = true
		if tr.Line == LineDecode {
			ranks[tr.Series.Rank]++
		}
		if tr.Series.Unit != "sglang.service" || tr.Series.Host != "gpu07" {
			t.Fatalf("record %d: series %+v, want gpu07 sglang.service", tr.Record, tr.Series)
		}
	}
	if d := float64(kinds[LineDecode]) / n; d < 0.29 || d > 0.31 {
		t.Errorf("decode lines %.3f of the records, want 0.30", d)
	}
	if p := float64(kinds[LinePrefill]) / n; p < 0.05 || p > 0.15 {
		t.Errorf("prefill lines %.3f of the records, want about 0.10", p)
	}
	if len(kinds) != 2 || len(ranks) != 4 {
		t.Errorf("line kinds %v, decode lines per rank %v: want decode and prefill, four ranks", kinds, ranks)
	}
	seen := map[noise.Kind]bool{}
	for i, e := range es {
		if engine[i] {
			continue
		}
		if hasMarker(e.msg) {
			t.Fatalf("noise record %d carries an engine marker: %q", i+1, e.msg)
		}
		switch {
		case bytes.Contains(e.msg, []byte(`HTTP/1.1" 200 OK`)):
			seen[noise.ServerAccess] = true
		case bytes.Contains(e.msg, []byte("JSON parse error")):
			seen[noise.ToolParser] = true
		case bytes.HasPrefix(e.msg, []byte("Traceback")):
			seen[noise.Traceback] = true
		}
	}
	if len(seen) != 3 {
		t.Errorf("noise kinds seen %v: want access, tool-parser and traceback lines", seen)
	}
}
