package model

import (
	"testing"

	"github.com/specwatch/specwatch/model/schema"
)

// The residual decides between expected and degraded, and never overrides an anomaly's verdict.
func TestConclude(t *testing.T) {
	const degraded = 0.15
	warming := schema.Ev(schema.CodeDropWarming, 40)
	for _, c := range []struct {
		verdict string
		c       schema.Change
		want    string
		says    schema.Conclusion
	}{
		{"healthy", schema.Change{Total: -0.3, LogRatio: 0}, "expected", schema.ConcludeSteady},
		{"healthy", schema.Change{Total: -0.1, LogRatio: -0.1}, "healthy", schema.ConcludeNone},
		{"healthy", schema.Change{Total: -0.5, LogRatio: -0.5, Residual: -0.3}, "degraded", schema.ConcludeDegraded},
		{"anomalous", schema.Change{Total: -0.5, LogRatio: -0.5, Residual: -0.3}, "anomalous", schema.ConcludeDegraded},
		{"healthy", schema.Change{Total: -0.5, LogRatio: -0.5, Residual: -0.05}, "expected", schema.ConcludeExpected},
		{"degraded", schema.Change{Total: -0.5, LogRatio: -0.5, Residual: -0.05}, "degraded", schema.ConcludeAnomaly},
		// a fall of commit length that acceptance_drop did not see is unjudged, not expected
		{"healthy", schema.Change{Total: -0.5, LogRatio: -0.5, Acceptance: -0.3, Residual: -0.05, Unarmed: warming},
			"unjudged", schema.ConcludeUnjudged},
		// context alone explains the fall: nothing for acceptance_drop to judge
		{"healthy", schema.Change{Total: -0.5, LogRatio: -0.5, Acceptance: -0.02, Residual: -0.05, Unarmed: warming},
			"expected", schema.ConcludeExpected},
		{"healthy", schema.Change{Total: -0.5, LogRatio: -0.5, Acceptance: -0.3, Residual: -0.3, Unarmed: warming},
			"degraded", schema.ConcludeDegraded},
	} {
		ch := c.c
		ch.Fall = fallThreshold
		if got := conclude(c.verdict, &ch, degraded); got != c.want || ch.Conclusion != c.says {
			t.Errorf("%s %+v: %q, conclusion %d; want %q, %d", c.verdict, c.c, got, ch.Conclusion, c.want, c.says)
		}
	}
}
