package words

import "strconv"

// Count is n and its noun, plural unless n is 1: "1 window", "3 windows", "1 running
// request". Every count a sentence gives goes through it.
func Count(n int64, noun string) string {
	s := strconv.FormatInt(n, 10) + " " + noun
	if n != 1 {
		s += "s"
	}
	return s
}
