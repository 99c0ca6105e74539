package sim

import (
	"math"
	"time"
)

// appendGenericPrefix: a custom build logs through Python's logging, without a rank.
func (r *rankSim) appendGenericPrefix(b []byte, t time.Time) []byte {
	if r.svc.Prefix == PrefixBare {
		return b
	}
	return appendPythonPrefix(b, t, "INFO", "ddtree.worker")
}

// appendCustom writes a key=value statistics line. Under an SGLang prefix it is the comma form
// DDTree forks print next to the decode line; a standalone generic build uses its own style.
func (r *rankSim) appendCustom(b []byte, rec *record) []byte {
	if rec.format {
		b = append(b, "avg_commit_len -> "...)
		b = appendFixed(b, rec.commit, 2)
		b = append(b, " | avg_accepted_depth -> "...)
		b = appendFixed(b, rec.depth, 2)
		b = append(b, " | step -> "...)
		b = appendFixed(b, rec.step*1000, 1)
		return append(b, " ms"...)
	}
	if r.style == GenericSpace {
		accepted := math.Round((rec.commit - 1) * float64(r.decodeInterval*rec.running))
		b = append(b, "ddtree step="...)
		b = appendInt(b, rec.iter)
		b = append(b, " bs="...)
		b = appendInt(b, int64(rec.running))
		b = append(b, " ctx="...)
		b = appendInt(b, int64(rec.ctx))
		b = append(b, " avg_commit_len="...)
		b = appendFixed(b, rec.commit, 2)
		b = append(b, " avg_accepted_drafts="...)
		b = appendFixed(b, rec.depth, 2)
		b = append(b, " num_accepted_drafts="...)
		b = appendInt(b, int64(accepted))
		b = append(b, " step_time="...)
		return appendFixed(b, rec.step, 4)
	}
	b = append(b, "avg_commit_len="...)
	b = appendFixed(b, rec.commit, 2)
	b = append(b, ", avg_accepted_depth="...)
	b = appendFixed(b, rec.depth, 2)
	b = append(b, ", step_ms="...)
	return appendFixed(b, rec.step*1000, 1)
}
