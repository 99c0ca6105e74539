package report

import (
	"math"
	"testing"
	"time"
)

func TestFormatting(t *testing.T) {
	for _, c := range [][2]string{
		{thousands(1234567), "1\u2009234\u2009567"}, {thousands(-1000), "−1\u2009000"}, {thousands(999), "999"},
		{tps(371.2), "371"}, {tps(59.14), "59.1"}, {tps(0.744), "0.74"}, {tps(math.Inf(1)), "—"},
		{fmtDur(45 * time.Second), "45 s"}, {fmtDur(15*time.Minute + 1*time.Second), "15 min"},
		{fmtDur(2*time.Hour + 59*time.Minute + 35*time.Second), "2 h 59 min"}, {fmtDur(76 * time.Hour), "3 d 4 h"},
		{ctxShort(131072), "128k"}, {ctxShort(5000), "5\u2009000"},
	} {
		if c[0] != c[1] {
			t.Errorf("got %q, want %q", c[0], c[1])
		}
	}
}
