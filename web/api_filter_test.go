package web

import (
	"strings"
	"testing"

	"github.com/specwatch/specwatch/model"
)

// TestSeriesFilterParallelLabels: ?series= matches on the dimensions split from the rank as on
// the labels themselves, and an unknown label is refused with the names it could have been.
func TestSeriesFilterParallelLabels(t *testing.T) {
	dp3 := model.Labels{Host: "gpu07", Engine: "sglang", Rank: "DP3 TP3"}
	tp0 := model.Labels{Host: "gpu07", Engine: "sglang", Rank: "TP0"}
	vllm := model.Labels{Host: "gpu08", Engine: "vllm", Rank: "Engine 003"}
	for _, c := range []struct {
		filter string
		want   [3]bool // dp3, tp0, vllm
	}{
		{"dp=3", [3]bool{true, false, true}},
		{"tp=0", [3]bool{false, true, false}},
		{"engine=sglang,tp=3", [3]bool{true, false, false}},
		{"rank=TP0", [3]bool{false, true, false}},
	} {
		fs, err := parseSeriesFilters([]string{c.filter})
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		for i, l := range []model.Labels{dp3, tp0, vllm} {
			if got := matchAny(fs, l); got != c.want[i] {
				t.Errorf("%s on %q: %v, want %v", c.filter, l.Rank, got, c.want[i])
			}
		}
	}
	if _, err := parseSeriesFilters([]string{"tensor=0"}); err == nil || !strings.Contains(err.Error(), "attn_cp") {
		t.Errorf("unknown label: %v, want an error listing the labels", err)
	}
}
