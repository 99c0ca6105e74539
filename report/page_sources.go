package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/report/numfmt"
)

// sourcesLine says on a card which input gave which figure, for series the scrape source fed.
func sourcesLine(s *model.Sources) string {
	if s == nil {
		return ""
	}
	var parts []string
	for _, f := range []struct{ name, src string }{
		{"commit length", s.CommitLen}, {"per position", s.PerPosition}, {"step time and context", s.Step},
	} {
		if f.src != "" {
			parts = append(parts, f.name+" from "+sourceName(f.src))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Sources: " + strings.Join(parts, " · ") + "."
}

func sourceName(s string) string {
	if s == "metrics" {
		return "the engine's /metrics"
	}
	return s
}

// eventLines are the series' restarts, one line each.
func eventLines(es []model.EventJSON) []string {
	var out []string
	for _, e := range es {
		out = append(out, "Engine "+e.Kind+" at "+numfmt.Time(e.Time)+": "+e.Detail+".")
	}
	return out
}

// writeFusionText writes the text report's lines for acceptance per position, the sources and
// the restarts.
func writeFusionText(w io.Writer, s *model.SeriesReport) {
	if pp := s.PerPosition; pp != nil {
		fmt.Fprintf(w, "  acceptance per draft position:")
		// The positions that accept nothing at the end of a long draft (an n-gram draft's 64)
		// are one range.
		last := len(pp.Acceptance)
		for last > 0 && pp.Acceptance[last-1] < 0.005 {
			last--
		}
		if len(pp.Acceptance)-last < 2 {
			last = len(pp.Acceptance)
		}
		for i, a := range pp.Acceptance[:last] {
			fmt.Fprintf(w, " %d: %.0f %%", i+1, 100*a)
			if i > 0 && i < len(pp.Conditional) {
				fmt.Fprintf(w, " (×%.2f)", pp.Conditional[i])
			}
		}
		if last < len(pp.Acceptance) {
			fmt.Fprintf(w, " %d-%d: 0 %%", last+1, len(pp.Acceptance))
		}
		fmt.Fprintln(w)
	}
	if l := sourcesLine(s.Sources); l != "" {
		fmt.Fprintf(w, "  %s\n", l)
	}
	for _, e := range s.Events {
		fmt.Fprintf(w, "  * %s %s: %s\n", e.Kind, e.Time.Format(time.DateTime), e.Detail)
	}
}

// readinessLine says which detectors are warming up and what they still need; nothing when
// all are armed.
func readinessLine(rs []model.Readiness) string {
	var parts []string
	for _, r := range rs {
		if !r.Armed {
			parts = append(parts, r.Detector+" warming up ("+countOf(int64(r.NeedsSamples), "more sample")+")")
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Detectors: " + strings.Join(parts, " · ") + "; a change they would judge is not judged yet."
}
