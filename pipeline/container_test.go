package pipeline

import (
	"fmt"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
)

// TestContainersAreSeries: two SGLang containers logging through one unit (Docker's journald
// driver puts every container under docker.service) are two series with their own samples,
// not one series whose interleaved lines make no step model.
func TestContainersAreSeries(t *testing.T) {
	st := NewState(StateOptions{})
	p := New(st, Options{Year: 2026})
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	counts := map[string]int{"sglang-a": 30, "sglang-b": 7}
	n := 0
	for i := 0; i < 30; i++ {
		for _, c := range []string{"sglang-a", "sglang-b"} {
			if i >= counts[c] {
				continue
			}
			n++
			msg := fmt.Sprintf("[2026-11-20 09:00:%02d TP0] Decode batch. #running-req: 1, #token: %d, token usage: 0.01, accept len: 3.00, cuda graph: True, gen throughput (token/s): 40.00, #queue-req: 0", i, 1000+100*i)
			p.Apply(&ingest.Entry{Time: t0.Add(time.Duration(n) * time.Millisecond).UnixMicro(), Host: []byte("gpu01"),
				Unit: []byte("docker.service"), Container: []byte(c), Message: []byte(msg)})
		}
	}
	r := st.Report()
	if len(r.Series) != 2 {
		t.Fatalf("%d series, want 2: %+v", len(r.Series), r.Series)
	}
	for _, se := range r.Series {
		if want := int64(counts[se.Labels.Container]); se.Samples != want || se.Labels.Unit != "docker.service" || se.Labels.Rank != "TP0" {
			t.Errorf("series %+v: %d samples, want %d", se.Labels, se.Samples, want)
		}
	}
}
