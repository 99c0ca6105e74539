package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/sim"
)

// demoSpeed is the pace of the replay: fast enough for a short test, slow enough that each
// episode outlasts its alert's `for:` (cmd/specwatch's TestDemoIncidentsOutlastFor keeps the
// scenario so).
// At 3× the collapse outlasts its `for: 2m` by only 26 s of wall time, too little on a loaded
// machine; at 2× by 99 s, the pace the docs promise.
const demoSpeed = 2

// demoIncident is one incident of the scenario and the alert it must page or ticket with.
type demoIncident struct {
	alert, severity, host, unit string
	start, end                  time.Duration // the fault, offsets of the simulated loop
	kind                        string        // the model's anomaly kind
}

var demoIncidents = []demoIncident{
	{"SpecDecCommitLenStuck", "critical", sim.IncidentsStuckHost, sim.IncidentsStuckUnit,
		sim.IncidentsStuckStart, sim.IncidentsStuckEnd, "commit_len_stuck"},
	{"SpecDecThroughputCollapse", "warning", sim.IncidentsCollapseHost, sim.IncidentsCollapseUnit,
		sim.IncidentsCollapseStart, sim.IncidentsCollapseEnd, "throughput_collapse"},
}

// TestDemoIncidentsAlerts runs the real binary's `demo --scenario incidents` at 2× with a real
// Prometheus scraping it (1 s scrape and evaluation, the shipped rule files with their own
// `for:`) and a real Alertmanager (group_wait 1 s) delivering to a webhook: the stuck drafter
// must arrive as a critical SpecDecCommitLenStuck and the host stall as a warning
// SpecDecThroughputCollapse, each firing and then resolved, on their own series; nothing may be
// pending or firing during the healthy opening, and no other alert at all.
func TestDemoIncidentsAlerts(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the incidents demo through Prometheus and Alertmanager for about 3 minutes")
	}
	t.Parallel()
	testharness.NeedTool(t, "prometheus", "prometheus")
	testharness.NeedTool(t, "prometheus-alertmanager", "prometheus-alertmanager")
	began := time.Now()

	hook := testharness.StartWebhook(t)
	am := testharness.StartAlertmanager(t, testharness.AlertmanagerOptions{
		WebhookURL: hook.URL, GroupWait: time.Second, GroupInterval: time.Second,
	})
	// The demo first, so that Prometheus never sees its target down (SpecWatchDown).
	demo := testharness.StartDemo(t, "--scenario", "incidents", "--speed", fmt.Sprint(demoSpeed))
	prom := testharness.StartPrometheus(t, testharness.PrometheusOptions{
		Targets:        []string{demo.Addr},
		RuleFiles:      testharness.RuleFiles(t),
		ScrapeInterval: time.Second, EvalInterval: time.Second,
		Alertmanager: am.URL,
	})

	origin := demoOrigin(t, demo.Addr)
	wall := func(off time.Duration) time.Time { return origin.Add(off / demoSpeed) }
	healthyEnd := wall(sim.IncidentsCollapseStart)
	t.Logf("replay started %s after the process; the healthy opening ends %s after it",
		origin.Sub(demo.Started).Round(time.Millisecond), healthyEnd.Sub(origin))

	// Prometheus must have the demo's series before the healthy opening ends, or that check
	// would prove nothing.
	for len(testharness.PromQuery(t, prom.URL, `count(specwatch_anomaly_active{kind="commit_len_stuck"}) == 2`)) == 0 {
		if time.Now().After(healthyEnd) {
			t.Fatalf("Prometheus had not scraped the demo's two series by the end of its healthy opening (%s after it started)", healthyEnd.Sub(origin))
		}
		time.Sleep(200 * time.Millisecond) // polling a real Prometheus
	}

	type seen struct {
		firing, resolved testharness.WebhookMessage
		alert            testharness.WebhookAlert // as it fired
	}
	got := map[string]*seen{}
	for _, inc := range demoIncidents {
		is := func(status string) func(testharness.WebhookAlert) bool {
			return func(a testharness.WebhookAlert) bool {
				return a.Status == status && a.Labels["alertname"] == inc.alert
			}
		}
		s := &seen{}
		var ok bool
		// Generous: the alert must fire before its episode ends, and resolve soon after.
		if s.firing, s.alert, ok = hook.WaitFor(demo.Started, time.Until(wall(inc.end).Add(90*time.Second)), is("firing")); !ok {
			t.Fatalf("no %s firing by %s after the episode's end; received %+v", inc.alert, 90*time.Second, hook.Messages())
		}
		want := map[string]string{"severity": inc.severity, "host": inc.host, "unit": inc.unit, "engine": "sglang", "rank": "TP0"}
		for k, v := range want {
			if s.alert.Labels[k] != v {
				t.Errorf("%s firing: label %s=%q, want %q (labels %v)", inc.alert, k, s.alert.Labels[k], v, s.alert.Labels)
			}
		}
		if !strings.HasSuffix(s.alert.Annotations["runbook_url"], "#"+strings.ToLower(inc.alert)) {
			t.Errorf("%s: runbook_url %q", inc.alert, s.alert.Annotations["runbook_url"])
		}
		if s.resolved, _, ok = hook.WaitFor(s.firing.Received, time.Until(wall(inc.end).Add(150*time.Second)), is("resolved")); !ok {
			t.Fatalf("no %s resolved within 150 s of the episode's end; received %+v", inc.alert, hook.Messages())
		}
		got[inc.alert] = s
	}
	if desc := got["SpecDecCommitLenStuck"].alert.Annotations["description"]; !strings.Contains(desc, "stuck at 1.00") {
		t.Errorf("SpecDecCommitLenStuck's description not expanded from live queries: %q", desc)
	}

	// What the daemon raised, to time each step of the path.
	rep := demoReport(t, demo.Addr)
	for _, inc := range demoIncidents {
		s := got[inc.alert]
		ep := findEpisode(rep, inc)
		if ep == nil || ep.End == nil {
			t.Errorf("the demo's report has no closed %s episode on %s: %+v", inc.kind, inc.host, rep.Series)
			continue
		}
		f := forOf(t, prom.URL, inc.alert)
		toFire, toResolve := s.firing.Received.Sub(ep.Start), s.resolved.Received.Sub(*ep.End)
		t.Logf("%s (%s, for: %s): fault start → raised %.1f s, raised → webhook firing %.1f s; fault end → closed %.1f s, closed → webhook resolved %.1f s",
			inc.alert, inc.severity, f, ep.Start.Sub(wall(inc.start)).Seconds(), toFire.Seconds(),
			ep.End.Sub(wall(inc.end)).Seconds(), toResolve.Seconds())
		if toFire < f || toFire > f+20*time.Second {
			t.Errorf("%s fired %s after the episode started, want its for: %s plus a few seconds", inc.alert, toFire, f)
		}
		if toResolve < 0 || toResolve > 20*time.Second {
			t.Errorf("%s resolved %s after the episode closed, want within 20 s", inc.alert, toResolve)
		}
	}

	// Nothing pending or firing, and no anomaly, in the healthy opening.
	at := fmt.Sprintf("%.3f", float64(healthyEnd.UnixMilli())/1000)
	window := fmt.Sprintf("%ds", int(healthyEnd.Sub(origin).Seconds()))
	if a := testharness.PromQuery(t, prom.URL, `max_over_time(ALERTS[`+window+`] @ `+at+`)`); len(a) > 0 {
		t.Errorf("alerts pending or firing during the healthy opening: %+v", a)
	}
	if a := testharness.PromQuery(t, prom.URL, `max_over_time(specwatch_anomaly_active[`+window+`] @ `+at+`) > 0`); len(a) > 0 {
		t.Errorf("anomalies active during the healthy opening: %+v", a)
	}
	for _, m := range hook.Messages() {
		if m.Received.Before(healthyEnd) {
			t.Errorf("a notification during the healthy opening: %+v", m)
		}
	}
	// No other alert was ever pending or firing, and no other notification was sent.
	var states []string
	for _, s := range testharness.PromQuery(t, prom.URL, `count by (alertname, alertstate, host) (last_over_time(ALERTS[15m]))`) {
		states = append(states, s.Labels["alertname"]+" "+s.Labels["alertstate"]+" "+s.Labels["host"])
	}
	sort.Strings(states)
	want := []string{"SpecDecCommitLenStuck firing gpu07", "SpecDecCommitLenStuck pending gpu07",
		"SpecDecThroughputCollapse firing gpu08", "SpecDecThroughputCollapse pending gpu08"}
	if strings.Join(states, "; ") != strings.Join(want, "; ") {
		t.Errorf("alert states seen by Prometheus %q, want %q", states, want)
	}
	for _, m := range hook.Messages() {
		for _, a := range m.Alerts {
			if a.Labels["alertname"] != "SpecDecCommitLenStuck" && a.Labels["alertname"] != "SpecDecThroughputCollapse" {
				t.Errorf("unexpected notification: %s %v", a.Status, a.Labels)
			}
		}
	}
	t.Logf("wall time %.0f s (demo at %d×, 1 s scrape and evaluation, group_wait 1 s)", time.Since(began).Seconds(), demoSpeed)
}

