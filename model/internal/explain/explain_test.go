package explain

import (
	"strings"
	"testing"
)

// The residual decides between expected and degraded, and never overrides an anomaly's verdict.
func TestConclude(t *testing.T) {
	const fall, degraded = -0.105, 0.15
	for _, c := range []struct {
		verdict string
		c       Change
		want    string
		says    string
	}{
		{"healthy", Change{Total: -0.3, LogRatio: 0}, "expected", ""},
		{"healthy", Change{Total: -0.1, LogRatio: -0.1}, "healthy", ""},
		{"healthy", Change{Total: -0.5, LogRatio: -0.5, Residual: -0.3}, "degraded", "— degraded."},
		{"anomalous", Change{Total: -0.5, LogRatio: -0.5, Residual: -0.3}, "anomalous", "— degraded."},
		{"healthy", Change{Total: -0.5, LogRatio: -0.5, Residual: -0.05}, "expected", "expected, not a regression."},
		{"degraded", Change{Total: -0.5, LogRatio: -0.5, Residual: -0.05}, "degraded", "the verdict is the anomaly's."},
		// a fall of commit length that acceptance_drop did not see is unjudged, not expected
		{"healthy", Change{Total: -0.5, LogRatio: -0.5, Acceptance: -0.3, Residual: -0.05, Unarmed: "X warming up"},
			"unjudged", "X warming up: whether commit length fell with the text or with the drafter is unjudged."},
		// context alone explains the fall: nothing for acceptance_drop to judge
		{"healthy", Change{Total: -0.5, LogRatio: -0.5, Acceptance: -0.02, Residual: -0.05, Unarmed: "X warming up"},
			"expected", "expected, not a regression."},
		{"healthy", Change{Total: -0.5, LogRatio: -0.5, Acceptance: -0.3, Residual: -0.3, Unarmed: "X warming up"}, "degraded", "— degraded."},
	} {
		var b strings.Builder
		got := Conclude(&b, c.verdict, c.c, fall, degraded)
		if got != c.want || !strings.Contains(b.String(), c.says) || (c.says == "") != (b.Len() == 0) {
			t.Errorf("%s %+v: %q, %q; want %q, %q", c.verdict, c.c, got, b.String(), c.want, c.says)
		}
	}
}
