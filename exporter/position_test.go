package exporter_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/specwatch/specwatch/exporter/exportertest"
	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
)

// TestAcceptRateByPosition: a vLLM rank's per-position list is exported per position, 1 the
// first draft token, weighted by the draft tokens of each line (400 and 1,200 here).
func TestAcceptRateByPosition(t *testing.T) {
	st := pipeline.NewState(pipeline.StateOptions{Model: model.Options{}})
	p := pipeline.New(st, pipeline.Options{Year: 2026})
	for _, l := range []string{
		"(APIServer pid=1) INFO 12-01 12:00:00 [metrics.py:1] SpecDecoding metrics: Mean acceptance length: 2.50, Accepted throughput: 40.00 tokens/s, Drafted throughput: 80.00 tokens/s, Accepted: 200 tokens, Drafted: 400 tokens, Per-position acceptance rate: 0.800, 0.500, 0.200, Avg Draft acceptance rate: 50.0%",
		"(APIServer pid=1) INFO 12-01 12:00:10 [metrics.py:1] SpecDecoding metrics: Mean acceptance length: 2.10, Accepted throughput: 88.00 tokens/s, Drafted throughput: 240.00 tokens/s, Accepted: 440 tokens, Drafted: 1200 tokens, Per-position acceptance rate: 0.600, 0.400, 0.100, Avg Draft acceptance rate: 36.7%",
	} {
		p.Apply(&ingest.Entry{Host: []byte("gpu08"), Unit: []byte("vllm.service"), Message: []byte(l)})
	}
	m := exportertest.NewMetrics(t, st)
	// weighted by drafted tokens, the first line forgotten for the ten seconds to the second
	// over the two-hour half-life: about (400·0.8 + 1200·0.6)/1600 = 0.65, then 0.425, 0.125
	f := math.Exp2(-10 / model.DefaultLongHalfLife.Seconds())
	want := "# HELP specwatch_position_accept_ratio Share of verify steps whose draft token at this position (label position, 1 = the first draft token) was accepted, as a ratio (0-1): the engine's per-position acceptance, weighted by draft tokens over the long acceptance half-life. Only for engines that state it (vLLM, llama.cpp).\n" +
		"# TYPE specwatch_position_accept_ratio gauge\n"
	for i, r := range [][2]float64{{0.8, 0.6}, {0.5, 0.4}, {0.2, 0.1}} {
		v := (400*f*r[0] + 1200*r[1]) / (400*f + 1200)
		if math.Abs(v-[]float64{0.65, 0.425, 0.125}[i]) > 1e-3 {
			t.Fatalf("position %d: %v", i+1, v)
		}
		want += fmt.Sprintf("specwatch_position_accept_ratio{attn_cp=\"\",container=\"\",dp=\"\",engine=\"vllm\",ep=\"\",host=\"gpu08\",namespace=\"\",pod=\"\",position=\"%d\",pp=\"\",rank=\"\",tp=\"\",unit=\"vllm.service\"} %s\n", i+1, strconv.FormatFloat(v, 'g', -1, 64))
	}
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), "specwatch_position_accept_ratio"); err != nil {
		t.Error(err)
	}
}
