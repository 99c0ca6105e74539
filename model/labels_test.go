package model

import "testing"

func TestLabelsValueParallel(t *testing.T) {
	l := Labels{Engine: "sglang", Rank: "DP2 TP5"}
	for name, want := range map[string]string{"dp": "2", "tp": "5", "pp": "", "rank": "DP2 TP5", "nope": ""} {
		if got := l.Value(name); got != want {
			t.Errorf("Value(%q) = %q, want %q", name, got, want)
		}
	}
}
