package journal

import (
	"errors"
	"io"
	"strings"
	"time"

	"github.com/specwatch/specwatch/ingest"
)

// unitTypes are systemd's unit type suffixes (systemd's unit_type_table).
var unitTypes = []string{".service", ".socket", ".target", ".device", ".mount", ".automount", ".swap",
	".timer", ".path", ".slice", ".scope"}

// MangleUnit completes a unit name as `journalctl -u` does (systemd's unit_name_mangle): a
// name without a unit type suffix gets ".service", so that `--journal.unit sglang-ddtree`
// selects what `journalctl -u sglang-ddtree` shows instead of nothing. A glob is left as it
// is, as journalctl leaves it.
func MangleUnit(name string) string {
	if name == "" || strings.ContainsAny(name, "*?[") {
		return name
	}
	for _, t := range unitTypes {
		if strings.HasSuffix(name, t) && len(name) > len(t) {
			return name
		}
	}
	return name + ".service"
}

func mangleUnits(units []string) []string {
	out := make([]string, len(units))
	for i, u := range units {
		out[i] = MangleUnit(u)
	}
	return out
}

// maxProbe bounds how long Empty waits for one match's first entry.
const maxProbe = 5 * time.Second

// Empty returns the units and identifiers of o that select no entry in the whole journal
// (from its head): a typo, or a service that has never logged there. Each is probed on its
// own, with o's directory, namespace and backend; containers are not applied.
func Empty(o Options) (units, identifiers []string, err error) {
	probe := func(u, id []string) (bool, error) {
		p := o
		p.Units, p.Identifiers, p.Containers = u, id, nil
		p.Start, p.NoFollow, p.Warn = Head(), true, nil
		src, err := Open(p)
		if err != nil {
			return false, err
		}
		defer src.Close()
		var e ingest.Entry
		for deadline := time.Now().Add(maxProbe); time.Now().Before(deadline); {
			ok, err := src.Next(&e, 100*time.Millisecond)
			switch {
			case ok:
				return true, nil
			case errors.Is(err, io.EOF):
				return false, nil
			case err != nil:
				return false, err
			}
		}
		return true, nil // undecided within the bound: not reported as empty
	}
	for _, u := range o.Units {
		found, err := probe([]string{u}, nil)
		if err != nil {
			return nil, nil, err
		}
		if !found {
			units = append(units, MangleUnit(u))
		}
	}
	for _, id := range o.Identifiers {
		found, err := probe(nil, []string{id})
		if err != nil {
			return nil, nil, err
		}
		if !found {
			identifiers = append(identifiers, id)
		}
	}
	return units, identifiers, nil
}
