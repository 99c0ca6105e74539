package lex

// List reads a bracketed list of numbers at the start of b, "(0.805, 0.632, 0.483)" or
// "[3, 2, 5]": open, numbers separated by ", " (or ","), then close. It stores the values in
// out while they fit and fails when there are more (out bounds a list, such as the
// per-position rates, whose extra length is damage); with out nil it only counts and sums
// (SGLang's per-request lists are as long as the batch), and lo is the smallest value. end is
// the index after close.
func List(b []byte, open, close byte, out []float64) (sum, lo float64, n, end int, ok bool) {
	if len(b) < 2 || b[0] != open {
		return 0, 0, 0, 0, false
	}
	i := 1
	if b[i] == close {
		return 0, 0, 0, 2, true
	}
	for {
		x, k := Number(b[i:])
		if k == 0 {
			return 0, 0, 0, 0, false
		}
		if out != nil {
			if n == len(out) {
				return 0, 0, 0, 0, false
			}
			out[n] = x
		}
		if n == 0 || x < lo {
			lo = x
		}
		sum += x
		n++
		i += k
		switch {
		case i < len(b) && b[i] == close:
			return sum, lo, n, i + 1, true
		case i+1 < len(b) && b[i] == ',' && b[i+1] == ' ':
			i += 2
		case i < len(b) && b[i] == ',':
			i++
		default:
			return 0, 0, 0, 0, false
		}
	}
}