// demoOrigin is where the loop's offset 0 falls on the wall clock: the replay stamps each line
// as it emits it, pacing from its first entry, so the earliest first sample of the report,
// less that entry's offset in the recording, is the loop's start.
func demoOrigin(t *testing.T, addr string) time.Time {
	t.Helper()
	sum, err := sim.Generate(sim.Incidents(1), io.Discard, nil)
	if err != nil {
		t.Fatal(err)
	}
	lead := sum.First.Sub(sim.Incidents(1).Start) / demoSpeed
	deadline := time.Now().Add(30 * time.Second)
	for {
		rep := demoReport(t, addr)
		if len(rep.Series) == len(demoIncidents) {
			first := rep.Series[0].First
			for _, s := range rep.Series[1:] {
				if s.First.Before(first) {
					first = s.First
				}
			}
			return first.Add(-lead)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo's report has %d series after 30 s, want %d", len(rep.Series), len(demoIncidents))
		}
		time.Sleep(100 * time.Millisecond) // polling a real process
	}
}

func demoReport(t *testing.T, addr string) model.Report {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/api/v1/report")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rep model.Report
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
		t.Fatalf("/api/v1/report: %v", err)
	}
	return rep
}

func findEpisode(rep model.Report, inc demoIncident) *model.AnomalyJSON {
	for _, s := range rep.Series {
		if s.Labels.Host != inc.host {
			continue
		}
		for i := range s.Anomalies {
			if s.Anomalies[i].Kind == inc.kind {
				return &s.Anomalies[i]
			}
		}
	}
	return nil
}

// forOf is an alert rule's `for:` as the running Prometheus loaded it.
func forOf(t *testing.T, base, alert string) time.Duration {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/rules?type=alert")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Groups []struct {
				Rules []struct {
					Name     string  `json:"name"`
					Duration float64 `json:"duration"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	for _, g := range body.Data.Groups {
		for _, r := range g.Rules {
			if r.Name == alert {
				return time.Duration(r.Duration * float64(time.Second))
			}
		}
	}
	t.Fatalf("Prometheus has no rule %s", alert)
	return 0
}
