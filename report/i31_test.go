package report

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/specwatch/specwatch/model"
)

// threeVerdicts is a report whose ANOMALOUS series is neither first nor last.
func threeVerdicts() model.Report {
	t0 := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	s := func(rank, verdict string, m *model.StepModel) model.SeriesReport {
		return model.SeriesReport{Labels: model.Labels{Host: "gpu07", Unit: "sglang.service", Engine: "sglang", Rank: rank},
			Samples: 1, First: t0, Last: t0, ContextUnit: "tokens", Anomalies: []model.AnomalyJSON{}, Verdict: verdict, StepModel: m}
	}
	return model.Report{Series: []model.SeriesReport{
		s("TP0", "healthy", &model.StepModel{FixedMS: 33.9, MSPer1kToken: 19.9, R2: 0.99, N: 1}),
		s("TP1", "degraded", &model.StepModel{FixedMS: 41, MSPer1kToken: -2.5, R2: 0.4, N: 40}),
		s("TP2", "anomalous", &model.StepModel{FixedMS: 30, MSPer1kToken: 12, R2: -0.3, N: 40}),
		s("TP3", "anomalous", nil),
	}}
}

// TestPageAnomalousFirst: the index and the cards list the ANOMALOUS series first, then the
// others in the report's order; anchors stay the report's.
func TestPageAnomalousFirst(t *testing.T) {
	page := render(t, threeVerdicts(), nil, PageOptions{})
	var order []string
	for _, c := range cards(page) {
		order = append(order, c[strings.Index(c, `id="`)+4:][:2])
	}
	if got := strings.Join(order, " "); got != "s3 s4 s1 s2" {
		t.Errorf("cards in order %s, want s3 s4 s1 s2 (anomalous first)", got)
	}
	index := page[strings.Index(page, `<table class="index">`):strings.Index(page, `</table>`)]
	if a, h := strings.Index(index, `href="#s3"`), strings.Index(index, `href="#s1"`); a < 0 || h < 0 || a > h {
		t.Errorf("index lists s1 before the anomalous s3:\n%s", index)
	}
}

// TestFitUnreliableFlagged: a fit with R² < 0, or a negative slope or intercept, is flagged in
// the page's step model tile and the text report; a plausible one is not.
func TestFitUnreliableFlagged(t *testing.T) {
	r := threeVerdicts()
	page := render(t, r, nil, PageOptions{})
	cs := cards(page) // s3 s4 s1 s2
	if !strings.Contains(cs[0], `<div class="tile bad"><div class="tl">step model`) || !strings.Contains(cs[0], "fit unreliable: R² −0.30") {
		t.Errorf("R² −0.30 fit not flagged on the page:\n%s", cs[0])
	}
	if !strings.Contains(cs[3], "fit unreliable: negative slope") {
		t.Errorf("negative slope not flagged on the page:\n%s", cs[3])
	}
	if strings.Contains(cs[2], "unreliable") {
		t.Errorf("a good fit flagged:\n%s", cs[2])
	}
	var b bytes.Buffer
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"step model: 30.0 ms + 12.00 ms per 1k tokens (R² -0.30, 40 samples) — fit unreliable: R² −0.30\n",
		"step model: 41.0 ms + -2.50 ms per 1k tokens (R² 0.40, 40 samples) — fit unreliable: negative slope\n",
		"step model: 33.9 ms + 19.90 ms per 1k tokens (R² 0.99, 1 sample)\n",
		"  1 sample, ",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// TestTextColor: with Color, the verdicts, anomalies and unreliable fits are painted; without,
// the text has no escape at all.
func TestTextColor(t *testing.T) {
	r := threeVerdicts()
	r.Series[2].Anomalies = []model.AnomalyJSON{{Kind: "commit_len_stuck", Severity: "critical", Start: r.Series[2].First, Detail: "x"}}
	var plain, col bytes.Buffer
	if err := WriteTextWith(&plain, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteTextWith(&col, r, TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Errorf("uncoloured text has escapes:\n%q", plain.String())
	}
	for _, want := range []string{"verdict: \x1b[1;31mANOMALOUS\x1b[0m", "verdict: \x1b[33mDEGRADED\x1b[0m", "verdict: \x1b[32mHEALTHY\x1b[0m",
		"\x1b[1;31m! critical commit_len_stuck\x1b[0m", "\x1b[33mfit unreliable: R² −0.30\x1b[0m", "\n\x1b[1msglang  host=gpu07"} {
		if !strings.Contains(col.String(), want) {
			t.Errorf("coloured text lacks %q:\n%q", want, col.String())
		}
	}
	if got := stripSGR(col.String()); got != plain.String() {
		t.Errorf("colours changed the words:\n%q\n%q", got, plain.String())
	}
}

// stripSGR removes ANSI SGR sequences.
func stripSGR(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// TestUseColor: always and never are obeyed; auto colours only a terminal, and never with
// NO_COLOR set or TERM=dumb; another mode is an error naming it.
func TestUseColor(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	var buf bytes.Buffer
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	for _, c := range []struct {
		mode string
		w    any
		env  func(string) string
		want bool
	}{
		{"always", &buf, env("NO_COLOR", "1"), true},
		{"never", &buf, env(), false},
		{"auto", &buf, env(), false},    // not a file
		{"auto", devNull, env(), false}, // a file, not a terminal
		{"", devNull, env("TERM", "dumb"), false},
	} {
		got, err := UseColor(c.mode, c.w.(interface{ Write([]byte) (int, error) }), c.env)
		if err != nil || got != c.want {
			t.Errorf("UseColor(%q, %T): %v %v, want %v", c.mode, c.w, got, err, c.want)
		}
	}
	if _, err := UseColor("sometimes", &buf, env()); err == nil || !strings.Contains(err.Error(), `"sometimes"`) {
		t.Errorf("mode sometimes: %v", err)
	}
}
