package web

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/model/rank"
	"github.com/specwatch/specwatch/report"
)

// maxSeriesFilters bounds the filters and terms one request may carry.
const maxSeriesFilters = 16

// serveReport serves GET /api/v1/report: model.Report as JSON, the schema of
// `specwatch analyze --format json` (docs/report.md), optionally restricted by ?series= filters.
//
// Filter syntax (the value of each series parameter):
//   - TEXT without "=": series whose host, unit, engine or rank contains TEXT (case-sensitive);
//     `?series=gpu07` or `?series=vllm`.
//   - name=value[,name=value...]: every named label equals its value exactly, names among host,
//     unit, engine, rank; `?series=host=gpu07,rank=DP0%20TP0`. Values cannot contain "," or "=".
//   - Repeated parameters are alternatives: `?series=vllm&series=rank=TP0` keeps series that
//     match either.
//
// The input section always covers the whole input. Any other parameter, an empty filter or an
// unknown label name is a 400, so that a typo does not silently return everything.
func (s *Server) serveReport(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		http.Error(w, "bad query string: "+err.Error(), http.StatusBadRequest)
		return
	}
	for k := range q {
		if k != "series" {
			http.Error(w, fmt.Sprintf("unknown parameter %q (only series is accepted)", k), http.StatusBadRequest)
			return
		}
	}
	filters, err := parseSeriesFilters(q["series"])
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// The report is read inside the render, which requests with the same query share.
	s.writeRendered(w, r, "/api/v1/report?"+r.URL.RawQuery, "application/json", "encoding the report", func(b io.Writer) error {
		rep := s.opts.Source.Report()
		if len(filters) > 0 {
			kept := rep.Series[:0]
			for _, se := range rep.Series {
				if matchAny(filters, se.Labels) {
					kept = append(kept, se)
				}
			}
			rep.Series = kept
		}
		return report.WriteJSON(b, rep, report.JSONOptions{})
	})
}

// seriesFilter is one series parameter: a substring, or exact label terms.
type seriesFilter struct {
	substr string
	terms  []labelTerm
}

type labelTerm struct{ name, value string }

func parseSeriesFilters(vals []string) ([]seriesFilter, error) {
	if len(vals) > maxSeriesFilters {
		return nil, fmt.Errorf("more than %d series filters", maxSeriesFilters)
	}
	var out []seriesFilter
	for _, v := range vals {
		if v == "" {
			return nil, fmt.Errorf("empty series filter")
		}
		if !strings.Contains(v, "=") {
			out = append(out, seriesFilter{substr: v})
			continue
		}
		var f seriesFilter
		for _, term := range strings.Split(v, ",") {
			name, value, ok := strings.Cut(term, "=")
			if !ok || strings.Contains(value, "=") {
				return nil, fmt.Errorf("series filter %q: want name=value[,name=value...]", v)
			}
			if !slices.Contains(model.LabelNames[:], name) && !slices.Contains(rank.LabelNames[:], name) {
				return nil, fmt.Errorf("series filter %q: unknown label %q (%s, %s)", v, name,
					strings.Join(model.LabelNames[:], ", "), strings.Join(rank.LabelNames[:], ", "))
			}
			f.terms = append(f.terms, labelTerm{name, value})
		}
		if len(f.terms) > maxSeriesFilters {
			return nil, fmt.Errorf("series filter %q: more than %d terms", v, maxSeriesFilters)
		}
		out = append(out, f)
	}
	return out, nil
}

func matchAny(fs []seriesFilter, l model.Labels) bool {
	for i := range fs {
		if fs[i].match(l) {
			return true
		}
	}
	return false
}

func (f *seriesFilter) match(l model.Labels) bool {
	if f.terms == nil {
		for _, name := range model.LabelNames {
			if strings.Contains(l.Value(name), f.substr) {
				return true
			}
		}
		return false
	}
	for _, t := range f.terms {
		if l.Value(t.name) != t.value {
			return false
		}
	}
	return true
}
