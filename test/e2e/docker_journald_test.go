package e2e

import (
	"testing"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
	"github.com/specwatch/specwatch/internal/testkit/testpodman"
)

// TestDockerJournaldTwoContainers is TestPodmanJournaldTwoContainers with Debian's docker.io:
// dockerd's own journald log driver (it sends, not a conmon) into a private journald, with
// the fields Docker documents for it: CONTAINER_NAME, CONTAINER_ID (short), CONTAINER_ID_FULL,
// CONTAINER_TAG and SYSLOG_IDENTIFIER (the tag), IMAGE_NAME.
func TestDockerJournaldTwoContainers(t *testing.T) {
	j := testjournal.Start(t)
	d := testpodman.StartDocker(t, j.SocketDir())
	image := d.ImportImage(testharness.BuildStatic(t))
	bin := testharness.BuildSpecwatch(t)
	engines := twoEngines(func(base string) string { return base + "-docker" })
	ids := map[string]string{}
	for _, e := range engines {
		e.stdout, ids[e.name] = d.Run(testpodman.Run{Image: image, Name: e.name, LogDriver: "journald",
			LogOpts: []string{"tag=sglang"}, Args: e.args})
	}
	checkJournaldContainers(t, j, bin, engines, func(e *engine) map[string]string {
		return map[string]string{"CONTAINER_ID_FULL": ids[e.name], "CONTAINER_ID": ids[e.name][:12],
			"IMAGE_NAME": image, "SYSLOG_IDENTIFIER": "sglang"}
	})
}
