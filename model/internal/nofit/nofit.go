// Package nofit keeps the account of decode lines that did not reach a series' step model,
// so that a series without one says exactly why instead of "0 of 20" beside hundreds of
// decode lines.
package nofit

import (
	"fmt"
	"strings"
)

// Account counts decode lines kept out of the fit, by reason. The zero value is ready.
type Account struct {
	AfterIdle, NoContext, BadStep int64
	// Shared counts requests that ran beside others (llama.cpp): their step is shared.
	Shared int64
	// Untrusted counts after-idle verdicts given only because no logging rhythm was known.
	Untrusted int64
}

// Count records why a decode point will not reach the fit, if it will not: it came after an
// idle gap, named no context, gave no positive step, or shared its steps with other requests.
func (a *Account) Count(idle, hasCtx bool, step float64, shared bool) {
	switch {
	case idle:
		a.AfterIdle++
	case !hasCtx:
		a.NoContext++
	case !(step > 0):
		a.BadStep++
	case shared:
		a.Shared++
	}
}

// Explain is the report's sentence for a series whose fit has n of warmup points after lines
// decode lines; interval is the decode log interval in use.
func (a *Account) Explain(n, warmup int, lines int64, interval int) string {
	msg := fmt.Sprintf("Not enough decode samples for a step model yet (%d of %d).", n, warmup)
	var why []string
	for _, r := range []struct {
		n   int64
		why string
	}{{a.AfterIdle, "came after an idle gap (their throughput is averaged over the pause)"},
		{a.NoContext, "named no context"}, {a.BadStep, "gave no positive step"},
		{a.Shared, "were requests that ran beside others (their steps are shared with contexts they do not name)"}} {
		if r.n > 0 {
			why = append(why, fmt.Sprintf("%d %s", r.n, r.why))
		}
	}
	if lines < 2*int64(warmup) || len(why) == 0 {
		return msg
	}
	msg += fmt.Sprintf(" Of %d decode lines, %s.", lines, strings.Join(why, ", "))
	if a.Untrusted > 0 {
		msg += fmt.Sprintf(" No line continued the one before it (context growth ≠ %d steps × commit length × running requests), so no logging rhythm was learned; set model.decode_log_interval if the engine's --decode-log-interval is not %d.", interval, interval)
	}
	return msg
}
