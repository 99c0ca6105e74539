package soak

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// TestSoak is production in an afternoon: a private journald receiving a simulated 4-rank
// SGLang service at 1000× real time (plus three lines of other units' noise per engine line),
// `specwatch run` following it and pushing to a real VictoriaMetrics every second, a real
// Prometheus scraping it every second, and faults at random moments — SIGKILL of specwatch,
// journald stopped and restarted, rotations, vacuums (also of entries not read yet), the state
// directory read-only and full, VictoriaMetrics down, scrape storms. After every fault the
// writer is paused and the soak checks, against its own journalctl ledger, that the daemon's
// count of decode samples is exactly the journal's decode entries after its starting cursor.
//
// CI runs a short version (8 simulated hours, each fault once). SPECWATCH_SOAK=long runs a
// simulated week with every fault at least ten times and writes the report to
// SPECWATCH_SOAK_REPORT (default soak-report.md in the test's directory).
func TestSoak(t *testing.T) {
	cfg := shortSoak
	if os.Getenv("SPECWATCH_SOAK") == "long" {
		cfg = longSoak
	} else if testing.Short() {
		t.Skip("the short soak runs about two minutes")
	}
	s := newSoak(t, cfg)
	s.run()
	s.report()
}

type soakConfig struct {
	name       string
	span       time.Duration // simulated time replayed
	speedup    float64
	rounds     int           // times each fault runs
	gapMin     time.Duration // between faults
	gapMax     time.Duration
	stormFor   time.Duration
	vmDown     []time.Duration // VictoriaMetrics outages, in order
	vmUp       time.Duration   // at least this long between outages
	warmup     time.Duration   // RSS growth is measured after it
	settleWait time.Duration
}

var (
	shortSoak = soakConfig{name: "short", span: 8 * time.Hour, speedup: 1000, rounds: 1,
		gapMin: 200 * time.Millisecond, gapMax: time.Second, stormFor: 5 * time.Second,
		vmDown: []time.Duration{5 * time.Second}, vmUp: 5 * time.Second, warmup: 10 * time.Second,
		settleWait: 2 * time.Minute}
	longSoak = soakConfig{name: "long", span: 7 * 24 * time.Hour, speedup: 1000, rounds: 10,
		gapMin: time.Second, gapMax: 5 * time.Second, stormFor: time.Minute,
		vmDown: []time.Duration{3 * time.Minute, 30 * time.Second, 45 * time.Second, 60 * time.Second, 40 * time.Second,
			50 * time.Second, 30 * time.Second, 60 * time.Second, 35 * time.Second, 45 * time.Second},
		vmUp: 10 * time.Second, warmup: time.Minute, settleWait: 5 * time.Minute}
)

// soak is the running environment and its accounts.
type soak struct {
	t        *testing.T
	cfg      soakConfig
	rng      *rand.Rand
	j        *testjournal.Journal
	w        *soakWriter
	d        *testharness.Daemon
	led      *ledger
	vm       *soakVM
	prom     *testharness.Server
	stateDir string
	logPath  string
	started  time.Time

	inc          *incarnation
	incs         []*incarnation
	episodes     []episode
	lostDecode   int
	lostReported int64
	mem          *memSampler
	storm        *storm
	storms       []*storm // finished, appended by the storm's goroutine before done closes
}

// incarnation is one specwatch process: where it started and what it was seen to count.
type incarnation struct {
	start   uint64 // sequence number of its starting cursor (0: the beginning)
	began   time.Time
	counted int // matched lines at its last settle, equal to the ledger's count then
	settles int
}

type episode struct {
	fault, result string
	begin, at     time.Duration // since the start: the fault's beginning, the settle after it
	written       int64         // decode lines written so far
	counted       int           // the incarnation's count at the settle after it
	want          int           // the ledger's count then
	inc           int           // the incarnation counting
	goroutines    int           // the daemon's go_goroutines at the settle (-1: not read)
	storm         bool          // a scrape storm was running (its connections add goroutines)
}

func newSoak(t *testing.T, cfg soakConfig) *soak {
	s := &soak{t: t, cfg: cfg, rng: rand.New(rand.NewPCG(11, 12))}
	s.j = testjournal.StartWith(t, testjournal.Options{Conf: []string{"SystemMaxFileSize=64M"}})
	s.j.RequireUnits()
	s.stateDir = s.tmpfs(t, "1m")
	s.logPath = filepath.Join(t.TempDir(), "specwatch.log")
	s.led = newLedger(s.j.Dir(), soakUnit)
	s.vm = startSoakVM(t)
	addr := testharness.FreeAddr(t)
	s.d = testharness.NewDaemon(t, testharness.BuildSpecwatch(t), addr, s.stateDir, s.logPath,
		"--journal.directory", s.j.Dir(), "--journal.unit", soakUnit,
		"--push.url", s.vm.importURL(), "--push.interval", "1s", "--push.label", "job=specwatch-soak")
	s.prom = testharness.StartPrometheus(t, testharness.PrometheusOptions{Targets: []string{addr}, ScrapeInterval: time.Second, EvalInterval: time.Second})
	return s
}

