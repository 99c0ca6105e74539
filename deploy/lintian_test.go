package deploy

import (
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// knownLintian are the lintian tags still open, each with the reason; every other error or
// warning fails the test. None is open.
var knownLintian = map[string]string{}

// lintianClean runs Debian's lintian on the package and fails on any error or warning that is
// not listed in knownLintian; a listed tag that no longer appears fails too, so the list
// shrinks with the fixes.
func lintianClean(t *testing.T, deb string) {
	t.Helper()
	lintian := testharness.NeedTool(t, "lintian", "lintian")
	r := testharness.RunCmd(t, 5*time.Minute, "", nil, lintian, "--fail-on", "none", "--no-tag-display-limit", deb)
	if r.Err != nil {
		t.Fatalf("lintian %s: %v\n%s", deb, r.Err, r.Output())
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(r.Stdout, "\n") {
		// "E: specwatch: tag [context]"; N: lines are notes, I: information, P: pedantic.
		sev, rest, ok := strings.Cut(line, ": ")
		if !ok || (sev != "E" && sev != "W") {
			continue
		}
		_, tagAndCtx, _ := strings.Cut(rest, ": ")
		tag, _, _ := strings.Cut(tagAndCtx, " ")
		seen[tag] = true
		if _, known := knownLintian[tag]; !known {
			t.Errorf("lintian: %s", line)
		}
	}
	for tag, why := range knownLintian {
		if !seen[tag] {
			t.Errorf("lintian no longer reports %s (%s): remove it from knownLintian", tag, why)
		}
	}
}
