package main

import (
	"bytes"
	"context"
	"html"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/ingest"

	"github.com/specwatch/specwatch/config"
	"github.com/specwatch/specwatch/daemon"
	"github.com/specwatch/specwatch/demo"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
)

var card = regexp.MustCompile(`(?s)<section class="card v-([a-z]+)" id="s(\d+)"[^>]*>.*?<span class="badge v-[a-z]+">([^<]*)</span>.*?<p class="explain">(.*?)</p>`)

// Issue 19: the demo's status page kept the ANOMALOUS badge on the rank whose stuck drafter
// (70-85 min) had ended, above an explanation saying "expected, not a regression": its daemon
// judged verdicts as offline analysis does (every episode of the period counts), and the
// explanation said "expected" under any verdict. A status page follows a stream, so its
// verdicts follow the anomalies active now, and "expected" is written only as the verdict.
func TestDemoPageBadgeFollowsActiveAnomalies(t *testing.T) {
	start := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		at     time.Duration
		stuck  string // the stuck rank's verdict then
		active bool
	}{{80 * time.Minute, "anomalous", true}, {3 * time.Hour, "", false}} {
		r, cards := demoPageAt(t, start.Add(c.at))
		var stuck int
		for i, s := range r.Series {
			active := false
			for _, a := range s.Anomalies {
				if a.Kind == "commit_len_stuck" {
					stuck++
					active = active || a.End == nil
				}
			}
			if s.Verdict == "anomalous" && !active {
				t.Errorf("at %v, %s: verdict anomalous after its episode ended:\n%s", c.at, s.Labels.Rank, s.Explanation)
			}
			if active != c.active && strings.Contains(s.Explanation, "commit_len_stuck") {
				t.Errorf("at %v, %s: stuck episode active %v, want %v", c.at, s.Labels.Rank, active, c.active)
			}
			if active && s.Verdict != c.stuck {
				t.Errorf("at %v, %s: verdict %q during the stuck episode, want %q", c.at, s.Labels.Rank, s.Verdict, c.stuck)
			}
			// The page lists anomalous series first; a card's anchor is its series' place in
			// the report (s1 the first).
			if cd, ok := cards["s"+strconv.Itoa(i+1)]; ok {
				cl, badge, explain := cd[1], cd[3], html.UnescapeString(cd[4])
				if cl != s.Verdict || badge != s.Verdict {
					t.Errorf("at %v, card %d: class %q, badge %q; the report says %q", c.at, i, cl, badge, s.Verdict)
				}
				if badge != "expected" && strings.Contains(explain, "expected, not a regression") {
					t.Errorf("at %v, card %d: %s badge above %q", c.at, i, badge, explain)
				}
			}
		}
		if stuck == 0 || len(cards) != len(r.Series) {
			t.Fatalf("at %v: %d stuck episodes, %d cards for %d series: the test needs the demo's stuck drafter", c.at, stuck, len(cards), len(r.Series))
		}
	}
}

// demoPageAt is the demo daemon's report and status page cards once its replay reached until.
func demoPageAt(t *testing.T, until time.Time) (model.Report, map[string][]string) {
	t.Helper()
	cfg := config.Default()
	cfg.Listen, cfg.Model.ExpireAfter = "127.0.0.1:0", 0
	d, err := daemon.New(daemon.Options{Config: cfg, Log: zerolog.Nop(), Title: "specwatch demo"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	src := pipeline.NewReplay(pipeline.ReplayOptions{Open: demo.Scenarios[0].Export})
	defer src.Close()
	if err := d.Pipeline(nil, 2026).Follow(context.Background(), pipeline.Input{Source: ingest.Poll(untilJournal{until.UnixMicro(), src}, ingest.PollOptions{})}); err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := d.WritePage(&page); err != nil {
		t.Fatal(err)
	}
	cards := map[string][]string{}
	for _, c := range card.FindAllStringSubmatch(page.String(), -1) {
		cards["s"+c[2]] = c
	}
	return d.Report(), cards
}

// untilJournal is src up to its first entry at or after until (Unix µs), then its end.
type untilJournal struct {
	until int64
	src   *pipeline.Replay
}

func (u untilJournal) Next(e *ingest.Entry, wait time.Duration) (bool, error) {
	ok, err := u.src.Next(e, wait)
	if ok && e.Time >= u.until {
		return false, io.EOF
	}
	return ok, err
}
