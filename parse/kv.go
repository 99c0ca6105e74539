package parse

import (
	"bytes"
	"math"

	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/sample"
)

// Alias maps a custom build's key to a Field; Scale converts its unit (0.001 for milliseconds).
type Alias struct {
	Field sample.Field
	Scale float64
}

// builtinAlias covers the key=value statistics that custom DDTree/DFLASH builds print. Keys
// that only make sense beside a primary figure (bs, ctx) do not by themselves make a line a
// sample: see primary.
func builtinAlias(key []byte) (Alias, bool) {
	switch string(key) {
	case "avg_commit_len", "commit_len", "avg_accept_len", "accept_len", "mean_accept_len",
		"avg_acceptance_length", "mean_acceptance_length", "accept_length", "accept_mean":
		return Alias{sample.Commit, 1}, true
	case "avg_accepted_depth", "accepted_depth":
		return Alias{sample.AcceptedDepth, 1}, true
	case "avg_accepted_drafts", "accepted_drafts":
		return Alias{sample.AcceptedDrafts, 1}, true
	case "num_accepted_drafts", "num_accepted_tokens":
		// A count over the logging interval, printed beside the average by DDTree builds.
		return Alias{sample.Accepted, 1}, true
	case "step_ms", "total_ms", "step_time_ms":
		return Alias{sample.StepSeconds, 0.001}, true
	case "step_time", "step_s", "step_sec":
		return Alias{sample.StepSeconds, 0}, true // unit decided by stepSeconds
	case "bs", "batch_size", "running", "num_running", "running_reqs":
		return Alias{sample.Running, 1}, true
	case "ctx", "context", "context_len", "context_tokens", "kv_tokens":
		return Alias{sample.Context, 1}, true
	case "gen_tps", "tok_s", "tokens_per_s", "gen_throughput":
		return Alias{sample.GenTPS, 1}, true
	case "accept_rate", "acceptance_rate":
		return Alias{sample.AcceptRate, 1}, true
	case "can_run_cuda_graph", "cuda_graph":
		return Alias{sample.Graph, 1}, true
	case "block_size":
		return Alias{sample.BlockSize, 1}, true
	case "tree_budget":
		return Alias{sample.TreeBudget, 1}, true
	}
	return Alias{}, false
}

// primary fields make a key=value line a sample; the rest only ride along.
func primary(f sample.Field) bool {
	return f == sample.Commit || f == sample.AcceptedDepth || f == sample.AcceptedDrafts || f == sample.StepSeconds
}

// maxStepSeconds separates "step_time=0.1013" (seconds) from "step_time=101.3" (milliseconds,
// as several forks print it): no decode step, even at 185k context, takes ten seconds.
const maxStepSeconds = 10

// kvValue reads the value of a known key strictly.
func kvValue(a Alias, v []byte) (float64, bool) {
	switch a.Field {
	case sample.Graph:
		return lex.Boolean(v)
	case sample.Commit:
		x, absent, ok := commitLen(v)
		return x, ok && !absent
	case sample.AcceptRate:
		return lex.Rate(v)
	case sample.Running, sample.Context, sample.BlockSize, sample.TreeBudget:
		return lex.Integer(v)
	case sample.StepSeconds:
		return stepSeconds(a, v)
	}
	x, ok := lex.WholeNumber(v)
	if a.Field == sample.AcceptedDepth || a.Field == sample.AcceptedDrafts {
		ok = ok && x <= 64
	}
	return scale(x, a.Scale), ok
}

// scale applies an alias's unit factor. Sub-unit factors divide by their inverse so that
// "step_ms=40.2" reads as exactly 0.0402, as a person would write it, not 0.04020000000000001.
func scale(x, f float64) float64 {
	if f > 0 && f < 1 {
		return x / math.Round(1/f)
	}
	return x * f
}

func stepSeconds(a Alias, v []byte) (float64, bool) {
	x, n := lex.Number(v)
	if n == 0 {
		return 0, false
	}
	unit := string(v[n:])
	switch {
	case unit == "ms":
		x /= 1000
	case unit == "s":
	case unit != "":
		return 0, false
	case a.Scale != 0:
		x = scale(x, a.Scale)
	case x >= maxStepSeconds:
		x /= 1000
	}
	return x, x > 0
}

// keyValues parses every key=value token of b. It reports whether a primary key was present, so
// that the caller can tell a statistics line from noise that happens to contain '='.
func keyValues(b []byte, s *Record, extra map[string]Alias) (r sample.Result, sawPrimary bool) {
	i := 0
	for {
		j := bytes.IndexByte(b[i:], '=')
		if j < 0 {
			break
		}
		key, val := lex.KeyBefore(b[i:i+j]), lex.ValueAt(b[i+j+1:])
		i += j + 1 + len(val)
		if len(key) == 0 {
			continue
		}
		a, ok := builtinAlias(key)
		if !ok && extra != nil {
			a, ok = extra[string(key)]
		}
		if !ok {
			if string(key) == "mode" && string(val) == "prefill" {
				s.Kind = sample.KindPrefill
			}
			continue
		}
		if primary(a.Field) {
			sawPrimary = true
		}
		x, ok := kvValue(a, val)
		if !ok {
			return malformed(s, "key=value: bad value"), sawPrimary
		}
		if !set(s, a.Field, x) {
			return malformed(s, "key=value: duplicated key"), sawPrimary
		}
	}
	return sample.Matched, sawPrimary
}
