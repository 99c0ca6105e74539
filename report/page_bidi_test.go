package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
)

// bidiControls are every rune of Unicode's Bidi_Control property, as Go's tables have them.
func bidiControls() []rune {
	var out []rune
	for _, r16 := range unicode.Bidi_Control.R16 {
		for r := rune(r16.Lo); r <= rune(r16.Hi); r += rune(r16.Stride) {
			out = append(out, r)
		}
	}
	return out
}

func hasBidi(s string) (rune, bool) {
	for _, r := range s {
		if unicode.Is(unicode.Bidi_Control, r) {
			return r, true
		}
	}
	return 0, false
}

// TestPageNeutralisesBidi puts every bidirectional control into every string of the report
// that comes from a log (labels, verdict, explanation, anomaly details) and into the title:
// none reaches the page raw, each is shown as "[U+XXXX]", in the HTML and in the SVGs.
func TestPageNeutralisesBidi(t *testing.T) {
	var all strings.Builder
	for _, r := range bidiControls() {
		all.WriteString("x" + string(r))
	}
	evil := all.String() // x\u061Cx\u200E…
	if len(bidiControls()) != 12 {
		t.Fatalf("Bidi_Control has %d runes, want 12: %q", len(bidiControls()), evil)
	}
	r, plots := synth()
	for i := range r.Series {
		sr := &r.Series[i]
		old := sr.Labels
		sr.Labels.Host += evil
		sr.Labels.Unit = "gpu\u202Eecivres.mllv"
		sr.Labels.Rank += evil
		sr.Labels.Engine += "\u2067"
		sr.Explanation += evil
		for j := range sr.Anomalies {
			sr.Anomalies[j].Detail += evil
		}
		for j := range plots {
			if plots[j].Labels == old {
				plots[j].Labels = sr.Labels
				for k := range plots[j].Anomalies {
					plots[j].Anomalies[k].Detail += evil
				}
			}
		}
	}
	r.Series[2].Verdict = "healthy\u202E"
	opts := synthOpts
	opts.Title = "specwatch \u202Etset"
	page := render(t, r, plots, opts)
	if c, ok := hasBidi(page); ok {
		i := strings.IndexRune(page, c)
		t.Fatalf("U+%04X reaches the page raw: …%q…", c, page[max(0, i-80):min(len(page), i+40)])
	}
	want := VisibleBidi(evil)
	if n := strings.Count(page, want); n < 3*2 {
		t.Errorf("%q appears %d times, want at least twice per series (host, rank)", want, n)
	}
	for _, s := range []string{"gpu[U+202E]ecivres.mllv", "specwatch [U+202E]tset", "healthy[U+202E]", "[U+2067]"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	svgs := strings.Join(svgRE.FindAllString(page, -1), "")
	if !strings.Contains(svgs, "[U+202E]") {
		t.Error("no [U+202E] in the SVGs, which carry the series name")
	}
	// The plots still found their series despite the changed labels.
	if n := len(svgRE.FindAllString(cards(page)[0], -1)); n != 4 {
		t.Errorf("first card has %d plots, want 4", n)
	}
}

// TestBidiFilterSplitWrites feeds text through the filter one byte at a time, and at every split
// into two writes: the result is VisibleBidi's, and other multi-byte characters pass intact.
func TestBidiFilterSplitWrites(t *testing.T) {
	in := "a\u202Eb\u2009c→d\u061Ce\u2066f\u200F—g\xe2\x80h\xe2" // ends in a truncated sequence
	want := VisibleBidi(in)
	if want == in || strings.ContainsRune(want, '\u202E') {
		t.Fatalf("VisibleBidi(%q) = %q", in, want)
	}
	var out bytes.Buffer
	f := &bidiFilter{w: &out}
	for i := range len(in) {
		f.Write([]byte{in[i]})
	}
	f.flush()
	if out.String() != want {
		t.Errorf("byte by byte: %q, want %q", out.String(), want)
	}
	for cut := range len(in) + 1 {
		out.Reset()
		f := &bidiFilter{w: &out}
		f.Write([]byte(in[:cut]))
		f.Write([]byte(in[cut:]))
		f.flush()
		if out.String() != want {
			t.Errorf("split at %d: %q, want %q", cut, out.String(), want)
		}
	}
	if got := VisibleBidi("plain · text"); got != "plain · text" {
		t.Errorf("VisibleBidi changed text without controls: %q", got)
	}
}
