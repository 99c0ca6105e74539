package pipeline_test

import (
	"context"
	"fmt"
	"io"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/pipeline"
)

// lines is a whole source: engine log lines held in memory, handed out once each, then its
// end. A following source would block in Next until it had a line, return ingest.ErrCaughtUp
// while it has none, and return ctx.Err() once ctx ends.
type lines struct {
	host, unit string
	msgs       []string
}

func (l *lines) Next(ctx context.Context, e *ingest.Entry) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(l.msgs) == 0 {
		return io.EOF
	}
	*e = ingest.Entry{Host: []byte(l.host), Unit: []byte(l.unit), Message: []byte(l.msgs[0])}
	l.msgs = l.msgs[1:]
	return nil
}

func (l *lines) Close() error { return nil }

// Adding a source: a type with Next and Close, and one Input in the list Follow reads (in the
// daemon, one line in daemon/run.go). Its entries join the other inputs' in the one model.
func Example_source() {
	st := pipeline.NewState(pipeline.StateOptions{})
	engine := &lines{host: "gpu07", unit: "sglang.service", msgs: []string{
		"[2026-11-20 09:00:01 TP0] Decode batch, #running-req: 4, #token: 8192, token usage: 0.05, accept len: 2.90, gen throughput (token/s): 120.00, #queue-req: 0",
		"[2026-11-20 09:00:11 TP0] Decode batch, #running-req: 4, #token: 8448, token usage: 0.05, accept len: 3.10, gen throughput (token/s): 126.00, #queue-req: 0",
	}}
	other := &lines{host: "gpu08", unit: "vllm.service", msgs: []string{"INFO 11-20 09:00:05 [loggers.py:271] not a statistics line"}}
	err := pipeline.New(st, pipeline.Options{Year: 2026}).Follow(context.Background(),
		pipeline.Input{Source: engine}, pipeline.Input{Source: other})
	in := st.Report().Input
	fmt.Println(err, in.Lines, in.Samples, len(st.Report().Series))
	// Output: <nil> 3 2 1
}
