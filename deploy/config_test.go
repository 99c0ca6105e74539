package deploy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/model"
)

// configKeys parses config/config.go and returns every dotted YAML key of Config
// ("journal.units", "model.window", …), following nested struct types declared in that file.
func configKeys(t *testing.T) []string {
	t.Helper()
	path := filepath.Join(testharness.RepoRoot(t), "config", "config.go")
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	structs := map[string]*ast.StructType{}
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok {
			if st, ok := ts.Type.(*ast.StructType); ok {
				structs[ts.Name.Name] = st
			}
		}
		return true
	})
	root, ok := structs["Config"]
	if !ok {
		t.Fatalf("%s: no Config struct", path)
	}
	var keys []string
	var walk func(prefix string, st *ast.StructType)
	walk = func(prefix string, st *ast.StructType) {
		for _, fld := range st.Fields.List {
			if fld.Tag == nil {
				continue
			}
			tag, err := strconv.Unquote(fld.Tag.Value)
			if err != nil {
				t.Fatal(err)
			}
			name, opts, _ := strings.Cut(reflect.StructTag(tag).Get("yaml"), ",")
			if id, ok := fld.Type.(*ast.Ident); ok && name == "" && opts == "inline" && structs[id.Name] != nil {
				walk(prefix, structs[id.Name]) // an embedded struct's keys are its parent's
				continue
			}
			if name == "" || name == "-" {
				continue
			}
			key := name
			if prefix != "" {
				key = prefix + "." + name
			}
			keys = append(keys, key)
			switch ft := fld.Type.(type) {
			case *ast.Ident: // a nested section: journal, push, model, …
				if sub, ok := structs[ft.Name]; ok {
					walk(key, sub)
				}
			case *ast.ArrayType: // a list of structs (rules): its keys are "rules[].name"
				if id, ok := ft.Elt.(*ast.Ident); ok {
					if sub, ok := structs[id.Name]; ok {
						walk(key+"[]", sub)
					}
				}
			}
		}
	}
	walk("", root)
	if len(keys) < 10 {
		t.Fatalf("only %d keys found in %s: %v", len(keys), path, keys)
	}
	return keys
}

