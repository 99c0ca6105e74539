package soak

import (
	"fmt"
	"strings"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testharness"
)

// writeReport renders the soak's account as Markdown: the totals, one row per fault, the
// memory curve of every incarnation and the checks' verdicts.
func (s *soak) writeReport(b *strings.Builder) {
	mb := func(v int64) string { return fmt.Sprintf("%.1f", float64(v)/(1<<20)) }
	written := s.w.decode.Load()
	counted := s.countedTotal()
	missing, dups := 0, 0
	for _, e := range s.episodes {
		if d := e.counted - e.want; d > 0 {
			dups += d
		} else {
			missing -= d
		}
	}
	mem := s.mem.all()
	peak := memSample{}
	for _, m := range mem {
		if m.RSS > peak.RSS {
			peak = m
		}
	}
	fmt.Fprintf(b, "## Soak (%s): %s simulated at %.0f× in %s\n\n", s.cfg.name, s.cfg.span, s.cfg.speedup, time.Since(s.started).Round(time.Second))
	fmt.Fprintf(b, "Entries written: %d (%d engine decode lines, the rest engine chatter and other units); journald refused %d sends while down (retried).\n",
		s.w.entries.Load(), written, s.w.retries.Load())
	fmt.Fprintf(b, "Decode samples counted (each incarnation up to its successor's starting cursor, the last to the end): %d = written %d − vacuumed unread %d. ",
		counted, written, s.lostDecode)
	fmt.Fprintf(b, "Settle checks: %d, mismatches: %d lines missing, %d counted twice. Losses reported: %d journal entries for %d decode lines vacuumed unread.\n\n",
		len(s.episodes), missing, dups, s.lostReported, s.lostDecode)

	fmt.Fprintf(b, "| fault | times | decode lines written (at last) | counted = ledger at every settle | duplicates | losses reported | peak RSS MB during |\n|---|---|---|---|---|---|---|\n")
	for _, f := range append(append([]fault(nil), soakFaults...), fault{name: "end of the replay"}) {
		n, ok, dup := 0, 0, 0
		var last episode
		var rss int64
		for _, e := range s.episodes {
			if e.fault != f.name {
				continue
			}
			n++
			last = e
			if e.counted == e.want {
				ok++
			}
			dup += max(0, e.counted-e.want)
			for _, m := range mem {
				from, to := s.started.Add(e.begin-time.Second), s.started.Add(e.at+time.Second)
				if !m.at.Before(from) && !m.at.After(to) && m.RSS > rss {
					rss = m.RSS
				}
			}
		}
		lost := "0"
		if f.name == "vacuum-unread" {
			lost = fmt.Sprintf("%d entries (%d decode lines vanished)", s.lostReported, s.lostDecode)
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d/%d | %d | %s | %s |\n", f.name, n, last.written, ok, n, dup, lost, mb(rss))
	}
	for i, o := range s.vm.outages {
		note := ""
		if o.restarted {
			note = " (specwatch restarted meanwhile: its new process's failures)"
		}
		fmt.Fprintf(b, "| victoria-metrics down #%d (%s) | 1 | | | | push failures %.0f%s, fresh data %s after VictoriaMetrics came back | |\n",
			i+1, o.down.Round(time.Second), o.failuresDuring, note, o.recovered.Round(10*time.Millisecond))
	}
	for i, st := range s.storms {
		fmt.Fprintf(b, "| scrape storm #%d (100 clients, %s) | 1 | | %d requests ok, %d scrapes shed (503) | | %d failed while up, %d during a restart | |\n",
			i+1, s.cfg.stormFor, st.ok.Load(), st.shed.Load(), st.failed.Load(), st.restarting.Load())
	}

	fmt.Fprintf(b, "\nPeak RSS %s MB (anon %s, file-backed %s) in incarnation %d. Prometheus scrapes (every second) that succeeded: %s.\n\n",
		mb(peak.RSS), mb(peak.Anon), mb(peak.File), peak.inc, s.promUp())
	fmt.Fprintf(b, "| incarnation | lived | RSS MB start / after warm-up / peak / end | anon MB start / peak / end | fds min–max | threads max | growth after %s warm-up MB (RSS / anon) | goroutines at its settles without a storm: first → last (min–max) |\n|---|---|---|---|---|---|---|---|\n", s.cfg.warmup)
	for i := range s.incs {
		var ms []memSample
		for _, m := range mem {
			if m.inc == i {
				ms = append(ms, m)
			}
		}
		if len(ms) == 0 {
			continue
		}
		first, end := ms[0], ms[len(ms)-1]
		var pk, pkA, warm memSample
		fdMin, fdMax, thr := ms[0].FDs, 0, 0
		growth, growthA := "—", "—"
		for _, m := range ms {
			pk.RSS, pkA.Anon = max(pk.RSS, m.RSS), max(pkA.Anon, m.Anon)
			fdMin, fdMax, thr = min(fdMin, m.FDs), max(fdMax, m.FDs), max(thr, m.Threads)
			if warm.RSS == 0 && m.at.Sub(first.at) >= s.cfg.warmup {
				warm = m
			}
		}
		if warm.RSS != 0 {
			var g, ga int64
			for _, m := range ms {
				if m.at.After(warm.at) {
					g, ga = max(g, m.RSS-warm.RSS), max(ga, m.Anon-warm.Anon)
				}
			}
			growth, growthA = mb(g), mb(ga)
		}
		gor := s.goroutines(i)
		fmt.Fprintf(b, "| %d | %s | %s / %s / %s / %s | %s / %s / %s | %d–%d | %d | %s / %s | %s |\n", i,
			end.at.Sub(first.at).Round(time.Second), mb(first.RSS), orDash(warm.RSS, mb), mb(pk.RSS), mb(end.RSS),
			mb(first.Anon), mb(pkA.Anon), mb(end.Anon), fdMin, fdMax, thr, growth, growthA, gor)
	}
}

// countedTotal is the decode samples committed by every incarnation: a killed one's are those
// up to the cursor its successor started from (the ledger's count of that range, which the
// settle checks matched to its own count while it ran); the last one's is its final count.
func (s *soak) countedTotal() int {
	total := 0
	for i, inc := range s.incs {
		if i+1 < len(s.incs) {
			total += s.led.between(inc.start, s.incs[i+1].start)
		} else {
			total += inc.counted
		}
	}
	return total
}

func orDash(v int64, f func(int64) string) string {
	if v == 0 {
		return "—"
	}
	return f(v)
}

// goroutines is "first → last (min–max)" of the daemon's go_goroutines at incarnation inc's
// settle checks, leaving out those during a scrape storm (whose 100 connections add as many).
func (s *soak) goroutines(inc int) string {
	var g []int
	for _, e := range s.episodes {
		if e.inc == inc && !e.storm && e.goroutines >= 0 {
			g = append(g, e.goroutines)
		}
	}
	if len(g) == 0 {
		return "—"
	}
	lo, hi := g[0], g[0]
	for _, v := range g {
		lo, hi = min(lo, v), max(hi, v)
	}
	return fmt.Sprintf("%d → %d (%d–%d, %d settles)", g[0], g[len(g)-1], lo, hi, len(g))
}

// promUp is the share of Prometheus's scrapes of specwatch that succeeded during the soak.
func (s *soak) promUp() string {
	w := fmt.Sprintf("[%ds]", int(time.Since(s.started).Seconds()))
	ok := testharness.PromQuery(s.t, s.prom.URL, "sum_over_time(up"+w+")")
	all := testharness.PromQuery(s.t, s.prom.URL, "count_over_time(up"+w+")")
	if len(ok) == 0 || len(all) == 0 {
		return "no data"
	}
	return fmt.Sprintf("%.0f of %.0f", ok[0].Value, all[0].Value)
}
