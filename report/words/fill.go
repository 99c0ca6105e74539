package words

import (
	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/report/numfmt"
)

// Fill writes every sentence of r in place: anomaly and event details, per-position advice and
// each series' explanation. Writers call it on the report they are given; a report filled
// twice is unchanged, and a part without codes (a report read back from its JSON) keeps the
// words it has.
func Fill(r *schema.Report) {
	for i := range r.Series {
		FillSeries(&r.Series[i])
	}
}

// FillSeries is Fill for one series.
func FillSeries(s *schema.SeriesReport) {
	kv := s.ContextUnit == "kv_percent"
	for i := range s.Anomalies {
		if a := &s.Anomalies[i]; a.Evidence.Code != schema.CodeNone {
			a.Detail = Detail(a.Evidence, kv)
		}
	}
	for i := range s.Events {
		if e := &s.Events[i]; e.Evidence.Code != schema.CodeNone {
			e.Detail = Detail(e.Evidence, kv)
		}
	}
	if p := s.PerPosition; p != nil && p.Advice != nil && len(p.Advice.Dropped) > 0 {
		p.Advice.Detail = advice(p.Advice, s.Labels.Engine)
	}
	if s.Diagnosis != nil {
		s.Explanation = Explain(s)
	}
}

// advice says that a shorter draft would commit nearly the same tokens for less work, naming
// the setting as the engine spells it.
func advice(a *schema.PositionAdvice, engine string) string {
	n, k := a.Configured, a.Suggested
	list := rates(a.Dropped)
	which := sprintf("positions %d-%d accept %s", k+1, n, list)
	if k+1 == n {
		which = sprintf("position %d accepts %s", n, list)
	}
	return sprintf("%s %d is too high: %s; %d would commit %.2f of the %.2f tokens per verify step, with %s to verify (each costs about %.0f %% of a step).",
		draftOption(engine), n, which, k, a.Kept, a.Commit, Count(int64(n-k), "fewer draft position"), a.Cost*100)
}

// rates lists acceptance rates as people read them: "40 %", "40 %, 30 % and 20 %", or a range.
func rates(a []float64) string {
	pct := func(x float64) string { return sprintf("%.0f %%", x*100) }
	switch {
	case len(a) == 0:
		return numfmt.Dash
	case len(a) == 1:
		return pct(a[0])
	case len(a) > 4:
		return "from " + pct(a[0]) + " down to " + pct(a[len(a)-1])
	}
	s := ""
	for i, x := range a {
		switch {
		case i == 0:
		case i == len(a)-1:
			s += " and "
		default:
			s += ", "
		}
		s += pct(x)
	}
	return s
}

// draftOption names the setting of the draft length as the engine spells it.
func draftOption(engine string) string {
	switch engine {
	case "vllm":
		return "num_speculative_tokens"
	case "llamacpp":
		return "the draft length (--spec-draft-n-max, --draft-max in older builds)"
	}
	return "the draft length"
}
