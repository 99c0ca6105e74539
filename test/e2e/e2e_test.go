package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// The alert path end to end, with real parts: a private journald, `specwatch run` on it, and
// either Prometheus (15 s scrape and evaluation, the shipped rules unchanged) or
// VictoriaMetrics + vmalert fed by specwatch's push, then Alertmanager (group_wait 10 s) and a
// webhook. A healthy SGLang stream, then a stream whose accept len sticks at 1.00:
// SpecDecCommitLenStuck must reach the webhook with the series labels and the numbers within
// 150 s of the first stuck line, and the resolved notification must follow recovery.

const e2eUnit = "sglang.service"

// stream writes SGLang decode lines at 10 per second until stop; stuck says whether the
// drafter contributes nothing. It records when the first stuck line was written.
type stream struct {
	j          *testjournal.Journal
	stuck      atomic.Bool
	firstStuck atomic.Int64
	stop       chan struct{}
	done       chan struct{}
}

func startStream(t *testing.T, j *testjournal.Journal) *stream {
	s := &stream{j: j, stop: make(chan struct{}), done: make(chan struct{})}
	rng := rand.New(rand.NewPCG(3, 4))
	go func() {
		defer close(s.done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		ctx := 500
		for {
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
			c := 3.0 + 0.3*rng.NormFloat64()
			if s.stuck.Load() {
				c = 1
				s.firstStuck.CompareAndSwap(0, time.Now().UnixNano())
			}
			c = max(1, c)
			ctx += int(40 * c)
			if ctx > 8000 {
				ctx = 500
			}
			step := 0.034 + 20e-6*float64(ctx)
			line := fmt.Sprintf("[%s TP0] Decode batch, #running-req: 1, #token: %d, token usage: 0.02, accept len: %.2f, accept rate: 0.30, cuda graph: True, gen throughput (token/s): %.2f, #queue-req: 0",
				time.Now().UTC().Format("2006-01-02 15:04:05"), ctx, c, c/step)
			s.j.Send(e2eUnit, "python3", []byte(line))
		}
	}()
	t.Cleanup(func() { s.close() })
	return s
}

func (s *stream) close() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
}

// startDaemon runs `specwatch run` on the journal and returns its listen address.
func startDaemon(t *testing.T, j *testjournal.Journal, extra ...string) string {
	t.Helper()
	bin := testharness.BuildSpecwatch(t)
	args := []string{"run", "--journal.directory", j.Dir(), "--state.directory", t.TempDir(), "--web.listen-address", "127.0.0.1:0", "--log.format", "json"}
	if ok, _ := j.UnitsSupported(); ok {
		args = append(args, "--journal.unit", e2eUnit)
	} else {
		args = append(args, "--journal.identifier", "python3")
	}
	cmd := exec.Command(bin, append(args, extra...)...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["listen"] != nil && strings.HasPrefix(fmt.Sprint(m["message"]), "serving") {
				addr <- m["listen"].(string)
			}
		}
	}()
	select {
	case a := <-addr:
		return a
	case <-time.After(60 * time.Second):
		t.Fatal("specwatch did not start")
	}
	return ""
}

