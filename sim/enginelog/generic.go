package enginelog

import (
	"math"
	"time"

	"github.com/specwatch/specwatch/sim/internal/appendtext"
)

// AppendGenericPrefix: a custom build logs through Python's logging, without a rank.
func (w *Writer) AppendGenericPrefix(b []byte, t time.Time) []byte {
	if w.Prefix == PrefixBare {
		return b
	}
	return AppendPythonPrefix(b, t, "INFO", "ddtree.worker")
}

// appendCustom writes a key=value statistics line. Under an SGLang prefix it is the comma form
// DDTree forks print next to the decode line; a standalone generic build uses its own style.
func (w *Writer) appendCustom(b []byte, rec *Record) []byte {
	if rec.Renamed {
		b = append(b, "avg_commit_len -> "...)
		b = appendtext.Fixed(b, rec.Commit, 2)
		b = append(b, " | avg_accepted_depth -> "...)
		b = appendtext.Fixed(b, rec.Depth, 2)
		b = append(b, " | step -> "...)
		b = appendtext.Fixed(b, rec.Step*1000, 1)
		return append(b, " ms"...)
	}
	if w.Style == GenericSpace {
		accepted := math.Round((rec.Commit - 1) * float64(w.DecodeInterval*rec.Running))
		b = append(b, "ddtree step="...)
		b = appendtext.Int(b, rec.Iter)
		b = append(b, " bs="...)
		b = appendtext.Int(b, int64(rec.Running))
		b = append(b, " ctx="...)
		b = appendtext.Int(b, int64(rec.Ctx))
		b = append(b, " avg_commit_len="...)
		b = appendtext.Fixed(b, rec.Commit, 2)
		b = append(b, " avg_accepted_drafts="...)
		b = appendtext.Fixed(b, rec.Depth, 2)
		b = append(b, " num_accepted_drafts="...)
		b = appendtext.Int(b, int64(accepted))
		b = append(b, " step_time="...)
		return appendtext.Fixed(b, rec.Step, 4)
	}
	b = append(b, "avg_commit_len="...)
	b = appendtext.Fixed(b, rec.Commit, 2)
	b = append(b, ", avg_accepted_depth="...)
	b = appendtext.Fixed(b, rec.Depth, 2)
	b = append(b, ", step_ms="...)
	return appendtext.Fixed(b, rec.Step*1000, 1)
}
