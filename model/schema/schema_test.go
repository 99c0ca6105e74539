package schema

import (
	"encoding/json"
	"testing"

	"github.com/specwatch/specwatch/model/rank"
)

// TestLabelsValue: every name in LabelNames reads its own field, a rank dimension reads the
// rank's part, and an unknown name is empty.
func TestLabelsValue(t *testing.T) {
	l := Labels{Host: "gpu07", Unit: "vllm.service", Engine: "vllm", Rank: "DP1 TP3", Container: "c", Namespace: "ns", Pod: "p"}
	want := map[string]string{"engine": "vllm", "host": "gpu07", "unit": "vllm.service", "namespace": "ns", "pod": "p",
		"container": "c", "rank": "DP1 TP3"}
	for _, n := range LabelNames {
		if got := l.Value(n); got != want[n] {
			t.Errorf("Value(%q) = %q, want %q", n, got, want[n])
		}
	}
	if len(want) != len(LabelNames) {
		t.Fatalf("LabelNames %v: want the %d labels", LabelNames, len(want))
	}
	if l.Value("dp") != rank.Split("DP1 TP3").Value("dp") || l.Value("dp") == "" || l.Value("nonsense") != "" {
		t.Errorf("dp %q, nonsense %q", l.Value("dp"), l.Value("nonsense"))
	}
}

// TestEmptyContainerOmitted: a series without a container has no container keys in the JSON,
// which is public interface (dashboards and scripts read it).
func TestEmptyContainerOmitted(t *testing.T) {
	b, err := json.Marshal(Labels{Host: "h", Unit: "u", Engine: "sglang", Rank: "TP0"})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != `{"host":"h","unit":"u","engine":"sglang","rank":"TP0"}` {
		t.Errorf("JSON %s", got)
	}
}
