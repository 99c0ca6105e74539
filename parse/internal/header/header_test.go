package header

import (
	"testing"

	"github.com/specwatch/specwatch/parse/internal/stamp"
)

// Read fills the caller's fields through the Sink and returns the engine the prefix named.
func TestRead(t *testing.T) {
	cases := []struct {
		line                   string
		host, unit, rank, proc string
		engine                 Engine
		prec                   stamp.Precision
	}{
		{"2026-11-20T09:00:01+0000 gpu07 python3[48211]: [2026-11-20 09:00:01 DP2 TP2] ",
			"gpu07", "python3", "DP2 TP2", "", SGLang, stamp.PrecAbsolute},
		{"vllm-1  | (APIServer pid=9120) INFO 11-20 09:00:01 [loggers.py:271] ",
			"", "vllm-1", "", "APIServer pid=9120", VLLM, stamp.PrecYearless},
		{"2026-06-07 11:20:05,102 [INFO] sglang.srt.managers.x: ", "", "", "", "", SGLang, stamp.PrecLocal},
		{"0.05.071.041 I ", "", "", "", "", Unknown, stamp.PrecRelative},
		{"free text before the marker ", "", "", "", "", Unknown, stamp.PrecNone},
		// TensorRT-LLM's logger: rank 0 is no rank (trtTags), older builds said MPI_Rank.
		{"[11/20/2026-09:00:01] [TRT-LLM] [RANK 0] [I] ", "", "", "", "", TRTLLM, stamp.PrecLocal},
		{"[11/20/2026-09:00:01] [TRT-LLM] [RANK 12] [W] ", "", "", "12", "", TRTLLM, stamp.PrecLocal},
		{"[11/20/2026-09:00:01] [TRT-LLM] [MPI_Rank 3] [I] ", "", "", "3", "", TRTLLM, stamp.PrecLocal},
		{"[TRT-LLM] [I] [RANK 5] [SpeculationGate] ", "", "", "5", "", TRTLLM, stamp.PrecNone},
		{"Nov 20 09:00:01 gpu07 trtllm-serve[4821]: [11/20/2026-09:00:01] [TRT-LLM] [I] ", "gpu07", "trtllm-serve", "", "", TRTLLM, stamp.PrecLocal},
		// The date alone is any Python program's; a rank tag that is not one ends the walk.
		{"[11/20/2026-09:00:01] [INFO] ", "", "", "", "", Unknown, stamp.PrecNone},
		{"[11/20/2026-09:00:01] [TRT-LLM] [RANK x] ", "", "", "", "", TRTLLM, stamp.PrecLocal},
		{"[13/20/2026-09:00:01] [TRT-LLM] ", "", "", "", "", Unknown, stamp.PrecNone},
	}
	for _, c := range cases {
		var st stamp.Stamp
		var host, unit, rank, proc []byte
		e := Read([]byte(c.line), Sink{Stamp: &st, Host: &host, Unit: &unit, Rank: &rank, Proc: &proc})
		if string(host) != c.host || string(unit) != c.unit || string(rank) != c.rank || string(proc) != c.proc ||
			e != c.engine || st.Prec != c.prec {
			t.Errorf("%q: host %q unit %q rank %q proc %q engine %d prec %v", c.line, host, unit, rank, proc, e, st.Prec)
		}
	}
}

// A compose service names the unit only when nothing before it did.
func TestComposeKeepsUnit(t *testing.T) {
	var st stamp.Stamp
	var host, rank, proc []byte
	unit := []byte("llama-server.service")
	Read([]byte("llama-1  | "), Sink{Stamp: &st, Host: &host, Unit: &unit, Rank: &rank, Proc: &proc})
	if string(unit) != "llama-server.service" {
		t.Errorf("unit %q", unit)
	}
}
