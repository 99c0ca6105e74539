package file

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// events records a Source's events with the follower's clock.
type eventLog struct {
	f   *follower
	got []Event
	at  []time.Duration // since the log's start
	t0  time.Time
}

func (l *eventLog) add(e Event) { l.got = append(l.got, e); l.at = append(l.at, l.f.now.Sub(l.t0)) }

func (l *eventLog) kinds() []EventKind {
	var k []EventKind
	for _, e := range l.got {
		k = append(k, e.Kind)
	}
	return k
}

func denied(path string) error { return &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES} }

// TestOpenBackoff: a file that matches but cannot be opened (EACCES, injected: the tests run
// as root in CI) is retried after 1, 2, 4 … s up to a minute, not at every scan; the first
// failure is an event, then one a minute with the count of attempts since; the source is Down
// (it can read nothing) until the file opens, which is one event. Driven scan by scan on the
// injected clock. Before, every scan (every second) warned "cannot open a log file; will retry".
func TestOpenBackoff(t *testing.T) {
	var log eventLog
	var attempts []time.Duration
	locked := true
	f := followIn(t, Options{
		Event: func(e Event) { log.add(e) },
		Open: func(path string) (*os.File, os.FileInfo, error) {
			attempts = append(attempts, log.f.now.Sub(log.t0))
			if locked {
				return nil, nil, denied(path)
			}
			return openFile(path)
		},
	}, "*.log")
	log.f, log.t0 = f, f.now
	f.write("engine.log", 1, 3)
	for i := 0; i <= 2*190; i++ { // a scan every 500 ms for 190 s
		f.src.scan(f.now)
		f.now = f.now.Add(500 * time.Millisecond)
	}
	s := time.Second
	want := []time.Duration{0, 1 * s, 3 * s, 7 * s, 15 * s, 31 * s, 63 * s, 123 * s, 183 * s}
	if !equalDurations(attempts, want) {
		t.Errorf("attempts at %v, want %v", attempts, want)
	}
	if k := log.kinds(); len(k) != 5 || k[0] != OpenFailed || k[1] != Down || k[2] != StillFailing || k[3] != StillFailing || k[4] != StillFailing {
		t.Fatalf("events %v (%+v), want OpenFailed, Down, then StillFailing at 63, 123 and 183 s", k, log.got)
	}
	first, down, still := log.got[0], log.got[1], log.got[2]
	if first.Reason != ReasonPermissionDenied || first.Path != f.path("engine.log") || log.at[0] != 0 {
		t.Errorf("first failure %+v at %v", first, log.at[0])
	}
	if !strings.Contains(down.Why, "no file can be opened: open "+f.path("engine.log")+": permission denied") {
		t.Errorf("down: %q", down.Why)
	}
	// 1, 3, 7, 15, 31 and 63 s: six attempts in the minute after the first line, then one a minute.
	if still.Failures != 6 || still.Since != 63*s || log.at[2] != 63*s || log.got[3].Failures != 1 || log.at[3] != 123*s || log.at[4] != 183*s {
		t.Errorf("still failing: %+v at %v, then %+v at %v", still, log.at[2], log.got[3], log.at[3])
	}
	locked = false
	log.got, log.at = nil, nil
	for f.now.Sub(log.t0) <= 250*s {
		f.src.scan(f.now)
		f.now = f.now.Add(500 * time.Millisecond)
	}
	if k := log.kinds(); len(k) != 2 || k[0] != OpenRecovered || k[1] != Up || log.at[0] != 243*s || log.got[0].Failures != 9 {
		t.Errorf("after the file became readable: %v %+v at %v, want OpenRecovered (9 failures) at 243s, then Up", k, log.got, log.at)
	}
	f.drain()
	if len(f.lines) != 3 {
		t.Errorf("read %d lines once open, want 3", len(f.lines))
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGlobMatchesNothing: a typo'd glob's directory does not exist, and a glob in a directory
// that cannot be listed (0700 of another user: as root, the listing's EACCES is injected)
// matches nothing: each is an event with its reason and the source is Down, until files match.
// A glob whose directory holds no match yet (no container, an engine not started) is an event
// but not Down. Before, Glob ignored all three silently.
func TestGlobMatchesNothing(t *testing.T) {
	t.Run("typo", func(t *testing.T) {
		var log eventLog
		f := followIn(t, Options{Event: func(e Event) { log.add(e) }}, "sglan/*.log")
		log.f, log.t0 = f, f.now
		f.src.scan(f.now)
		if k := log.kinds(); len(k) != 2 || k[0] != GlobEmpty || k[1] != Down || log.got[0].Reason != ReasonNotFound ||
			log.got[0].Glob != f.path("sglan/*.log") || !strings.Contains(log.got[1].Why, "sglan/*.log matches nothing") {
			t.Fatalf("events %v %+v", k, log.got)
		}
		f.src.scan(f.now.Add(time.Second))
		if len(log.got) != 2 {
			t.Fatalf("the same state again was an event: %+v", log.got[2:])
		}
		must(t, os.Mkdir(f.path("sglan"), 0o755))
		f.write("sglan/a.log", 1, 1)
		f.src.scan(f.now.Add(2 * time.Second))
		if k := log.kinds(); len(k) != 4 || k[2] != GlobMatches || k[3] != Up {
			t.Fatalf("events once a file matches: %v %+v", k, log.got)
		}
	})
	t.Run("unlistable directory", func(t *testing.T) {
		var log eventLog
		o := Options{Event: func(e Event) { log.add(e) }}
		dir := t.TempDir()
		private := filepath.Join(dir, "private")
		must(t, os.Mkdir(private, 0o700))
		must(t, os.WriteFile(filepath.Join(private, "engine.log"), []byte("line\n"), 0o644))
		if os.Geteuid() == 0 {
			o.Probe = func(d string) error {
				if d == private {
					return denied(d)
				}
				return probeDir(d)
			}
			o.Open = func(path string) (*os.File, os.FileInfo, error) {
				if filepath.Dir(path) == private {
					return nil, nil, denied(path)
				}
				return openFile(path)
			}
		} else {
			must(t, os.Chmod(private, 0o300)) // no listing; not root: the kernel refuses
			t.Cleanup(func() { os.Chmod(private, 0o700) })
		}
		o.Globs = []string{filepath.Join(private, "*.log")}
		f := newFollower(t, dir, o)
		log.f, log.t0 = f, f.now
		if os.Geteuid() == 0 {
			// The injected listing failure stands for the kernel's: Glob would list the
			// directory as root, so the test's glob must not see the file either.
			must(t, os.Rename(filepath.Join(private, "engine.log"), filepath.Join(private, "engine.log.hidden")))
		}
		f.src.scan(f.now)
		if k := log.kinds(); len(k) != 2 || k[0] != GlobEmpty || k[1] != Down || log.got[0].Reason != ReasonPermissionDenied ||
			!strings.Contains(log.got[1].Why, "permission denied") {
			t.Fatalf("events %v %+v", k, log.got)
		}
	})
	t.Run("nothing yet", func(t *testing.T) {
		var log eventLog
		dir := t.TempDir()
		g := filepath.Join(dir, "*", "*-json.log")
		f := newFollower(t, dir, Options{Globs: []string{g}, Event: func(e Event) { log.add(e) }})
		log.f = f
		f.src.scan(f.now)
		if k := log.kinds(); len(k) != 1 || k[0] != GlobEmpty || log.got[0].Err != nil {
			t.Fatalf("events %v %+v, want GlobEmpty without an error, and no Down", k, log.got)
		}
	})
}
