package printfre

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Set is a file of format strings: one a line, '#' starting a comment; "prefix <format>" is
// the logger's prefix before every message, and "tail <format>" a fragment that a format's
// trailing %s conversions print, each optional, in the file's order.
type Set struct {
	Prefix  *Format
	Formats []*Format
	tails   *regexp.Regexp
}

// Load reads a Set from path.
func Load(path string) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &Set{}
	tails := "^"
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || l[0] == '#' {
			continue
		}
		kind, rest, _ := strings.Cut(l, " ")
		text := l
		if kind == "prefix" || kind == "tail" {
			text = rest
		}
		ft, err := Compile(text)
		if err != nil {
			return nil, err
		}
		switch kind {
		case "prefix":
			s.Prefix = ft
		case "tail":
			src := ft.re.String()
			tails += "(?:" + src[1:len(src)-1] + ")?"
		default:
			s.Formats = append(s.Formats, ft)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	s.tails = regexp.MustCompile(tails + "$")
	return s, nil
}

// Match returns the format printf could print msg from, and what its conversions printed.
// A format ending in two or more %s matches when what they printed together is a run of the
// tails.
func (s *Set) Match(msg string) (*Format, []string, error) {
	for _, f := range s.Formats {
		m, ok := f.Match(msg)
		if !ok {
			continue
		}
		n := 0
		for i := len(f.convs) - 1; i >= 0 && f.convs[i].verb == 's' && f.convs[i].width < 0; i-- {
			n++
		}
		if n >= 2 && !s.tails.MatchString(strings.Join(m[len(m)-n:], "")) {
			continue
		}
		return f, m, nil
	}
	return nil, nil, fmt.Errorf("no format prints %q", msg)
}