// tmpfs mounts a small file system of its own for the state directory, so that the soak can
// make it read-only or full without touching anything else.
func (s *soak) tmpfs(t *testing.T, size string) string {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "specwatch-soak", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs on %s: %v: %s", dir, err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return dir
}

// restart starts a new incarnation from the saved cursor.
func (s *soak) restart() {
	c := s.d.Cursor()
	var seq uint64
	if c != "" {
		var err error
		if _, seq, err = cursorSeq(c); err != nil {
			s.t.Fatal(err)
		}
	}
	s.inc = &incarnation{start: seq, began: time.Now()}
	s.incs = append(s.incs, s.inc)
	s.d.Start()
	s.mem.follow(s.d.PID(), len(s.incs)-1)
}

func (s *soak) run() {
	s.started = time.Now()
	s.mem = startMemSampler(s.t)
	s.restart() // at the tail of an empty journal: every line to come is new
	s.w = startSoakWriter(s.t, s.j, soakScenario(s.cfg.span), s.cfg.speedup)
	var deck []fault
	for range s.cfg.rounds {
		deck = append(deck, soakFaults...)
	}
	s.rng.Shuffle(len(deck), func(a, b int) { deck[a], deck[b] = deck[b], deck[a] })
	for len(deck) > 0 || s.vm.pending(s) {
		s.sleepRandom(s.cfg.gapMin, s.cfg.gapMax)
		s.vm.step(s)
		if len(deck) == 0 {
			continue
		}
		f := deck[0]
		deck = deck[1:]
		if f.name == "scrape-storm" && s.storm.running() {
			deck = append(deck, f) // one storm at a time: later
			continue
		}
		begin := time.Since(s.started)
		res := f.run(s)
		s.settle(f.name, res, begin)
	}
	s.storm.wait()
	if err := s.w.Wait(); err != nil {
		s.t.Fatal(err)
	}
	s.settle("end of the replay", "", time.Since(s.started))
	s.t.Logf("largest mappings of the last specwatch (RSS, from /proc/PID/smaps):\n%s", topMappings(s.d.PID(), 8))
}

// settle pauses the writer, brings the ledger up to date and waits until the daemon's count
// of matched lines equals the ledger's count of decode entries after its starting cursor.
func (s *soak) settle(fault, result string, begin time.Duration) {
	resume := s.w.Pause()
	defer resume()
	s.j.Sync()
	if err := s.led.update(); err != nil {
		s.t.Fatal(err)
	}
	want := s.led.after(s.inc.start)
	got, gor := -1, -1
	deadline := time.Now().Add(s.cfg.settleWait)
	for time.Now().Before(deadline) {
		if body, err := s.d.Metrics(); err == nil {
			v, _ := testharness.MetricValue(body, "specwatch_lines_total", `result="matched"`)
			g, _ := testharness.MetricValue(body, "go_goroutines", "")
			if got, gor = int(v), int(g); got >= want {
				break
			}
		}
		time.Sleep(50 * time.Millisecond) // polling a real process
	}
	s.inc.counted, s.inc.settles = got, s.inc.settles+1
	ep := episode{fault: fault, result: result, begin: begin, at: time.Since(s.started), written: s.w.decode.Load(), counted: got, want: want,
		inc: len(s.incs) - 1, goroutines: gor, storm: s.storm.running()}
	s.episodes = append(s.episodes, ep)
	s.t.Logf("%7s %-18s counted %d, ledger %d  %s", ep.at.Round(time.Second), fault, got, want, result)
	if got != want {
		s.t.Errorf("after %s: specwatch counted %d decode lines since its start, the journal holds %d", fault, got, want)
	}
}

// waitFor polls /metrics until cond holds (settleWait at most).
func (s *soak) waitFor(what string, cond func(body string) bool) {
	deadline := time.Now().Add(s.cfg.settleWait)
	for {
		body, _ := s.d.Metrics()
		if cond(body) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("soak: timed out waiting for %s\n%s", what, testharness.Tail(s.logPath, 3000))
		}
		time.Sleep(50 * time.Millisecond) // polling a real process
	}
}

// sleepRandom waits a random moment in [lo, hi): where a fault lands in the stream.
func (s *soak) sleepRandom(lo, hi time.Duration) {
	time.Sleep(lo + time.Duration(s.rng.Int64N(int64(hi-lo))))
}

func (s *soak) reportPath() string {
	if p := os.Getenv("SPECWATCH_SOAK_REPORT"); p != "" {
		return p
	}
	return filepath.Join(s.t.TempDir(), "soak-report.md")
}

func (s *soak) report() {
	var b strings.Builder
	s.writeReport(&b)
	s.t.Log("\n" + b.String())
	if err := os.WriteFile(s.reportPath(), []byte(b.String()), 0o644); err != nil {
		s.t.Error(err)
	}
}
