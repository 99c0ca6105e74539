package soak

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// The soak's faults. Each runs on the test goroutine at a random moment of the replay and
// returns a one-line account of what it did; soak.settle then checks that every decode line is
// counted exactly once (or its loss reported). Faults that must hold the journal still (a
// journald stop, the vacuum of unread entries) pause the writer for the moment they need it.

type fault struct {
	name string
	run  func(s *soak) string
}

var soakFaults = []fault{
	{"sigkill-specwatch", (*soak).faultKill},
	{"journald-restart", (*soak).faultJournaldRestart},
	{"rotate", (*soak).faultRotate},
	{"vacuum", (*soak).faultVacuum},
	{"vacuum-unread", (*soak).faultVacuumUnread},
	{"state-read-only", (*soak).faultStateReadOnly},
	{"state-disk-full", (*soak).faultStateFull},
	{"scrape-storm", (*soak).faultScrapeStorm},
}

// faultKill is SIGKILL at a random moment and a restart (Restart=always, RestartSec=100ms).
func (s *soak) faultKill() string {
	s.sleepRandom(0, 1500*time.Millisecond)
	s.d.Signal(syscall.SIGKILL)
	s.d.Wait()
	time.Sleep(100 * time.Millisecond) // RestartSec
	s.restart()
	return fmt.Sprintf("killed; restarted at sequence number %d", s.inc.start)
}

// faultJournaldRestart stops journald with SIGTERM and starts it again after a random pause,
// while the writer keeps trying. The writer is paused only for the stop itself, after a
// Synchronize, as systemd's socket activation would keep queued datagrams across a restart.
func (s *soak) faultJournaldRestart() string {
	resume := s.w.Pause()
	s.j.Sync()
	s.j.Stop()
	resume()
	before := s.w.retries.Load()
	s.sleepRandom(200*time.Millisecond, 2*time.Second)
	s.j.Restart()
	return fmt.Sprintf("journald down; the writer was refused %d times meanwhile", s.w.retries.Load()-before)
}

func (s *soak) faultRotate() string {
	s.j.Rotate()
	return fmt.Sprintf("%d journal files", len(s.j.Files()))
}

// faultVacuum rotates and deletes all but the newest files, as a retention limit would; the
// reader is at the tail, so only entries it has read are removed.
func (s *soak) faultVacuum() string {
	s.j.Rotate()
	n := len(s.j.Files())
	s.j.Vacuum(4)
	return fmt.Sprintf("%d → %d journal files", n, len(s.j.Files()))
}

// faultVacuumUnread kills specwatch, lets lines arrive that nobody reads, then rotates and
// vacuums every archived file, saved position included. The restarted daemon must resume at
// the next entry still there and report the loss, in its log and in
// specwatch_journal_lost_entries_total, at least as large as what the ledger says vanished.
func (s *soak) faultVacuumUnread() string {
	s.d.Signal(syscall.SIGKILL)
	s.d.Wait()
	saved := s.d.Cursor()
	_, seq, err := cursorSeq(saved)
	if err != nil {
		s.t.Fatalf("vacuum-unread: %v", err)
	}
	s.sleepRandom(300*time.Millisecond, 1500*time.Millisecond) // lines written, unread
	resume := s.w.Pause()
	s.j.Sync()
	if err := s.led.update(); err != nil {
		s.t.Fatal(err)
	}
	s.j.Rotate()
	s.j.Vacuum(1) // only the (new, empty) active file remains
	lost, err := s.led.markVanished(seq)
	if err != nil {
		s.t.Fatal(err)
	}
	resume()
	s.restart()
	s.waitFor("the loss on /metrics", func(body string) bool {
		v, _ := testharness.MetricValue(body, "specwatch_journal_cursor_missing_total", "")
		return v >= 1
	})
	body, _ := s.d.Metrics()
	reported, _ := testharness.MetricValue(body, "specwatch_journal_lost_entries_total", "")
	s.lostDecode += lost
	s.lostReported += int64(reported)
	logged := strings.Contains(testharness.Tail(s.logPath, 20000), "were lost")
	if int64(reported) < int64(lost) || !logged {
		s.t.Errorf("vacuum-unread: %d decode lines vanished unread; specwatch reported %v entries lost, in the log: %v", lost, reported, logged)
	}
	return fmt.Sprintf("%d decode lines vacuumed unread; reported lost: %v journal entries (all units), logged %v", lost, reported, logged)
}

