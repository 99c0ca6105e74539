package report

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bidirectional controls (Unicode's Bidi_Control: U+061C, U+200E, U+200F, U+202A–U+202E,
// U+2066–U+2069) in a label reorder the text around them when displayed: a unit named
// "gpu\u202Eecivres.mllv" reads "gpuvllm.service" on screen, and an override left open runs on
// over the figures that follow it. html/template escapes markup, not these, so the page shows
// each of them as its code point in brackets, "[U+202E]": visible, and harmless in any HTML
// context (text, attribute, SVG). The template, the CSS and the SVG code contain none, so
// filtering the page's bytes neutralises every string that reaches it, whatever field it came
// from.

// VisibleBidi returns s with each bidirectional control replaced by its code point in brackets,
// "[U+202E]", as the status page shows it; s itself if it has none. Other bytes, valid or not,
// are kept as they are.
func VisibleBidi(s string) string {
	if !strings.ContainsFunc(s, isBidi) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		if isBidi(r) {
			b.WriteString(bidiName(r))
		} else {
			b.WriteString(s[:size]) // invalid bytes stay as they are
		}
		s = s[size:]
	}
	return b.String()
}

func isBidi(r rune) bool { return r >= 0x061C && unicode.Is(unicode.Bidi_Control, r) }

// bidiName is "[U+XXXX]".
func bidiName(r rune) string {
	const hex = "0123456789ABCDEF"
	return "[U+" + string([]byte{hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15]}) + "]"
}

// bidiFilter writes what it is given to w with every bidirectional control replaced as
// VisibleBidi does. A character split across two writes is held until the next one; flush
// writes what is held at the end.
type bidiFilter struct {
	w    io.Writer
	held []byte // an incomplete UTF-8 sequence at the end of the last write
	buf  []byte // held + the next write, reused
}

func (f *bidiFilter) Write(p []byte) (int, error) {
	b := p
	if len(f.held) > 0 {
		f.buf = append(append(f.buf[:0], f.held...), p...)
		f.held = f.held[:0]
		b = f.buf
	}
	start := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		// Every bidi control is encoded from a lead byte 0xD8 (U+061C) or 0xE2 (U+2xxx).
		if c != 0xD8 && c != 0xE2 {
			continue
		}
		if !utf8.FullRune(b[i:]) {
			if _, err := f.w.Write(b[start:i]); err != nil {
				return 0, err
			}
			f.held = append(f.held, b[i:]...)
			return len(p), nil
		}
		r, size := utf8.DecodeRune(b[i:])
		if !isBidi(r) {
			continue
		}
		if _, err := f.w.Write(b[start:i]); err != nil {
			return 0, err
		}
		if _, err := io.WriteString(f.w, bidiName(r)); err != nil {
			return 0, err
		}
		i += size - 1
		start = i + 1
	}
	if _, err := f.w.Write(b[start:]); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flush writes an incomplete sequence held at the end as it is (it cannot be a bidi control).
func (f *bidiFilter) flush() error {
	if len(f.held) == 0 {
		return nil
	}
	_, err := f.w.Write(f.held)
	f.held = f.held[:0]
	return err
}
