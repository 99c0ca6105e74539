package journal

import (
	"slices"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal/internal/journaltest"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// TestMangleUnit: unit names are completed as `journalctl -u` completes them.
func TestMangleUnit(t *testing.T) {
	for in, want := range map[string]string{
		"sglang-ddtree":         "sglang-ddtree.service",
		"sglang-ddtree.service": "sglang-ddtree.service",
		"vllm@0":                "vllm@0.service",
		"engine.v2":             "engine.v2.service", // ".v2" is no unit type
		"docker.socket":         "docker.socket",
		"user-1000.slice":       "user-1000.slice",
		"sglang*":               "sglang*", // a glob stays as it is
		".service":              ".service.service",
	} {
		if got := MangleUnit(in); got != want {
			t.Errorf("MangleUnit(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestUnitCompletion: `--journal.unit sglang-ddtree` reads sglang-ddtree.service's entries (it
// read none: the journal has no unit named without its suffix), and Empty names the typo, not
// the unit that only lacked its suffix.
func TestUnitCompletion(t *testing.T) {
	dir := t.TempDir()
	journaltest.Aged(t, testjournal.BuildFileFunc(t, dir, 20, journaltest.Lines(0, 20, "sglang-ddtree.service")))
	journalBackends(t, func(t *testing.T, b Backend) {
		src := openJ(t, Options{Dir: dir, Backend: b, Units: []string{"sglang-ddtree"}, Start: Head(), NoFollow: true})
		var e ingest.Entry
		n := 0
		for {
			ok, err := src.Next(&e, time.Second)
			if err != nil || !ok {
				break
			}
			n++
		}
		if n != 20 {
			t.Errorf("read %d entries of sglang-ddtree.service through --journal.unit sglang-ddtree, want 20", n)
		}
		units, ids, err := Empty(Options{Dir: dir, Backend: b, Units: []string{"sglang-ddtree", "sglan-ddtree"},
			Identifiers: []string{"nothing-here"}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(units, []string{"sglan-ddtree.service"}) || !slices.Equal(ids, []string{"nothing-here"}) {
			t.Errorf("Empty: units %q, identifiers %q; want [sglan-ddtree.service], [nothing-here]", units, ids)
		}
	})
}