// runStuckScenario writes 30 s of healthy lines, then stuck lines until the webhook reports the
// alert firing, then healthy lines until it reports it resolved. It returns the delay from the
// first stuck line to the firing notification.
func runStuckScenario(t *testing.T, j *testjournal.Journal, hook *testharness.Webhook) time.Duration {
	t.Helper()
	s := startStream(t, j)
	time.Sleep(30 * time.Second) // a healthy baseline, in real time: the rules and the model see it so
	s.stuck.Store(true)
	since := time.Now()
	match := func(state string) func(testharness.WebhookAlert) bool {
		return func(a testharness.WebhookAlert) bool {
			return a.Labels["alertname"] == "SpecDecCommitLenStuck" && a.Status == state
		}
	}
	_, alert, ok := hook.WaitFor(since, 200*time.Second, match("firing"))
	if !ok {
		t.Fatalf("SpecDecCommitLenStuck did not reach the webhook within 200 s")
	}
	delay := time.Duration(time.Now().UnixNano() - s.firstStuck.Load())
	for _, l := range []string{"host", "unit", "engine", "rank", "severity"} {
		if alert.Labels[l] == "" {
			t.Errorf("alert lacks label %s: %v", l, alert.Labels)
		}
	}
	if d := alert.Annotations["description"]; !strings.Contains(d, "1") {
		t.Errorf("description without numbers: %q", d)
	}
	t.Logf("first stuck line → webhook: %s (target ≤ 150 s); labels %v; description %q", delay.Round(time.Second), alert.Labels, alert.Annotations["description"])
	s.stuck.Store(false)
	if _, _, ok := hook.WaitFor(time.Now(), 240*time.Second, match("resolved")); !ok {
		t.Fatalf("no resolved notification within 240 s of recovery")
	}
	return delay
}

func TestAlertPathPrometheus(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole alert path in real time for about 3 minutes")
	}
	t.Parallel()
	j := testjournal.Start(t)
	addr := startDaemon(t, j)
	hook := testharness.StartWebhook(t)
	am := testharness.StartAlertmanager(t, testharness.AlertmanagerOptions{WebhookURL: hook.URL, GroupInterval: 15 * time.Second})
	prom := testharness.StartPrometheus(t, testharness.PrometheusOptions{Targets: []string{addr}, RuleFiles: testharness.RuleFiles(t), Alertmanager: am.URL})
	if d := runStuckScenario(t, j, hook); d > 150*time.Second {
		t.Errorf("stuck drafter → webhook took %s, target ≤ 150 s", d)
	}
	// Every dashboard query must parse and return data from this Prometheus.
	testharness.CheckDashboardQueries(t, prom.URL, 30*time.Second)
}

func TestAlertPathVictoriaMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole alert path in real time for about 3 minutes")
	}
	t.Parallel()
	vmBin := testharness.NeedTool(t, "victoria-metrics", "victoria-metrics")
	vmalertBin := testharness.NeedTool(t, "vmalert", "victoria-metrics")
	vmDir := t.TempDir()
	vmAddr := testharness.FreeAddr(t)
	vm := testharness.StartServer(t, "victoria-metrics", vmDir, vmAddr, vmBin, "-httpListenAddr="+vmAddr, "-storageDataPath="+filepath.Join(vmDir, "data"),
		"-search.latencyOffset=1s", "-search.disableCache")
	j := testjournal.Start(t)
	startDaemon(t, j, "--push.url", vm.URL+"/api/v1/import/prometheus", "--push.interval", "15s", "--push.label", "job=specwatch")
	hook := testharness.StartWebhook(t)
	am := testharness.StartAlertmanager(t, testharness.AlertmanagerOptions{WebhookURL: hook.URL, GroupInterval: 15 * time.Second})
	rulesDir := t.TempDir()
	var ruleArgs []string
	for i, f := range testharness.RuleFiles(t) {
		dst := filepath.Join(rulesDir, fmt.Sprintf("%d-%s", i, filepath.Base(f)))
		if err := testharness.CopyRulesWithInterval(f, dst, 15*time.Second); err != nil {
			t.Fatal(err)
		}
		ruleArgs = append(ruleArgs, "-rule="+dst)
	}
	vaAddr := testharness.FreeAddr(t)
	testharness.StartServer(t, "vmalert", t.TempDir(), vaAddr, vmalertBin, append(ruleArgs,
		"-datasource.url="+vm.URL, "-remoteWrite.url="+vm.URL, "-notifier.url="+am.URL, "-httpListenAddr="+vaAddr, "-evaluationInterval=15s")...)
	if d := runStuckScenario(t, j, hook); d > 150*time.Second {
		t.Errorf("stuck drafter → webhook through VictoriaMetrics took %s, target ≤ 150 s", d)
	}
}