// faultStateReadOnly remounts the state directory read-only for a while: cursor saves fail,
// are counted and logged, and succeed again once it is writable.
func (s *soak) faultStateReadOnly() string {
	return s.stateFault("read-only", func() { s.mount("-o", "remount,ro", s.stateDir) }, func() { s.mount("-o", "remount,rw", s.stateDir) })
}

// faultStateFull fills the state directory's file system for a while.
func (s *soak) faultStateFull() string {
	filler := filepath.Join(s.stateDir, "filler")
	fill := func() {
		f, err := os.Create(filler)
		if err != nil {
			s.t.Fatal(err)
		}
		buf := make([]byte, 64<<10)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					s.t.Fatalf("filling the state directory: %v", err)
				}
				break
			}
		}
		f.Close()
	}
	return s.stateFault("full", fill, func() { os.Remove(filler) })
}

// stateFault breaks the state directory, waits until a cursor save has failed, heals it, and
// waits until the cursor is saved again; it reports how many saves failed.
func (s *soak) stateFault(what string, breakIt, heal func()) string {
	failures := func() float64 {
		body, _ := s.d.Metrics()
		v, _ := testharness.MetricValue(body, "specwatch_cursor_save_failures_total", "")
		return v
	}
	before := failures()
	breakIt()
	s.sleepRandom(1500*time.Millisecond, 5*time.Second)
	s.waitFor("a failed cursor save", func(string) bool { return failures() > before })
	during := failures() - before
	old := s.d.Cursor()
	heal()
	healed := time.Now()
	s.waitFor("the cursor saved again", func(string) bool { return s.d.Cursor() != old })
	return fmt.Sprintf("state dir %s: %v cursor saves failed; saved again %s after it was fixed", what, during, time.Since(healed).Round(10*time.Millisecond))
}

func (s *soak) mount(args ...string) {
	if out, err := exec.Command("mount", args...).CombinedOutput(); err != nil {
		s.t.Fatalf("mount %v: %v: %s", args, err, out)
	}
}

// faultScrapeStorm starts 100 clients looping on /metrics and /api/v1/report for stormFor, in
// the background: the replay and the other faults go on meanwhile. A request fails only while
// specwatch is being restarted (counted apart); any other failure is an error.
func (s *soak) faultScrapeStorm() string {
	st := &storm{done: make(chan struct{})}
	s.storm = st
	stop := time.Now().Add(s.cfg.stormFor)
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := http.Client{Timeout: 30 * time.Second}
			path := "/metrics"
			if i%2 == 1 {
				path = "/api/v1/report"
			}
			for time.Now().Before(stop) {
				upBefore := s.d.Up()
				resp, err := c.Get("http://" + s.d.Addr() + path)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				switch {
				case err == nil && resp.StatusCode == http.StatusOK:
					st.ok.Add(1)
				case err == nil && resp.StatusCode == http.StatusServiceUnavailable && path == "/metrics":
					st.shed.Add(1) // web.MaxScrapesInFlight: excess scrapes are refused, not queued
				case !upBefore || !s.d.Up():
					st.restarting.Add(1)
				default:
					if st.failed.Add(1) == 1 {
						st.firstErr = fmt.Sprint(err)
						if err == nil {
							st.firstErr = path + ": " + resp.Status
						}
					}
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		s.storms = append(s.storms, st)
		if n := st.failed.Load(); n > 0 {
			s.t.Errorf("scrape storm: %d requests failed while specwatch was up (%d succeeded), the first: %s", n, st.ok.Load(), st.firstErr)
		}
		close(st.done)
	}()
	return fmt.Sprintf("100 clients for %s started", s.cfg.stormFor)
}

// storm is one scrape storm's account.
type storm struct {
	ok, shed, failed, restarting atomic.Int64
	firstErr                     string // written once, by the goroutine whose failure was the first
	done                         chan struct{}
}

func (st *storm) running() bool {
	if st == nil {
		return false
	}
	select {
	case <-st.done:
		return false
	default:
		return true
	}
}

func (st *storm) wait() {
	if st != nil {
		<-st.done
	}
}
