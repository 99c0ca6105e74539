package kubepods

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// The API server here is a loopback stand-in serving a PodList as the real one writes it (the
// fields read, and others around them): no Kubernetes control plane can run on this machine.
const podsJSON = `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"4711"},"items":[
{"metadata":{"name":"vllm-0","namespace":"llm","uid":"1","annotations":{"specwatch.io/scrape":"true","specwatch.io/port":"8000"}},
 "spec":{"nodeName":"gpu07","containers":[{"name":"vllm","image":"vllm/vllm-openai:v0.11.0","ports":[{"name":"http","containerPort":8000,"protocol":"TCP"}]},{"name":"sidecar","image":"x"}]},
 "status":{"phase":"Running","podIP":"10.244.1.7"}},
{"metadata":{"name":"sglang-0","namespace":"llm","annotations":{"specwatch.io/scrape":"true","specwatch.io/port":"metrics","specwatch.io/path":"/m","specwatch.io/scheme":"https"}},
 "spec":{"nodeName":"gpu07","containers":[{"name":"sglang","ports":[{"name":"http","containerPort":30000},{"name":"metrics","containerPort":30001}]}]},
 "status":{"phase":"Running","podIP":"fd00::7"}},
{"metadata":{"name":"one-port","namespace":"llm","annotations":{"specwatch.io/scrape":"true","specwatch.io/container":"engine"}},
 "spec":{"nodeName":"gpu07","containers":[{"name":"server","ports":[{"containerPort":8080}]}]},
 "status":{"phase":"Running","podIP":"10.244.1.9"}},
{"metadata":{"name":"node-exporter-x","namespace":"monitoring","annotations":{"prometheus.io/scrape":"true","prometheus.io/port":"9100"}},
 "spec":{"nodeName":"gpu07","containers":[{"name":"node-exporter","ports":[{"containerPort":9100}]}]},
 "status":{"phase":"Running","podIP":"10.0.3.7"}},
{"metadata":{"name":"pending","namespace":"llm","annotations":{"specwatch.io/scrape":"true","specwatch.io/port":"8000"}},
 "spec":{"nodeName":"gpu07","containers":[{"name":"vllm"}]},"status":{"phase":"Pending"}},
{"metadata":{"name":"two-ports","namespace":"llm","annotations":{"specwatch.io/scrape":"true"}},
 "spec":{"nodeName":"gpu07","containers":[{"name":"a","ports":[{"containerPort":1},{"containerPort":2}]}]},
 "status":{"phase":"Running","podIP":"10.244.1.10"}},
{"metadata":{"name":"bad-scheme","namespace":"llm","annotations":{"specwatch.io/scrape":"true","specwatch.io/port":"80","specwatch.io/scheme":"ftp"}},
 "spec":{"nodeName":"gpu07","containers":[{"name":"a"}]},"status":{"phase":"Running","podIP":"10.244.1.11"}},
{"metadata":{"name":"bad-port","namespace":"llm","annotations":{"specwatch.io/scrape":"true","specwatch.io/port":"99999"}},
 "spec":{"nodeName":"gpu07","containers":[{"name":"a"}]},"status":{"phase":"Running","podIP":"10.244.1.12"}}
]}`

