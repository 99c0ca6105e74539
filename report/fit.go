package report

import (
	"strings"

	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/report/numfmt"
	"github.com/specwatch/specwatch/report/words"
)

// fitWarning is "fit unreliable: R² −0.30, negative slope" for a step model no one should
// read as a step time (a fit worse than the mean, a step that shrinks with context or is
// negative at zero context), or "" for a plausible one. The page and the text say it beside
// the figures rather than hide them.
func fitWarning(m *model.StepModel, kv bool) string {
	if m == nil {
		return ""
	}
	slope := m.MSPer1kToken
	if kv {
		slope = m.MSPerKVPercent
	}
	var why []string
	if m.R2 < 0 {
		why = append(why, "R² "+numfmt.Fixed(m.R2, 2))
	}
	if slope < 0 {
		why = append(why, "negative slope")
	}
	if m.FixedMS < 0 {
		why = append(why, "negative intercept")
	}
	if len(why) == 0 {
		return ""
	}
	return "fit unreliable: " + strings.Join(why, ", ")
}

// countOf is n with thousands separators and its noun, plural unless n is 1.
func countOf(n int64, noun string) string {
	s := words.Count(n, noun)
	return numfmt.Thousands(n) + s[strings.IndexByte(s, ' '):]
}
