package model

import "github.com/specwatch/specwatch/sample"

// commitCounts are the sums behind specwatch_committed_tokens_total and
// specwatch_verify_steps_total: the tokens committed and the verify steps (drafts) of every
// commit length the series took whose steps are known, so that their ratio over any range is
// the exact mean commit length over it, as the engines' own counters give it. A sample whose
// steps are unknown adds to neither (docs/metrics.md lists which).
type commitCounts struct {
	tokens, steps float64
	seen          bool // a sample was counted: the counters are exported from then on
}

// countCommit adds the tokens and steps behind commit, a commit length the series just took
// from s; running is the batch the sample states (0 if none).
func (se *Series) countCommit(s *sample.Sample, commit, running float64) {
	tok, steps := se.commitWeight(s, commit, running)
	if steps > 0 && tok >= steps { // NaN fails
		c := &se.committed
		c.tokens, c.steps, c.seen = c.tokens+tok, c.steps+steps, true
	}
}

// commitWeight returns the tokens committed and the verify steps behind s's commit length, or
// zero steps where s does not say. Exact where the engine counts its steps; SGLang's decode
// line is weighed by its interval's request steps, the decode log interval × the batch it
// prints (a proxy: requests join and leave within the interval).
func (se *Series) commitWeight(s *sample.Sample, commit, running float64) (tokens, steps float64) {
	if n, ok := s.Get(sample.Steps); ok { // llama.cpp requests, TensorRT-LLM iteration stats
		return commit * n, n
	}
	acc, hasAcc := s.Get(sample.Accepted)
	if s.Engine == sample.EngineVLLM && hasAcc {
		// The counters' commit length is 1 + Δaccepted / Δdrafts (ingest/scrape), so the drafts
		// come back from it; the log's commit has two decimals, and a draft is K draft tokens
		// (K: num_speculative_tokens, one rate per position).
		if s.Source == sample.SourceMetrics && acc > 0 && commit > 1 {
			d := acc / (commit - 1)
			return d + acc, d
		}
		k, ok := s.Get(sample.SpecTokens)
		if !ok {
			k = float64(s.NPos)
		}
		if dr, ok := s.Get(sample.Drafted); ok && k > 0 && dr > 0 {
			d := dr / k
			return d + acc, d
		}
		return 0, 0
	}
	if s.Engine == sample.EngineSGLang && s.Source == sample.SourceLog && s.Has(sample.GenTPS) && running > 0 {
		n, _ := se.DecodeInterval()
		steps = float64(n) * running
		return commit * steps, steps
	}
	return 0, 0
}