func fakeAPI(t *testing.T, status int, body string) (*httptest.Server, *http.Request) {
	t.Helper()
	got := new(http.Request)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*got = *r.Clone(context.Background())
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

func TestTargets(t *testing.T) {
	srv, req := fakeAPI(t, 200, podsJSON)
	d, err := New(Options{APIServer: srv.URL, Token: "tok", Node: "gpu07", Interval: 5 * time.Second, Timeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ts, bad, err := d.Targets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if req.URL.Path != "/api/v1/pods" || req.URL.Query().Get("fieldSelector") != "spec.nodeName=gpu07" || req.Header.Get("Authorization") != "Bearer tok" {
		t.Errorf("request %s %v, authorization %q", req.URL.Path, req.URL.Query(), req.Header.Get("Authorization"))
	}
	var got []string
	for _, tg := range ts {
		l := tg.Labels
		got = append(got, tg.URL+" "+l["host"]+" "+l["namespace"]+"/"+l["pod"]+"/"+l["container"])
		if tg.Interval != 5*time.Second || tg.Timeout != 3*time.Second {
			t.Errorf("%s: interval %v timeout %v", tg.URL, tg.Interval, tg.Timeout)
		}
	}
	want := []string{
		"http://10.244.1.7:8000/metrics gpu07 llm/vllm-0/vllm",
		"https://[fd00::7]:30001/m gpu07 llm/sglang-0/sglang",
		"http://10.244.1.9:8080/metrics gpu07 llm/one-port/engine",
	}
	if !slices.Equal(got, want) {
		t.Errorf("targets\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var why []string
	for _, e := range bad {
		why = append(why, e.Error())
	}
	wantBad := []string{
		`pod llm/two-ports: no specwatch.io/port annotation and 2 container ports: say which`,
		`pod llm/bad-scheme: specwatch.io/scheme "ftp": want http or https`,
		`pod llm/bad-port: specwatch.io/port "99999": not a port`,
	}
	if !slices.Equal(why, wantBad) {
		t.Errorf("skipped\n%s\nwant\n%s", strings.Join(why, "\n"), strings.Join(wantBad, "\n"))
	}
}

func TestTargetsErrors(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   string
	}{
		{403, `{"kind":"Status","message":"pods is forbidden: User \"system:serviceaccount:specwatch:specwatch\" cannot list resource \"pods\""}`, "403 Forbidden"},
		{200, `{"items":[`, "unexpected end of JSON input"},
		{200, `[]`, "cannot unmarshal array"},
	} {
		srv, _ := fakeAPI(t, tc.status, tc.body)
		d, err := New(Options{APIServer: srv.URL, Node: "gpu07", Interval: time.Second, Timeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		ts, _, err := d.Targets(context.Background())
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "node gpu07") || ts != nil {
			t.Errorf("status %d body %.30q: targets %v, error %v; want one naming the node and %q", tc.status, tc.body, ts, err, tc.want)
		}
	}
	big := `{"items":[` + strings.Repeat(`{"metadata":{"name":"x"}},`, maxListBytes/24) + `{}]}`
	srv, _ := fakeAPI(t, 200, big)
	d, _ := New(Options{APIServer: srv.URL, Node: "gpu07", Interval: time.Second, Timeout: time.Second})
	if _, _, err := d.Targets(context.Background()); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("an oversized list: %v", err)
	}
}

func TestNewRefuses(t *testing.T) {
	for _, o := range []Options{
		{APIServer: "kubernetes:443", Node: "n", Interval: time.Second, Timeout: time.Second},
		{Node: "", Interval: time.Second, Timeout: time.Second},
		{Node: "n"},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

// TestTargetsScopedAndCapped: a list of 3,007 annotated pods of which 6 run on this node (an
// API server or proxy that ignored the field selector) gives the 6, and names the others; 100
// annotated pods on this node give MaxTargets and name the rest (issue 27, item 18: 3,004
// targets, 3,001 of them other nodes' pods).
func TestTargetsScopedAndCapped(t *testing.T) {
	list := func(n int, node func(i int) string) string {
		var b strings.Builder
		b.WriteString(`{"kind":"PodList","apiVersion":"v1","items":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"metadata":{"name":"p%d","namespace":"llm","annotations":{"specwatch.io/scrape":"true","specwatch.io/port":"8000"}},`+
				`"spec":{"nodeName":%q,"containers":[{"name":"vllm"}]},"status":{"phase":"Running","podIP":"10.244.%d.%d"}}`, i, node(i), i/250, i%250)
		}
		b.WriteString(`]}`)
		return b.String()
	}
	srv, _ := fakeAPI(t, 200, list(3007, func(i int) string {
		if i%500 == 0 {
			return "gpu07"
		}
		return fmt.Sprintf("gpu%02d", 8+i%40)
	}))
	d, err := New(Options{APIServer: srv.URL, Node: "gpu07", Interval: time.Second, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ts, bad, err := d.Targets(context.Background())
	if err != nil || len(ts) != 7 || len(bad) != 1 || !strings.Contains(bad[0].Error(), "3000 pods of other nodes") {
		t.Errorf("%d targets, errors %v, %v: want this node's 7", len(ts), bad, err)
	}
	srv, _ = fakeAPI(t, 200, list(100, func(int) string { return "gpu07" }))
	d, err = New(Options{APIServer: srv.URL, Node: "gpu07", Interval: time.Second, Timeout: time.Second, MaxTargets: 64})
	if err != nil {
		t.Fatal(err)
	}
	ts, bad, err = d.Targets(context.Background())
	if err != nil || len(ts) != 64 || len(bad) != 1 || !strings.Contains(bad[0].Error(), "36 annotated pods past the 64 targets") {
		t.Errorf("%d targets, errors %v, %v: want 64 and the rest named", len(ts), bad, err)
	}
}
