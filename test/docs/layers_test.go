package docs

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/specwatch/specwatch"

// layerRules are docs/architecture.md's "One direction" as checks on the non-test imports:
// a package matching from may import no package matching any of its forbidden prefixes ("*":
// none of the module's).
var layerRules = []struct {
	from, why string
	forbidden []string
}{
	{"exporter", "serves the state, whatever fed it", []string{"ingest", "daemon", "cmd"}},
	{"web", "serves the state, whatever fed it", []string{"ingest", "daemon", "cmd"}},
	{"report", "renders a report", []string{"ingest", "pipeline", "exporter", "web", "daemon", "cmd"}},
	{"sample", "is the vocabulary every stage shares", []string{"*"}},
	{"model", "is fed samples", []string{"ingest", "parse", "pipeline", "exporter", "web", "report", "daemon", "sim", "cmd"}},
	{"parse", "turns lines into samples", []string{"model", "pipeline", "exporter", "web", "report", "daemon", "cmd"}},
	{"ingest", "reads inputs", []string{"parse", "model", "pipeline", "exporter", "web", "report", "daemon", "cmd"}},
	{"pipeline", "feeds the model", []string{"exporter", "web", "report", "daemon", "cmd"}},
	{"config", "builds the libraries' options, under cmd and daemon", []string{"pipeline", "exporter", "web", "report", "daemon", "cmd"}},
}

// TestLayers: no package imports a later stage, no library imports a test kit, and the leaf
// helpers under internal/ import nothing of the project outside internal/.
func TestLayers(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, ok := strings.CutPrefix(f[0], module+"/")
		if !ok {
			continue
		}
		pkgs++
		kit := isTestKit(pkg) || strings.HasPrefix(pkg, "test/") || strings.HasPrefix(pkg, "bench")
		for _, imp := range f[1:] {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if isTestKit(dep) && !kit {
				t.Errorf("%s imports the test kit %s", pkg, dep)
			}
			if strings.HasPrefix(pkg, "internal/") && !kit && !strings.HasPrefix(dep, "internal/") {
				t.Errorf("%s, a leaf helper, imports %s", pkg, dep)
			}
			for _, r := range layerRules {
				if !under(pkg, r.from) {
					continue
				}
				for _, no := range r.forbidden {
					if no == "*" || under(dep, no) {
						t.Errorf("%s imports %s: %s %s", pkg, dep, r.from, r.why)
					}
				}
			}
		}
	}
	if pkgs < 50 {
		t.Fatalf("go list named %d packages of the module, want the whole tree", pkgs)
	}
}

func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

func isTestKit(pkg string) bool {
	return under(pkg, "internal/testkit") || strings.HasSuffix(pkg, "test") && !strings.HasPrefix(pkg, "test/")
}
