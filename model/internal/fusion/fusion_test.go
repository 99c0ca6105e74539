package fusion

import (
	"testing"

	"github.com/specwatch/specwatch/sample"
)

// TestCommitFrom: acceptance moves once to the counters, except llama.cpp's, which moves to
// the logs (its counters count no verify steps) and never back.
func TestCommitFrom(t *testing.T) {
	for _, c := range []struct {
		engine sample.Engine
		want   string
	}{{sample.EngineVLLM, "metrics"}, {sample.EngineSGLang, "metrics"}, {sample.EngineLlamaCpp, "logs"}} {
		for _, first := range []sample.Source{sample.SourceLog, sample.SourceMetrics} {
			ch := New()
			better := CommitFrom(c.engine)
			other := sample.SourceLog + sample.SourceMetrics - first
			if ok, _ := ch.Commit.Take(first, better); !ok {
				t.Errorf("%s: the first source (%s) refused", c.engine, first)
			}
			ch.Commit.Take(other, better)
			for _, src := range []sample.Source{first, other} {
				ok, moved := ch.Commit.Take(src, better)
				if ok != (src.String() == c.want) || moved {
					t.Errorf("%s, %s first: %s takes %v (moved %v), want only %s", c.engine, first, src, ok, moved, c.want)
				}
			}
			if ch.Commit.Name() != c.want {
				t.Errorf("%s, %s first: commit from %s, want %s", c.engine, first, ch.Commit.Name(), c.want)
			}
		}
	}
}
