package noise

import (
	"testing"
	"time"

	"github.com/specwatch/specwatch/sim/enginelog"
	"github.com/specwatch/specwatch/sim/internal/transport"
)

// TestAppendEveryKind writes every line of every kind for every engine and format family: none
// is empty or has a line break (a record is one line), and none allocates into a buffer with
// room. That the lines carry no engine marker is checked on whole streams in package sim.
func TestAppendEveryKind(t *testing.T) {
	tm := time.Date(2026, 11, 20, 9, 0, 1, 0, time.UTC)
	buf := make([]byte, 0, 1024)
	for _, e := range []enginelog.Engine{enginelog.SGLang, enginelog.VLLM, enginelog.LlamaCpp, enginelog.Generic} {
		w := &enginelog.Writer{Engine: e, Style: enginelog.StyleDefault.Resolve(e), Color: true, Rank: "TP0"}
		p := &Process{Writer: w, Host: "gpu01", PID: 4242, Rank: 1}
		for _, f := range []transport.Format{transport.FormatRaw, transport.FormatDocker, transport.FormatShort} {
			for k := range NumKinds {
				for i := range Lines(k, e) {
					for _, pick := range []uint32{0, 12345, 1<<32 - 1} {
						allocs := testing.AllocsPerRun(10, func() { buf = Append(buf[:0], p, k, i, pick, tm, f) })
						if len(buf) == 0 || allocs != 0 {
							t.Fatalf("%s %v kind %d line %d: %q, %v allocations", e, f, k, i, buf, allocs)
						}
						for _, c := range buf {
							if c == '\n' || c == '\r' {
								t.Fatalf("%s %v kind %d line %d: line break in %q", e, f, k, i, buf)
							}
						}
					}
				}
			}
		}
	}
}
