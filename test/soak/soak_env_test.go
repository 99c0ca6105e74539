package soak

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// soakVM is a real VictoriaMetrics receiving specwatch's push, stopped and started again on
// the same address and data directory for the outages.
type soakVM struct {
	t        *testing.T
	bin, dir string
	addr     string
	srv      *testharness.Server
	next     int       // index of the next outage in cfg.vmDown
	downAt   time.Time // zero while up
	upAt     time.Time
	outages  []vmOutage
}

type vmOutage struct {
	down, recovered time.Duration // how long it was down; first fresh sample after it came back
	failuresDuring  float64       // specwatch_push_failures_total added meanwhile
	inc             int           // the incarnation when it went down
	restarted       bool          // specwatch was restarted during the outage (its counter too)
}

func startSoakVM(t *testing.T) *soakVM {
	v := &soakVM{t: t, bin: testharness.NeedTool(t, "victoria-metrics", "victoria-metrics"), dir: t.TempDir(), addr: testharness.FreeAddr(t)}
	v.start()
	v.upAt = time.Now()
	return v
}

func (v *soakVM) start() {
	v.srv = testharness.StartServer(v.t, "victoria-metrics", v.dir, v.addr, v.bin, "-httpListenAddr="+v.addr,
		"-storageDataPath="+filepath.Join(v.dir, "data"), "-search.latencyOffset=0s", "-search.disableCache")
}

func (v *soakVM) importURL() string { return "http://" + v.addr + "/api/v1/import/prometheus" }

// pending says whether outages remain, or one is still under way.
func (v *soakVM) pending(s *soak) bool { return v.next < len(s.cfg.vmDown) || !v.downAt.IsZero() }

// step starts or ends an outage when it is time: one starts vmUp after the last ended, and
// ends after its planned length.
func (v *soakVM) step(s *soak) {
	cfg, now := s.cfg, time.Now()
	switch {
	case v.downAt.IsZero() && v.next < len(cfg.vmDown) && now.Sub(v.upAt) >= cfg.vmUp:
		v.srv.Stop()
		v.downAt = now
		v.outages = append(v.outages, vmOutage{failuresDuring: -s.pushFailures(), inc: len(s.incs)})
		s.t.Logf("%7s victoria-metrics stopped for %s", time.Since(s.started).Round(time.Second), cfg.vmDown[v.next])
	case !v.downAt.IsZero() && now.Sub(v.downAt) >= cfg.vmDown[v.next]:
		o := &v.outages[len(v.outages)-1]
		if o.restarted = o.inc != len(s.incs); o.restarted {
			o.failuresDuring = 0 // counters restart with the process: count the new one's only
		}
		o.failuresDuring += s.pushFailures()
		o.down = now.Sub(v.downAt)
		v.start()
		back := time.Now()
		s.waitFor("a fresh push in VictoriaMetrics", func(string) bool { return v.latestSample() > back.Add(-time.Second).Unix() })
		o.recovered = time.Since(back)
		s.t.Logf("%7s victoria-metrics back after %s: %v push failures meanwhile, fresh data %s after the restart",
			time.Since(s.started).Round(time.Second), o.down.Round(time.Second), o.failuresDuring, o.recovered.Round(10*time.Millisecond))
		// A specwatch restarted in the outage's last seconds may not have pushed yet.
		if o.failuresDuring <= 0 && (!o.restarted || time.Since(s.inc.began) > 3*time.Second) {
			s.t.Errorf("victoria-metrics was down %s and specwatch counted no push failure", o.down)
		}
		v.downAt, v.upAt = time.Time{}, time.Now()
		v.next++
	}
}

// latestSample is the Unix time of the newest pushed specwatch_lines_total sample (0: none, or
// VictoriaMetrics not answering yet).
func (v *soakVM) latestSample() int64 {
	res, err := testharness.QueryProm("http://"+v.addr, `max(timestamp(specwatch_lines_total{job="specwatch-soak",result="matched"}))`)
	if err != nil || len(res) == 0 {
		return 0
	}
	return int64(res[0].Value)
}

// pushFailures is the running incarnation's specwatch_push_failures_total.
func (s *soak) pushFailures() float64 {
	body, _ := s.d.Metrics()
	v, _ := testharness.MetricValue(body, "specwatch_push_failures_total", "")
	return v
}

// memSampler reads the daemon's memory, fds and threads from /proc once a second.
type memSampler struct {
	mu      sync.Mutex
	pid     int
	inc     int
	samples []memSample
	stop    chan struct{}
	done    chan struct{}
}

type memSample struct {
	at  time.Time
	inc int
	procMem
}

func startMemSampler(t *testing.T) *memSampler {
	m := &memSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-tick.C:
			}
			m.mu.Lock()
			pid, inc := m.pid, m.inc
			m.mu.Unlock()
			if pid == 0 {
				continue
			}
			if pm, err := readProcMem(pid); err == nil && pm.RSS > 0 {
				m.mu.Lock()
				m.samples = append(m.samples, memSample{at: time.Now(), inc: inc, procMem: pm})
				m.mu.Unlock()
			}
		}
	}()
	t.Cleanup(m.close)
	return m
}

func (m *memSampler) close() {
	select {
	case <-m.stop:
	default:
		close(m.stop)
		<-m.done
	}
}

// follow switches the sampling to a new incarnation's process.
func (m *memSampler) follow(pid, inc int) {
	m.mu.Lock()
	m.pid, m.inc = pid, inc
	m.mu.Unlock()
}

func (m *memSampler) all() []memSample {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]memSample(nil), m.samples...)
}
