package deploy

import (
	"os/exec"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// goTool is the go command on PATH (the one that runs these tests, in practice).
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skip("SKIP: no go command on PATH to run deploy/mixin with")
	}
	return p
}

// TestMixinRendered: deploy/prometheus/*.yml and deploy/grafana/*.json are what deploy/mixin
// renders from its config and sources (nobody edits an output by hand), the rendered
// dashboards pass dashboard-linter's rules, and the generator's own tests pass. The mixin is
// a module of its own (Prometheus' PromQL parser stays out of the daemon's go.mod), so it runs
// through the go command.
func TestMixinRendered(t *testing.T) {
	t.Parallel()
	goCmd := goTool(t)
	dir := testharness.DeployPath(t, "mixin")
	r := testharness.RunCmd(t, 5*time.Minute, dir, nil, goCmd, "run", ".", "-check")
	if r.Err != nil || r.Code != 0 {
		t.Fatalf("go -C deploy/mixin run . -check: exit %d %v\n%s", r.Code, r.Err, r.Output())
	}
	r = testharness.RunCmd(t, 5*time.Minute, dir, nil, goCmd, "test", "-count=1", "./...")
	if r.Err != nil || r.Code != 0 {
		t.Fatalf("go test in deploy/mixin: exit %d %v\n%s", r.Code, r.Err, r.Output())
	}
	t.Log(r.Output())
}
