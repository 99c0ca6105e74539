package deploy

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// TestKubernetesManifests runs deploy/kubernetes/check, a module of its own so that this one
// does not depend on k8s.io/api: every manifest decoded strictly into the Kubernetes API's Go
// types and checked against the others (selectors, ports, mounts, the security context).
func TestKubernetesManifests(t *testing.T) {
	r := testharness.RunCmd(t, 5*time.Minute, testharness.DeployPath(t, "kubernetes", "check"), nil, "go", "test", "-count=1", "./...")
	if r.Code != 0 || r.Err != nil {
		t.Fatalf("go test in deploy/kubernetes/check: exit %d %v\n%s", r.Code, r.Err, r.Output())
	}
}

// TestKubernetesConfig: the ConfigMap's specwatch.yaml passes `specwatch check-config`.
func TestKubernetesConfig(t *testing.T) {
	data, err := os.ReadFile(testharness.DeployPath(t, "kubernetes", "10-configmap.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cm struct {
		Data map[string]string `yaml:"data"`
	}
	if err := yaml.Unmarshal(data, &cm); err != nil {
		t.Fatalf("10-configmap.yaml: %v", err)
	}
	cfg, ok := cm.Data["specwatch.yaml"]
	if !ok {
		t.Fatal("10-configmap.yaml has no specwatch.yaml")
	}
	path := filepath.Join(t.TempDir(), "specwatch.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	r := testharness.RunCmd(t, time.Minute, "", nil, testharness.BuildSpecwatch(t), "check-config", path)
	if r.Code != 0 || r.Err != nil {
		t.Fatalf("specwatch check-config of the ConfigMap's config: exit %d %v\n%s", r.Code, r.Err, r.Output())
	}
}
