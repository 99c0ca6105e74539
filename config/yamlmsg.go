package config

import (
	"reflect"
	"regexp"
	"strings"
)

// The YAML library's messages name Go types ("field lisen not found in type config.Config",
// "cannot unmarshal !!str `soon` into time.Duration"), which say nothing to an operator who
// never saw the source. plainYAML rewrites them into what the file should have said; the key
// and line are put in front by decodeStrict.

var (
	unknownField = regexp.MustCompile(`^field (\S+) not found in type (\S+)$`)
	cannotDecode = regexp.MustCompile("^cannot unmarshal (!!\\w+)(?: `(.*)`)? into (\\S+)$") // not raw: it matches a backquote
)

// keysOf maps the config's struct types, by the name the library prints, to their keys.
var keysOf = func() map[string][]string {
	out := map[string][]string{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || out[t.String()] != nil || t.PkgPath() != reflect.TypeFor[Config]().PkgPath() {
			return
		}
		out[t.String()] = []string{}
		for i := range t.NumField() {
			if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
				out[t.String()] = append(out[t.String()], tag)
			}
			walk(t.Field(i).Type)
		}
	}
	walk(reflect.TypeFor[Config]())
	return out
}()

// plainYAML rewrites one message of the library; one it does not know is returned as is.
func plainYAML(msg string) string {
	if m := unknownField.FindStringSubmatch(msg); m != nil {
		out := "unknown key"
		if s := closest(m[1], keysOf[m[2]]); s != "" {
			out += " (did you mean " + s + "?)"
		}
		return out
	}
	m := cannotDecode.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	tag, val, into := m[1], m[2], m[3]
	got := map[string]string{"!!seq": "a list", "!!map": "a map", "!!str": "text", "!!int": "a whole number",
		"!!float": "a number", "!!bool": "true or false", "!!null": "nothing"}[tag]
	if val != "" {
		got = "`" + val + "`"
	}
	var want string
	switch {
	case into == "time.Duration":
		want = "a duration such as 30s, 5m or 2h"
	case strings.HasPrefix(into, "int") || strings.HasPrefix(into, "uint"):
		want = "a whole number"
	case strings.HasPrefix(into, "float"):
		want = "a number"
	case into == "bool":
		want = "true or false"
	case into == "string":
		want = "a single value"
	case strings.HasPrefix(into, "[]"):
		want = "a list, such as [a, b]"
	case strings.HasPrefix(into, "map["):
		want = "a map of key: value"
	case keysOf[into] != nil:
		want = "a section of keys (" + strings.Join(keysOf[into], ", ") + ")"
	default:
		return msg
	}
	return "got " + got + ", want " + want
}

// closest is the key a typo most likely meant: the same letters in another case, or within
// two edits; "" when nothing is that close.
func closest(typo string, keys []string) string {
	best, bestD := "", 3
	for _, k := range keys {
		if strings.EqualFold(k, typo) {
			return k
		}
		if d := editDistance(typo, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is Levenshtein's distance between two short keys.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
