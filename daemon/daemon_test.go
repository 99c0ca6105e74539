package daemon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/daemon"
	"github.com/specwatch/specwatch/internal/testkit/testproc"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/sim"
)

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// eventually polls cond every 20 ms for up to 30 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30 s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRunInProcess: a daemon built as a library follows a file created after its first scan,
// applies every engine line of it exactly once, exports the follower's own counters, holds its
// state directory against a second daemon, takes a reload (naming the key that needs a
// restart) and returns nil when its context ends, releasing the directory.
func TestRunInProcess(t *testing.T) {
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Listen, cfg.StateDir, cfg.Files = "127.0.0.1:0", filepath.Join(dir, "state"), []string{filepath.Join(dir, "*.log")}
	var logs testproc.SyncBuffer
	o := daemon.Options{Config: cfg, Log: zerolog.New(&logs), Live: true, Follow: true, Title: "test"}
	d, err := daemon.New(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := daemon.New(o); err == nil || !strings.Contains(err.Error(), cfg.StateDir) {
		t.Errorf("a second daemon on the same state directory: %v, want the lock's error naming it", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	base := "http://" + d.Addr()
	// A file there before the first scan of a first start is started at its end; one created
	// after it is read from its start.
	eventually(t, "the first scan", func() bool {
		return strings.Contains(get(t, base+"/metrics"), "specwatch_file_watched_files 0")
	})
	var data bytes.Buffer
	sum, err := sim.Generate(sim.Mixed(3, 3000), &data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "engine.log"), data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var rep model.Report
	eventually(t, fmt.Sprintf("%d engine lines applied", sum.EngineLines), func() bool {
		if err := json.Unmarshal([]byte(get(t, base+"/api/v1/report")), &rep); err != nil {
			t.Fatal(err)
		}
		return rep.Input.Lines == int64(sum.Lines)
	})
	if rep.Input.Samples != int64(sum.EngineLines) || rep.Input.Malformed != 0 || len(rep.Series) == 0 {
		t.Errorf("%d samples, %d malformed, %d series; the simulator wrote %d engine lines", rep.Input.Samples,
			rep.Input.Malformed, len(rep.Series), sum.EngineLines)
	}
	// The follower publishes its counters at most every 250 ms while lines flow, and once idle.
	want := fmt.Sprintf("specwatch_file_read_bytes_total %d", data.Len())
	eventually(t, want, func() bool { return strings.Contains(get(t, base+"/metrics"), want) })

	next := cfg
	next.Listen = "127.0.0.1:1"
	d.Reload(next)
	if m := get(t, base+"/metrics"); !strings.Contains(m, "specwatch_config_last_reload_successful 1") ||
		!strings.Contains(logs.String(), `"keys":["listen"]`) {
		t.Errorf("after a reload changing the listen address: log %s", logs.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run after its context ended: %v", err)
	}
	d.Close()
	d2, err := daemon.New(o)
	if err != nil {
		t.Fatalf("a daemon after the first closed: %v", err)
	}
	d2.Close()
}
