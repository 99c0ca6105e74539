package enginemetrics

import (
	"bytes"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The exposition parses as Prometheus text, and its counters hold what Truth says.
func TestVLLMExposition(t *testing.T) {
	var m VLLM
	up := 17 * time.Minute
	drafts, perPos := m.Truth(up)
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(bytes.NewReader(m.Exposition(up)))
	if err != nil {
		t.Fatal(err)
	}
	if got := families["vllm:spec_decode_num_drafts_total"].GetMetric()[0].GetCounter().GetValue(); got != drafts || drafts == 0 {
		t.Errorf("drafts %v, Truth %v", got, drafts)
	}
	pos := families["vllm:spec_decode_num_accepted_tokens_per_pos_total"].GetMetric()
	if len(pos) != len(perPos) || len(pos) != 5 {
		t.Fatalf("%d positions, Truth %d", len(pos), len(perPos))
	}
	for i, p := range pos {
		if p.GetCounter().GetValue() != perPos[i] {
			t.Errorf("position %d: %v, Truth %v", i, p.GetCounter().GetValue(), perPos[i])
		}
	}
}
