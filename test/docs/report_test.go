package docs

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata from the current binary")

// reportCases run `specwatch analyze` on testdata/demo.log.gz, the demo's three simulated
// hours as `specwatch simulate --preset demo --seed 1 | gzip -9n` wrote them (the same report
// as `specwatch demo --once --format json`), and compare with testdata/<name>.json.
var reportCases = []struct {
	name string
	args []string
}{
	{"demo", []string{"analyze", "--format", "json", "--timezone", "UTC", "testdata/demo.log.gz"}},
	// A time range: samples outside it are counted in input.out_of_range.
	{"demo-until", []string{"analyze", "--format", "json", "--timezone", "UTC", "--until", "2026-11-20T11:00:00Z", "testdata/demo.log.gz"}},
}

// TestReportGolden pins the JSON report: analyze's output must equal the golden file byte for
// byte (go test ./test/docs -run TestReportGolden -update rewrites it), and every key of it,
// every verdict and every anomaly kind it holds must be documented in docs/report.md.
func TestReportGolden(t *testing.T) {
	bin := specwatch(t)
	for _, c := range reportCases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, c.args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			got, err := cmd.Output()
			if err != nil {
				t.Fatalf("specwatch %s: %v\n%s", strings.Join(c.args, " "), err, stderr.Bytes())
			}
			golden := filepath.Join("testdata", c.name+".json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("specwatch %s differs from %s at line %d:\n got: %s\nwant: %s\n(if the change is meant, run with -update, and update docs/report.md and CHANGELOG.md)",
					strings.Join(c.args, " "), golden, firstDiff(got, want), lineAt(got, firstDiff(got, want)), lineAt(want, firstDiff(got, want)))
			}
			checkReportKeys(t, golden, want)
		})
	}
}

// checkReportKeys requires every key path of a JSON report (series[].step_model.fixed_ms), its
// verdicts, anomaly kinds and severities to be in docs/report.md, in backquotes.
func checkReportKeys(t *testing.T, what string, report []byte) {
	t.Helper()
	doc := readDoc(t, "docs/report.md")
	var v any
	if err := json.Unmarshal(report, &v); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	paths := map[string]bool{}
	keyPaths(v, "", paths)
	if len(paths) < 30 {
		t.Fatalf("%s: only %d keys: %v", what, len(paths), paths)
	}
	var missing []string
	for p := range paths {
		if !strings.Contains(doc, "`"+p+"`") {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	for _, p := range missing {
		t.Errorf("%s has key %s, not documented in docs/report.md (as `%s`)", what, p, p)
	}
	rep, _ := v.(map[string]any)
	series, _ := rep["series"].([]any)
	for _, s := range series {
		se, _ := s.(map[string]any)
		if verdict, _ := se["verdict"].(string); verdict != "" && !strings.Contains(doc, "`"+verdict+"`") {
			t.Errorf("%s: verdict %q is not documented in docs/report.md", what, verdict)
		}
		anoms, _ := se["anomalies"].([]any)
		for _, a := range anoms {
			am, _ := a.(map[string]any)
			for _, k := range []string{"kind", "severity"} {
				if val, _ := am[k].(string); !strings.Contains(doc, "`"+val+"`") {
					t.Errorf("%s: anomaly %s %q is not documented in docs/report.md", what, k, val)
				}
			}
		}
	}
}

// keyPaths collects the dotted key paths of v; array elements add "[]".
func keyPaths(v any, prefix string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out[p] = true
			keyPaths(e, p, out)
		}
	case []any:
		for _, e := range x {
			keyPaths(e, prefix+"[]", out)
		}
	}
}

// firstDiff is the 1-based line where a and b first differ.
func firstDiff(a, b []byte) int {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(la) && i < len(lb); i++ {
		if !bytes.Equal(la[i], lb[i]) {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

func lineAt(b []byte, n int) string {
	lines := bytes.Split(b, []byte("\n"))
	if n-1 < len(lines) {
		return string(lines[n-1])
	}
	return "(end of file)"
}
