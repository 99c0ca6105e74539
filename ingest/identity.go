package ingest

import (
	"path/filepath"
	"strings"
)

// Identity is what names an input's series where its lines and entries name nothing: a plain
// file's path gives the unit, an operator's labels the rest (analyze --label).
type Identity struct {
	Host, Unit, Container, Namespace, Pod string
}

// compressedSuffixes are the extensions a rotator's compression adds.
var compressedSuffixes = []string{".gz", ".zst", ".xz", ".lz4", ".bz2"}

// RotatedBase is the live file a rotated sibling belongs to, so that engine.log.1,
// engine.log.2.gz and engine.log-20261120.gz join engine.log: path without a compression
// suffix, then without logrotate's numbered (".N" up to three digits, after a log's extension or
// a name without one) or dated ("-YYYYMMDD", "-YYYYMMDDHH", "-YYYY-MM-DD") suffix.
func RotatedBase(path string) string {
	dir, name := filepath.Split(path)
	for _, c := range compressedSuffixes {
		if s, ok := strings.CutSuffix(name, c); ok && s != "" {
			name = s
			break
		}
	}
	if i := strings.LastIndexByte(name, '.'); i > 0 && len(name)-i <= 4 && allDigits(name[i+1:]) {
		base := name[:i]
		switch ext := filepath.Ext(base); ext {
		case "", ".log", ".txt", ".out", ".err":
			return dir + base
		}
	}
	for _, f := range []struct {
		n      int
		dashed bool
	}{{len("-20261120"), false}, {len("-2026112013"), false}, {len("-2026-11-20"), true}} {
		i := len(name) - f.n
		if i <= 0 || name[i] != '-' {
			continue
		}
		d := name[i+1:]
		if f.dashed {
			if d[4] != '-' || d[7] != '-' {
				continue
			}
			d = d[:4] + d[5:7] + d[8:]
		}
		if allDigits(d) && strings.HasPrefix(d, "20") {
			return dir + name[:i]
		}
	}
	return dir + name
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
