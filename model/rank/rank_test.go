package rank

import "testing"

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		rank string
		want Parallelism
	}{
		{"", Parallelism{}},
		{"TP0", Parallelism{TP: "0"}},
		{"DP3 TP3 EP3", Parallelism{DP: "3", TP: "3", EP: "3"}},
		{"DP1 PP1 TP7", Parallelism{DP: "1", PP: "1", TP: "7"}},
		{"ATTN_CP4 MOE_DP2 PP1 TP0", Parallelism{AttnCP: "4", PP: "1", TP: "0"}},
		{"Engine 000", Parallelism{DP: "0"}},
		{"Engine 012", Parallelism{DP: "12"}},
		{"TP007", Parallelism{TP: "7"}},
		// Unknown forms fill nothing: the rank label alone tells such series apart.
		{"gpu=0", Parallelism{}},
		{"2 Engines Aggregated", Parallelism{}},
		{"Engine x", Parallelism{}},
		{"MOE_DP2", Parallelism{}},
		{"TP", Parallelism{}},
	} {
		if got := Split(c.rank); got != c.want {
			t.Errorf("Split(%q) = %+v, want %+v", c.rank, got, c.want)
		}
	}
}
