package words

import (
	"strings"
	"testing"

	"github.com/specwatch/specwatch/model/schema"
)

// TestDetailSingular: a count of one takes the singular ("sustained for 1 window"), every
// other count the plural, in each sentence that gives a count.
func TestDetailSingular(t *testing.T) {
	for _, c := range []struct {
		e    schema.Evidence
		want string
	}{
		{schema.Ev(schema.CodeDropWindows, 2.1, 3.4, 0.2, 38, 1, 1), "sustained for 1 window of 1 sample"},
		{schema.Ev(schema.CodeDropWindows, 2.1, 3.4, 0.2, 38, 2, 30), "sustained for 2 windows of 30 samples"},
		{schema.Ev(schema.CodeRegression, 40, 5000, 80, 30, 2.5, 1), "sustained for 1 window$"},
		{schema.Ev(schema.CodeStuckSamples, 1, 1, 8, 0), "for 1 consecutive sample with"},
		{schema.Ev(schema.CodeStuckRequests, 1, 1, 1, 0), "for 1 consecutive request ("},
		{schema.Ev(schema.CodeCollapse, 12.5, 31, 40.3, 5553, 2.9, 1), "for 1 sample$"},
		{schema.Ev(schema.CodeSlowDrift, 2.1, 1, 3.4, 0.2, 38), "mean of the last 1 sample)"},
		{schema.Ev(schema.CodeFormatDrift, 1, 1), "1 of the last 1 line with"},
		{schema.Ev(schema.CodeSpecOn, 1, 8), "on again at 1 running request (off at 8)"},
		{schema.Ev(schema.CodeSpecOffBatch, 1, 8), "off at 1 running request (drafting"},
		{schema.Ev(schema.CodeDropWarming, 1), "needs 1 more sample)"},
		{schema.Ev(schema.CodeRestartRegressed, 1, 4, 1), "(1 decode point against"},
	} {
		got := Detail(c.e, false) // a want ending in "$" ends the sentence
		if want, ok := strings.CutSuffix(c.want, "$"); ok && !strings.HasSuffix(got, want) || !ok && !strings.Contains(got, want) {
			t.Errorf("code %d: %q lacks %q", c.e.Code, got, c.want)
		}
	}
	if got := Count(1, "window") + ", " + Count(0, "window") + ", " + Count(12, "window"); got != "1 window, 0 windows, 12 windows" {
		t.Errorf("Count: %q", got)
	}
}

// TestNoFitSingular: a decode log interval of one step is singular too.
func TestNoFitSingular(t *testing.T) {
	got := noFit(&schema.NoFit{N: 3, Warmup: 20, Interval: 1, Lines: 41, AfterIdle: 40, Untrusted: 1})
	for _, want := range []string{"Of 41 decode lines, 40 came after", "(context growth ≠ 1 step × commit length"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}
