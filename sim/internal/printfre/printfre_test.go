package printfre

import "testing"

// TestMatch: what printf prints matches, and a field one blank too wide or narrow does not.
func TestMatch(t *testing.T) {
	cases := []struct {
		format string
		good   []string
		bad    []string
	}{
		{"id %2d | task %d | n = %5d", []string{"id  0 | task 12 | n =   148", "id 10 | task 0 | n = 123456"},
			[]string{"id 0 | task 12 | n =   148", "id  0 | task 12 | n =    148", "id   0 | task 1 | n =     1"}},
		{"%4zu %6zu %6zu", []string{"   1     48     48", "12345 1234567      0"}, []string{"  1     48     48", "   1    48     48"}},
		{"time = %10.2f ms, rate = %0.5f, mean = %5.2f", []string{"time =     109.15 ms, rate = 0.21180, mean =  2.65",
			"time = 12345678.90 ms, rate = 1.00000, mean = 53.33"},
			[]string{"time =    109.15 ms, rate = 0.21180, mean =  2.65", "time =     109.15 ms, rate = 0.2118, mean =  2.65"}},
		{"slot %12.*s: x", []string{"slot print_timing: x", "slot      release: x"}, []string{"slot release: x", "slot print_timings: x"}},
		{"statistics %16s: y", []string{"statistics     draft-simple: y", "statistics a-name-longer-than-16: y"},
			[]string{"statistics draft-simple: y", "statistics      draft-simple: y"}},
		{"%s%d.%02d.%03d.%03d%s ", []string{"0.05.071.041 ", "1440.00.000.999 "}, []string{"0.5.071.041 ", "0.05.71.041 ", "0.05.071.041"}},
		{"left %-5d| 100%%", []string{"left 12   | 100%"}, []string{"left    12| 100%"}},
	}
	for _, c := range cases {
		f, err := Compile(c.format)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range c.good {
			if _, ok := f.Match(l); !ok {
				t.Errorf("%q does not match %q", l, c.format)
			}
		}
		for _, l := range c.bad {
			if _, ok := f.Match(l); ok {
				t.Errorf("%q matches %q", l, c.format)
			}
		}
	}
}
