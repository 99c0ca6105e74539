// Package printfre turns C printf format strings into matchers for what printf can print from
// them, field widths included, so that tests can hold a writer's lines to an engine's own
// format strings rather than to a second transcription of them.
package printfre

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Format is one compiled format string.
type Format struct {
	Text  string
	re    *regexp.Regexp
	convs []conv
}

// conv is one conversion: its verb, flags, width and precision (-1 when absent, -2 for '*').
type conv struct {
	verb        byte
	left, zero  bool
	width, prec int
}

// Compile parses format. It knows the conversions engines' log lines use: d i u x c s f e g p
// with flags, widths, precisions and length modifiers. A "%N.*s" is taken to print exactly N
// characters, as llama.cpp's "%12.*s" of a function name cut to 12 does.
func Compile(format string) (*Format, error) {
	var re strings.Builder
	f := &Format{Text: format}
	re.WriteByte('^')
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			re.WriteString(regexp.QuoteMeta(string(c)))
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			re.WriteString("%")
			continue
		}
		cv := conv{width: -1, prec: -1}
		for ; i < len(format) && strings.IndexByte("-+ 0#", format[i]) >= 0; i++ {
			cv.left = cv.left || format[i] == '-'
			cv.zero = cv.zero || format[i] == '0'
		}
		cv.width, i = number(format, i)
		if i < len(format) && format[i] == '.' {
			cv.prec, i = number(format, i+1)
			if cv.prec == -1 {
				cv.prec = 0
			}
		}
		for i < len(format) && strings.IndexByte("hlzjtL", format[i]) >= 0 {
			i++
		}
		if i >= len(format) {
			return nil, fmt.Errorf("printfre: %q: unterminated conversion", format)
		}
		cv.verb = format[i]
		pat, err := cv.pattern()
		if err != nil {
			return nil, fmt.Errorf("printfre: %q: %w", format, err)
		}
		re.WriteString("(" + pat + ")")
		f.convs = append(f.convs, cv)
	}
	re.WriteByte('$')
	var err error
	f.re, err = regexp.Compile(re.String())
	return f, err
}

// number reads a decimal (or '*', -2) at i; -1 when there is none.
func number(s string, i int) (int, int) {
	if i < len(s) && s[i] == '*' {
		return -2, i + 1
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return -1, i
	}
	n, _ := strconv.Atoi(s[i:j])
	return n, j
}

func (c conv) pattern() (string, error) {
	var body string
	switch c.verb {
	case 'd', 'i', 'u':
		body = `-?\d+`
	case 'x', 'X', 'p':
		body = `(?:0x)?[0-9a-fA-F]+`
	case 'c':
		return `.`, nil
	case 'f', 'F':
		switch {
		case c.prec < 0:
			body = `-?\d+\.\d{6}`
		case c.prec == 0:
			body = `-?\d+`
		default:
			body = fmt.Sprintf(`-?\d+\.\d{%d}`, c.prec)
		}
	case 'e', 'g':
		body = `(?:-?[\d.]+(?:e[+-]\d+)?|nan|inf)`
	case 's':
		if c.prec == -2 && c.width > 0 {
			return fmt.Sprintf(`.{%d}`, c.width), nil
		}
		return `.*?`, nil
	default:
		return "", fmt.Errorf("conversion %%%c", c.verb)
	}
	// the padding goes on one side only, so that two fields in a row split one way
	if c.left {
		return body + ` *`, nil
	}
	return ` *` + body, nil
}

// Match reports whether printf could print line from the format, and returns what each
// conversion printed.
func (f *Format) Match(line string) ([]string, bool) {
	m := f.re.FindStringSubmatch(line)
	if m == nil {
		return nil, false
	}
	for i, cv := range f.convs {
		if !cv.fits(m[i+1]) {
			return nil, false
		}
	}
	return m[1:], true
}

// fits checks a conversion's output against its width: padded to exactly the width with
// blanks (zeros under '0') on the left, or the right under '-', and never padded beyond it.
func (c conv) fits(s string) bool {
	if c.verb == 's' || c.verb == 'c' {
		if c.width > 0 && len(s) < c.width {
			return false
		}
		return c.width <= 0 || len(s) == c.width || (s[0] != ' ' && s[len(s)-1] != ' ')
	}
	body := strings.Trim(s, " ")
	if body == "" || strings.HasPrefix(body, "+") {
		return false
	}
	w := max(c.width, 0)
	switch {
	case c.left:
		return strings.HasPrefix(s, body) && len(s) == max(w, len(body))
	case c.zero:
		digits, _, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
		natural := digits == "0" || !strings.HasPrefix(digits, "0") // no padding zero
		return s == body && (len(s) == w || len(s) > w && natural)
	}
	return strings.HasSuffix(s, body) && len(s) == max(w, len(body))
}
