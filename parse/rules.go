package parse

import (
	"bytes"
	"fmt"
	"regexp"

	"github.com/specwatch/specwatch/sample"
)

// Rule reads a shape no built-in parser knows: a regular expression whose named groups are
// field names ("commit_len", "step_seconds", "context", …). Rules run only on lines the
// built-in parsers ignored, and only when the line contains Contains, so a rule costs nothing on
// the noise that lacks its literal.
type Rule struct {
	Name     string
	Contains string      // a literal every matching line contains; derived from the regexp if empty
	Kind     sample.Kind // KindDecode when zero
	re       *regexp.Regexp
	groups   []Alias // per submatch index; Field == NumFields for groups that are not fields
	lit      []byte
}

// NewRule compiles a rule. units maps a field name to the scale of its group's value
// (0.001 for milliseconds).
func NewRule(name, expr, contains string, kind sample.Kind, units map[string]float64) (Rule, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return Rule{}, fmt.Errorf("rule %q: %w", name, err)
	}
	r := Rule{Name: name, Contains: contains, Kind: kind, re: re}
	if r.Kind == sample.KindNone {
		r.Kind = sample.KindDecode
	}
	fields := 0
	for _, g := range re.SubexpNames() {
		a := Alias{Field: numFields}
		if g != "" {
			f, ok := sample.FieldByName(g)
			if !ok {
				return Rule{}, fmt.Errorf("rule %q: group %q is not a field name", name, g)
			}
			a = Alias{Field: f, Scale: 1}
			if s, ok := units[g]; ok {
				a.Scale = s
			}
			fields++
		}
		r.groups = append(r.groups, a)
	}
	if fields == 0 {
		return Rule{}, fmt.Errorf("rule %q: no named group is a field", name)
	}
	if r.Contains == "" {
		r.Contains, _ = re.LiteralPrefix()
	}
	r.lit = []byte(r.Contains)
	return r, nil
}

// apply tries the rule on b. It returns Ignored when the rule does not match, Malformed when it
// matched but a value did not read as a number.
func (r *Rule) apply(b []byte, s *Record) sample.Result {
	if len(r.lit) > 0 && !bytes.Contains(b, r.lit) {
		return sample.Ignored
	}
	m := r.re.FindSubmatchIndex(b)
	if m == nil {
		return sample.Ignored
	}
	prefix(b[:m[0]], s)
	s.Kind = r.Kind
	for i, a := range r.groups {
		if a.Field == numFields || m[2*i] < 0 {
			continue
		}
		v, ok := kvValue(a, b[m[2*i]:m[2*i+1]])
		if !ok {
			return malformed(s, "rule: bad value")
		}
		if !set(s, a.Field, v) {
			return malformed(s, "rule: duplicated field")
		}
	}
	if s.Engine == sample.EngineUnknown {
		s.Engine = sample.EngineGeneric
	}
	return sample.Matched
}
