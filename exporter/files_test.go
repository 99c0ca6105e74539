package exporter_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/specwatch/specwatch/exporter"
	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/file"
	"github.com/specwatch/specwatch/internal/testkit/testproc"
	"github.com/specwatch/specwatch/pipeline"
)

// untilQuiet ends the live loop once the follower has had nothing new five times in a row (it
// is polled as run polls it: 20 ms waits for a second after a line).
type untilQuiet struct {
	*file.Source
	quiet int
}

func (u *untilQuiet) Next(e *ingest.Entry, wait time.Duration) (bool, error) {
	ok, err := u.Source.Next(e, wait)
	if ok {
		u.quiet = 0
	} else if u.quiet++; u.quiet >= 5 {
		u.quiet = 0
		return false, io.EOF
	}
	return ok, err
}

// TestFileMetrics: the real follower on real files, through the pipeline's live loop into the
// registry, as run wires them: a rename rotation, a truncation in place, a deletion with
// re-creation, a line over the bound and a failed save of the positions, each seen in the
// specwatch_file_* families with its value; the exposition passes promtool check metrics.
func TestFileMetrics(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	store := file.NewStore(state)
	src := file.New(file.Options{Globs: []string{filepath.Join(dir, "*.log")}, Store: store, MaxLineBytes: 64,
		RotateWait: 2 * time.Second, Now: clock, Wait: func(d time.Duration) { now = now.Add(d) }})
	defer src.Close()
	st := pipeline.NewState(pipeline.StateOptions{Live: true, Now: clock})
	p := pipeline.New(st, pipeline.Options{Now: clock})
	m, err := exporter.NewMetrics(exporter.MetricsOptions{Source: st})
	if err != nil {
		t.Fatal(err)
	}
	m.Registry().MustRegister(src) // the follower exports its own counters, as run registers it
	follow := func() {
		t.Helper()
		if err := p.Follow(context.Background(), pipeline.Input{Name: "the file positions", Source: ingest.Poll(&untilQuiet{Source: src}, ingest.PollOptions{Active: 20 * time.Millisecond, Now: clock}), Cursor: store}); err != nil {
			t.Fatal(err)
		}
	}
	written := 0
	write := func(name string, lines ...string) {
		t.Helper()
		w, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		for _, l := range lines {
			n, _ := fmt.Fprintln(w, l)
			written += n
		}
	}
	path := filepath.Join(dir, "engine.log")

	write("engine.log", "one", "two", "three")
	follow()
	if err := os.Rename(path, path+".1"); err != nil { // rename rotation out of the glob
		t.Fatal(err)
	}
	write("engine.log", "four", strings.Repeat("x", 100)) // over the 64-byte bound: dropped
	follow()
	if err := os.Truncate(path, 0); err != nil { // truncated in place
		t.Fatal(err)
	}
	write("engine.log", "five")
	follow()
	if err := os.Remove(path); err != nil { // deleted and re-created
		t.Fatal(err)
	}
	write("engine.log", "six", "seven")
	follow()
	now = now.Add(time.Minute) // the rotated and deleted files are retired
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err) // the loop's two saves fail: after the first entry, and on return
	}
	write("engine.log", "eight")
	follow()

	want := fmt.Sprintf(`
# HELP specwatch_file_watched_files Files followed now: matched by the globs and accepted, open or closed under file_options.max_open, rotated ones still being drained included.
# TYPE specwatch_file_watched_files gauge
specwatch_file_watched_files 1
# HELP specwatch_file_open_files Descriptors of followed files open now (at most file_options.max_open, plus rotated files being drained).
# TYPE specwatch_file_open_files gauge
specwatch_file_open_files 1
# HELP specwatch_file_lag_bytes Bytes written to the followed files but not read as lines yet, from the files' sizes at the last scan (every second).
# TYPE specwatch_file_lag_bytes gauge
specwatch_file_lag_bytes 0
# HELP specwatch_file_read_bytes_total Bytes read from the followed files as lines.
# TYPE specwatch_file_read_bytes_total counter
specwatch_file_read_bytes_total %d
# HELP specwatch_file_rotations_total Rotations of followed files by kind: rename (renamed, inside the globs or out), truncate (truncated in place, copytruncate), recreate (deleted, and a new file under its name).
# TYPE specwatch_file_rotations_total counter
specwatch_file_rotations_total{kind="recreate"} 1
specwatch_file_rotations_total{kind="rename"} 1
specwatch_file_rotations_total{kind="truncate"} 1
# HELP specwatch_file_copies_read_total Truncated files whose copy (copytruncate) was read from where the original was: truncations that lost nothing.
# TYPE specwatch_file_copies_read_total counter
specwatch_file_copies_read_total 0
# HELP specwatch_file_dropped_lines_total Lines of followed files dropped: format (a record not in the file's format), cut (over the line bound, or unfinished at a rotation).
# TYPE specwatch_file_dropped_lines_total counter
specwatch_file_dropped_lines_total{reason="cut"} 1
specwatch_file_dropped_lines_total{reason="format"} 0
# HELP specwatch_file_position_save_failures_total Failed writes of the file positions to state_dir; until one succeeds, a restart resumes from the positions last written.
# TYPE specwatch_file_position_save_failures_total counter
specwatch_file_position_save_failures_total 2
`, written)
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want),
		"specwatch_file_watched_files", "specwatch_file_open_files", "specwatch_file_lag_bytes",
		"specwatch_file_read_bytes_total", "specwatch_file_rotations_total", "specwatch_file_copies_read_total",
		"specwatch_file_dropped_lines_total", "specwatch_file_position_save_failures_total"); err != nil {
		t.Error(err)
	}
	// The two failures are the file positions' own: not journal cursor failures as well (a
	// file-only daemon would fire both save alerts, one of them naming a cursor it has not).
	if s := st.Status(); s.Input.Lines != 8 || s.CursorSaveFailures != 0 {
		t.Errorf("%d lines applied, %d journal cursor save failures; want the 8 short ones and none",
			s.Input.Lines, s.CursorSaveFailures)
	}

	promtool := testproc.NeedBinary(t, "promtool", "prometheus")
	w := httptest.NewRecorder() // the exposition as /metrics serves it
	promhttp.HandlerFor(m.Registry(), promhttp.HandlerOpts{}).ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	text := w.Body
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = text
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
