package main

import (
	"bufio"
	"fmt"
	"io"
	"time"

	"github.com/specwatch/specwatch/model"
)

// writeText prints the report for a person at a terminal: the input accounting first (so a
// format change is never silent), then one block per series.
func writeText(w io.Writer, r model.Report) error {
	bw := bufio.NewWriter(w)
	in := r.Input
	fmt.Fprintf(bw, "input: %d lines, %d samples, %d ignored, %d malformed", in.Lines, in.Samples, in.Ignored, in.Malformed)
	if in.Unreadable > 0 {
		fmt.Fprintf(bw, ", %d unreadable records", in.Unreadable)
	}
	if in.OutOfRange > 0 {
		fmt.Fprintf(bw, ", %d samples outside --since/--until", in.OutOfRange)
	}
	fmt.Fprintf(bw, "\n")
	if len(r.Series) == 0 {
		fmt.Fprintf(bw, "\nno engine statistics found: is this an SGLang, vLLM or llama.cpp log with metrics logging on?\n")
	}
	for _, s := range r.Series {
		l := s.Labels
		fmt.Fprintf(bw, "\n%s", l.Engine)
		for _, kv := range [][2]string{{"host", l.Host}, {"unit", l.Unit}, {"rank", l.Rank}} {
			if kv[1] != "" {
				fmt.Fprintf(bw, "  %s=%s", kv[0], kv[1])
			}
		}
		fmt.Fprintf(bw, "\n  %d samples, %s to %s (%s)\n", s.Samples, s.First.Format(time.DateTime), s.Last.Format(time.DateTime),
			s.Last.Sub(s.First).Round(time.Second))
		if c := s.CommitLen; c != nil {
			fmt.Fprintf(bw, "  commit length: mean %.2f, p10 %.2f, p50 %.2f, p90 %.2f, last %.2f\n", c.Mean, c.P10, c.P50, c.P90, c.Last)
		}
	}
	return bw.Flush()
}
