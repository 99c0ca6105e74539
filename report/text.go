package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/report/words"
)

// TextOptions configure WriteTextWith.
type TextOptions struct {
	// Color marks the verdicts, anomalies and unreliable fits with ANSI colours. The caller
	// decides, for a terminal (UseColor); the words are the same either way.
	Color bool
}

// WriteText prints the report for a person at a terminal, without colours: the input
// accounting first (so a format change is never silent), then one block per series.
func WriteText(w io.Writer, r model.Report) error { return WriteTextWith(w, r, TextOptions{}) }

// WriteTextWith is WriteText with options.
func WriteTextWith(w io.Writer, r model.Report, o TextOptions) error {
	words.Fill(&r)
	bw := bufio.NewWriter(w)
	c := colors{on: o.Color}
	in := r.Input
	fmt.Fprintf(bw, "input: %s, %s, %d ignored, %d malformed", words.Count(in.Lines, "line"), words.Count(in.Samples, "sample"), in.Ignored, in.Malformed)
	if in.Unreadable > 0 {
		fmt.Fprintf(bw, ", %s", words.Count(in.Unreadable, "unreadable record"))
	}
	if in.OutOfRange > 0 {
		fmt.Fprintf(bw, ", %s outside --since/--until", words.Count(in.OutOfRange, "sample"))
	}
	if in.Dropped > 0 {
		fmt.Fprintf(bw, ", %s dropped past the series cap", words.Count(in.Dropped, "sample"))
	}
	if in.DamagedInputs > 0 {
		fmt.Fprintf(bw, ", %s read as far as they decoded", words.Count(in.DamagedInputs, "damaged input"))
	}
	fmt.Fprintf(bw, "\n")
	if len(r.Series) == 0 {
		fmt.Fprintf(bw, "\nno engine statistics found: is this an SGLang, vLLM or llama.cpp log with metrics logging on?\n")
	}
	for _, s := range r.Series {
		l := s.Labels
		fmt.Fprintf(bw, "\n%s", c.start(bold))
		fmt.Fprintf(bw, "%s", l.Engine)
		for _, name := range model.LabelNames[1:] {
			if v := l.Value(name); v != "" {
				fmt.Fprintf(bw, "  %s=%s", name, v)
			}
		}
		fmt.Fprintf(bw, "%s\n  %s, %s to %s (%s)\n", c.end(bold), words.Count(s.Samples, "sample"), s.First.Format(time.DateTime), s.Last.Format(time.DateTime),
			s.Last.Sub(s.First).Round(time.Second))
		if c := s.CommitLen; c != nil {
			fmt.Fprintf(bw, "  commit length: mean %.2f", c.Mean)
			if pooledDiffers(c) {
				fmt.Fprintf(bw, " per request, %.2f per verify step", c.PooledMean)
			}
			fmt.Fprintf(bw, ", p10 %.2f, p50 %.2f, p90 %.2f, last %.2f\n", c.P10, c.P50, c.P90, c.Last)
		}
		if m := s.StepModel; m != nil {
			if s.ContextUnit == "kv_percent" {
				fmt.Fprintf(bw, "  step model: %.1f ms + %.3f ms per 1 %% KV cache (R² %.2f, %s)", m.FixedMS, m.MSPerKVPercent, m.R2, words.Count(int64(m.N), "sample"))
			} else {
				fmt.Fprintf(bw, "  step model: %.1f ms + %.2f ms per 1k tokens", m.FixedMS, m.MSPer1kToken)
				if m.MSPerDraftToken != 0 {
					fmt.Fprintf(bw, " + %.2f ms per draft token (+ %.2f ms per draft token per 1k tokens)", m.MSPerDraftToken, m.MSPerDraftTokenPer1kT)
				}
				fmt.Fprintf(bw, " (R² %.2f, %s)", m.R2, words.Count(int64(m.N), "sample"))
			}
			if warn := fitWarning(m, s.ContextUnit == "kv_percent"); warn != "" {
				fmt.Fprintf(bw, " — %s", c.paint(yellow, warn))
			}
			fmt.Fprintln(bw)
		}
		if t := s.TPS; t != nil && t.PredictedMean > 0 {
			fmt.Fprintf(bw, "  tok/s: measured mean %.1f, predicted %.1f, mean abs error %.1f %%\n", t.MeasuredMean, t.PredictedMean, 100*t.MAPE)
		}
		if len(s.Forecast) > 0 {
			fmt.Fprintf(bw, "  forecast (one request):")
			for i, f := range s.Forecast {
				sep := ","
				if i == 0 {
					sep = ""
				}
				fmt.Fprintf(bw, "%s %dk tokens %.1f tok/s (%.0f ms/step)", sep, f.Context/1024, f.TPS, f.StepMS)
			}
			fmt.Fprintln(bw)
		}
		writeFusionText(bw, &s)
		writeReadinessText(bw, s.Readiness)
		for _, a := range s.Anomalies {
			end := "active"
			if a.End != nil {
				end = a.End.Format(time.DateTime)
			}
			fmt.Fprintf(bw, "  %s %s → %s: %s\n", c.paint(severityColor(a.Severity), "! "+a.Severity+" "+a.Kind), a.Start.Format(time.DateTime), end, a.Detail)
		}
		if s.Verdict != "" {
			fmt.Fprintf(bw, "  verdict: %s\n  %s\n", c.paint(verdictColor(s.Verdict), strings.ToUpper(s.Verdict)), s.Explanation)
		}
	}
	return bw.Flush()
}

// pooledDiffers reports whether the commit length per verify step reads differently from the
// mean per request (llama.cpp's requests of different lengths), so both are worth showing.
func pooledDiffers(c *model.CommitStats) bool {
	return c.PooledMean > 0 && fmt.Sprintf("%.2f", c.PooledMean) != fmt.Sprintf("%.2f", c.Mean)
}

// writeReadinessText lists the detectors that learn a baseline first, armed or warming up.
func writeReadinessText(w io.Writer, rs []model.Readiness) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprint(w, "  detectors:")
	for i, r := range rs {
		sep := ","
		if i == 0 {
			sep = ""
		}
		switch {
		case !r.Armed:
			fmt.Fprintf(w, "%s %s warming up (needs %s)", sep, r.Detector, words.Count(int64(r.NeedsSamples), "more sample"))
		case r.ArmedAt != nil:
			fmt.Fprintf(w, "%s %s armed %s", sep, r.Detector, r.ArmedAt.Format(time.DateTime))
		default:
			fmt.Fprintf(w, "%s %s armed", sep, r.Detector)
		}
	}
	fmt.Fprintln(w)
}