// exampleConfig is deploy/specwatch.yaml decoded into generic maps.
func exampleConfig(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile(testharness.DeployPath(t, "specwatch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func lookup(m map[string]any, dotted string) (any, bool) {
	var cur any = m
	for _, k := range strings.Split(dotted, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// TestExampleConfigHasEveryKey: every key of the Config struct is set in the example (so the
// file documents it), and nothing else is.
func TestExampleConfigHasEveryKey(t *testing.T) {
	t.Parallel()
	keys := configKeys(t)
	cfg := exampleConfig(t)
	text, _ := os.ReadFile(testharness.DeployPath(t, "specwatch.yaml"))
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
		if list, field, ok := strings.Cut(k, "[]."); ok {
			// Keys of list elements (rules[].match) are set in the commented example, which
			// TestExampleConfigChecks loads.
			if _, ok := lookup(cfg, list); !ok {
				t.Errorf("deploy/specwatch.yaml lacks the key %s", list)
			}
			if !regexp.MustCompile(`(?m)^#\s+(- )?` + regexp.QuoteMeta(field) + `:`).Match(text) {
				t.Errorf("deploy/specwatch.yaml does not show %s in its commented example", k)
			}
			continue
		}
		if _, ok := lookup(cfg, k); !ok {
			t.Errorf("deploy/specwatch.yaml lacks the key %s (config/config.go)", k)
		}
	}
	// The reverse: keys in the file that the struct does not have (strict decoding would fail;
	// check-config below says so too, this names them).
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			if !want[key] {
				t.Errorf("deploy/specwatch.yaml has %s, which config/config.go does not know", key)
				continue
			}
			if sub, ok := v.(map[string]any); ok && !strings.HasSuffix(key, "labels") && key != "aliases" {
				walk(key, sub)
			}
		}
	}
	walk("", cfg)
	sort.Strings(keys)
	t.Logf("%d config keys checked: %s", len(keys), strings.Join(keys, " "))
}

// TestExampleConfigModelDefaults: the model thresholds written in the example are the model's
// defaults, so the file behaves like no file and its comments stay true.
func TestExampleConfigModelDefaults(t *testing.T) {
	t.Parallel()
	cfg := exampleConfig(t)
	num := func(key string) float64 {
		v, ok := lookup(cfg, "model."+key)
		if !ok {
			t.Errorf("model.%s missing", key)
			return 0
		}
		switch x := v.(type) {
		case int:
			return float64(x)
		case float64:
			return x
		case string:
			d, err := time.ParseDuration(x)
			if err != nil {
				t.Errorf("model.%s: %v", key, err)
			}
			return float64(d)
		}
		t.Errorf("model.%s: unexpected %T", key, v)
		return 0
	}
	for key, def := range map[string]float64{
		"max_series": model.DefaultMaxSeries, "decode_log_interval": model.DefaultDecodeLogInterval,
		"idle_factor": model.DefaultIdleFactor, "stuck_samples": model.DefaultStuckSamples,
		"inconsistent_samples": model.DefaultInconsistentSamples, "depth_tolerance": model.DefaultDepthTolerance,
		"tps_tolerance": model.DefaultTPSTolerance, "window": model.DefaultWindow,
		"drop_min_effect": model.DefaultDropMinEffect, "regression_min_effect": model.DefaultRegressionMinEffect,
		"collapse_ratio": model.DefaultCollapseRatio, "collapse_samples": model.DefaultCollapseSamples,
		"stale_after": float64(model.DefaultStaleAfter), "speculation_off_after": float64(model.DefaultSpecOffAfter),
	} {
		if got := num(key); got != def {
			t.Errorf("model.%s = %v in deploy/specwatch.yaml, the model's default is %v", key, got, def)
		}
	}
	fc, _ := lookup(cfg, "model.forecast_contexts")
	var got []int
	if l, ok := fc.([]any); ok {
		for _, v := range l {
			n, _ := v.(int)
			got = append(got, n)
		}
	}
	if !reflect.DeepEqual(got, model.DefaultForecastContexts) {
		t.Errorf("model.forecast_contexts = %v, the model's default is %v", got, model.DefaultForecastContexts)
	}
}

// TestExampleConfigChecks: `specwatch check-config` accepts the example exactly as shipped.
func TestExampleConfigChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds specwatch")
	}
	t.Parallel()
	bin := testharness.BuildSpecwatch(t)
	path := testharness.DeployPath(t, "specwatch.yaml")
	r := testharness.RunCmd(t, time.Minute, "", nil, bin, "check-config", path)
	if r.Err != nil || r.Code != 0 || !strings.Contains(r.Stdout, "OK") {
		t.Fatalf("specwatch check-config %s: exit %d %v\n%s", path, r.Code, r.Err, r.Output())
	}
	// The commented rules and scrape examples load too, uncommented.
	b, _ := os.ReadFile(path)
	for _, key := range []string{"rules:", "scrape:"} {
		example := commentedExample(string(b), key)
		if example == "" {
			t.Fatalf("no commented %s example in deploy/specwatch.yaml", key)
		}
		ex := filepath.Join(t.TempDir(), "example.yaml")
		os.WriteFile(ex, []byte(example), 0o644)
		r = testharness.RunCmd(t, time.Minute, "", nil, bin, "check-config", ex)
		if r.Err != nil || r.Code != 0 {
			t.Errorf("the commented %s example does not load: exit %d\n%s\n%s", key, r.Code, example, r.Output())
		}
	}

	// Strict decoding is what makes the key check above meaningful: a misspelt key fails.
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte(strings.Replace(string(b), "  stuck_samples:", "  stuck_sample:", 1)), 0o644)
	r = testharness.RunCmd(t, time.Minute, "", nil, bin, "check-config", bad)
	if r.Code == 0 || !strings.Contains(r.Output(), "stuck_sample") {
		t.Errorf("a misspelt key passed check-config: exit %d\n%s", r.Code, r.Output())
	}
}

// commentedExample returns the commented YAML block that starts with "#   <head>" (the head line
// and the lines indented below it), uncommented.
func commentedExample(text, head string) string {
	var out []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		body, ok := strings.CutPrefix(line, "#   ")
		switch {
		case !in && ok && body == head:
			in = true
			out = append(out, body)
		case in && ok && strings.HasPrefix(body, "  "):
			out = append(out, body)
		case in:
			return strings.Join(out, "\n") + "\n"
		}
	}
	return ""
}
