package numfmt

import (
	"math"
	"testing"
	"time"
)

func TestFormatting(t *testing.T) {
	for _, c := range [][2]string{
		{Thousands(1234567), "1\u2009234\u2009567"}, {Thousands(-1000), "−1\u2009000"}, {Thousands(999), "999"},
		{TPS(371.2), "371"}, {TPS(59.14), "59.1"}, {TPS(0.744), "0.74"}, {TPS(math.Inf(1)), "—"},
		{Dur(45 * time.Second), "45 s"}, {Dur(15*time.Minute + 1*time.Second), "15 min"},
		{Dur(2*time.Hour + 59*time.Minute + 35*time.Second), "2 h 59 min"}, {Dur(76 * time.Hour), "3 d 4 h"},
		{CtxShort(131072), "128k"}, {CtxShort(5000), "5\u2009000"},
	} {
		if c[0] != c[1] {
			t.Errorf("got %q, want %q", c[0], c[1])
		}
	}
}
