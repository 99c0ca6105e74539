package file

import (
	"path/filepath"

	"github.com/specwatch/specwatch/ingest/containerlog"
)

// Patterns are filepath.Match patterns on a container's identity.
type Patterns struct {
	Containers, Images, Namespaces, Pods []string
}

// Filter is a discovery preset's choice of containers: with Include lists, a container must
// match a pattern of every non-empty list; then one matching any Exclude pattern is dropped.
// The zero Filter accepts everything.
type Filter struct {
	Include, Exclude Patterns
}

// Accept applies the filter to a container's identity.
func (f Filter) Accept(m containerlog.Meta) bool {
	fields := func(p Patterns) [4]struct {
		pats []string
		v    string
	} {
		return [4]struct {
			pats []string
			v    string
		}{{p.Containers, m.Container}, {p.Images, m.Image}, {p.Namespaces, m.Namespace}, {p.Pods, m.Pod}}
	}
	for _, c := range fields(f.Include) {
		if len(c.pats) > 0 && !anyMatch(c.pats, c.v) {
			return false
		}
	}
	for _, c := range fields(f.Exclude) {
		if anyMatch(c.pats, c.v) {
			return false
		}
	}
	return true
}

func anyMatch(pats []string, v string) bool {
	for _, p := range pats {
		if ok, _ := filepath.Match(p, v); ok {
			return true
		}
	}
	return false
}
