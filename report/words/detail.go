// Package words writes what the model found in sentences: each anomaly's and event's detail,
// and a series' explanation, from the codes and numbers the model reports (schema.Evidence,
// schema.Diagnosis). The model decides; only this package words.
package words

import (
	"fmt"
	"strings"
	"time"

	"github.com/specwatch/specwatch/model/schema"
	"github.com/specwatch/specwatch/report/numfmt"
)

var sprintf = fmt.Sprintf

// Detail is the sentence of one anomaly's or event's evidence; kv says the series' contexts
// are KV cache percentages (vLLM), not tokens.
func Detail(e schema.Evidence, kv bool) string {
	n := &e.N
	switch e.Code {
	case schema.CodeStuckSamples, schema.CodeStuckRequests:
		d := sprintf("commit length %.2f for %s with requests running (%.0f): the drafter contributes nothing",
			n[0], Count(int64(n[1]), "consecutive sample"), n[2])
		if e.Code == schema.CodeStuckRequests {
			d = sprintf("commit length %.2f for %s (%.0f running): the drafter contributes nothing",
				n[0], Count(int64(n[1]), "consecutive request"), n[2])
		}
		if n[3] > 0 {
			d += sprintf(" (yet accepted depth says %.2f: check the metrics too)", n[3])
		}
		return d
	case schema.CodeDepthMismatch:
		return sprintf("commit length %.2f but accepted depth %.2f: commit should be depth + 1 (off by %.2f)", n[0], n[1], n[2])
	case schema.CodeDraftsMismatch:
		return sprintf("commit length %.2f but accepted drafts %.2f: commit should be drafts + 1", n[0], n[1])
	case schema.CodeTPSMismatch:
		return sprintf("measured %.1f tok/s but commit %.2f × %.0f running / step %.1f ms = %.1f tok/s", n[0], n[1], n[2], n[3], n[4])
	case schema.CodeAcceptedOverDrafted:
		return sprintf("accepted %.0f draft tokens out of %.0f drafted: more accepted than proposed", n[0], n[1])
	case schema.CodeCollapse:
		return sprintf("measured %.1f tok/s is %.0f %% of the %.1f tok/s the model predicts at %s with commit %.2f, for %s",
			n[0], n[1], n[2], ctxPhrase(n[3], kv), n[4], Count(int64(n[5]), "sample"))
	case schema.CodeDropWindows:
		return sprintf("commit length fell to %.2f (window mean) against a baseline of %.2f ± %.2f, %.0f %% lower, sustained for %s of %s",
			n[0], n[1], n[2], n[3], Count(int64(n[4]), "window"), Count(int64(n[5]), "sample"))
	case schema.CodeSlowDrift:
		return sprintf("commit length drifted to %.2f (mean of the last %s) against %.2f ± %.2f before the last hour, %.0f %% lower",
			n[0], Count(int64(n[1]), "sample"), n[2], n[3], n[4])
	case schema.CodeRegression:
		return sprintf("steps are %.0f %% slower than the model predicts at %s (%.1f ms expected, fit %.1f ms + %.2f ms per %s), sustained for %s",
			n[0], ctxPhrase(n[1], kv), n[2], n[3], n[4], perUnit(kv), Count(int64(n[5]), "window"))
	case schema.CodeFormatDrift:
		return sprintf("%d of the last %s with an engine marker did not parse: the engine's log format has changed", int64(n[0]), Count(int64(n[1]), "line"))
	case schema.CodeStale:
		return sprintf("no statistics for %s while the unit keeps logging (last sample %s)",
			time.Duration(n[0]).Round(time.Second), dateTime(e.T[0]))
	case schema.CodeSkewAccept:
		return sprintf("commit length %.2f is %.0f %% below the %.2f of the other ranks of this engine process (median of %d)",
			n[0], n[1], n[2], int64(n[3]))
	case schema.CodeSkewStep:
		return sprintf("steps at %s are %.0f %% slower than the other ranks' of this engine process at the same context (%.1f ms against %.1f ms, median of %d)",
			ctxPhrase(n[0], kv), n[1], n[2], n[3], int64(n[4]))
	case schema.CodeRestartRegressed:
		return sprintf("after the engine restart at %s: %s", dateTime(e.T[0]), restartChange(n))
	case schema.CodeRestartFine:
		return sprintf("The engine restarted at %s; after it, %s: no regression.", dateTime(e.T[0]), restartChange(n))
	case schema.CodeSpecOff:
		return sprintf("no drafts for %s at %s, a batch size it drafted at before: speculation switched off (%s); tokens per step fell to 1",
			time.Duration(n[0]), Count(int64(n[1]), "running request"), specCause(n))
	case schema.CodeRestartCounters:
		return "the engine's counters went back: it restarted (or its counters were cleared); the interval across it is not counted"
	case schema.CodeRestartLogged:
		return "the engine logged its start-up line: it (re)started"
	case schema.CodeRestartPublisher:
		return "the engine's forward-pass publisher started again: it restarted"
	case schema.CodeSpecOn:
		return sprintf("speculation on again at %s (off at %d)", Count(int64(n[0]), "running request"), int64(n[1]))
	case schema.CodeSpecOffBatch:
		return sprintf("speculation off at %s (drafting at %d): the engine's policy for this batch size", Count(int64(n[0]), "running request"), int64(n[1]))
	case schema.CodeDropWarming:
		return sprintf("acceptance_drop is still warming up (it needs %s)", Count(int64(n[0]), "more sample"))
	case schema.CodeDropArmedLate:
		return sprintf("acceptance_drop armed at %s, after the baseline window (%s)", dateTime(e.T[0]), dateTime(e.T[1]))
	}
	return ""
}

// restartChange says what changed across a restart (CodeRestartRegressed's numbers).
func restartChange(n *[8]float64) string {
	var parts []string
	if n[0] != 0 {
		parts = append(parts, sprintf("steps %+.0f %% at the contexts it ran before (%s against the old fit)", n[1], Count(int64(n[2]), "decode point")))
	}
	if n[3] != 0 {
		parts = append(parts, sprintf("commit length %.2f against %.2f before (%+.0f %%)", n[4], n[5], n[6]))
	}
	if len(parts) == 0 {
		return "nothing comparable"
	}
	return strings.Join(parts, " and ")
}

func specCause(n *[8]float64) string {
	switch n[2] {
	case schema.SpecCauseGate:
		return sprintf("TensorRT-LLM's SpeculationGate turned it off for good: rolling accepted drafts %.3f below the threshold %g", n[3], n[4])
	case schema.SpecCauseAdaptive:
		return sprintf("SGLang's adaptive speculation set its steps to 0 at ema_accept_len %.2f", n[3])
	}
	return "the engine states no cause"
}

// ctxPhrase names a context value in the series' unit, as the sentences do.
func ctxPhrase(ctx float64, kv bool) string {
	if kv {
		return sprintf("%.1f %% KV cache usage", ctx)
	}
	return numfmt.Commas(ctx) + " tokens of context"
}

// perUnit is the unit of the fit's slope.
func perUnit(kv bool) string {
	if kv {
		return "1 % KV"
	}
	return "1k tokens"
}

func dateTime(t int64) string { return time.Unix(0, t).UTC().Format(time.DateTime) }
