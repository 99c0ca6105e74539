package daemon

import (
	"context"
	"sync"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/fwdpass"
)

// StartForwardPass subscribes to the config's forward-pass publishers (forward_pass:,
// --forward-pass.endpoint) until stop is called (stop releases the subscribers and waits for
// them); their iterations are src's entries, for the daemon's Follow to read beside the logs and
// the scrapes. Its counters are on /metrics (specwatch_forward_pass_*). With none, src is nil.
func (d *Daemon) StartForwardPass(ctx context.Context) (src ingest.Source, stop func(), err error) {
	eps := d.o.Config.ForwardPassEndpoints()
	if len(eps) == 0 {
		return nil, func() {}, nil
	}
	q := ingest.NewSamples()
	// A loopback or ipc endpoint is an engine on this machine: its series joins the logs' of
	// this host.
	fp, err := fwdpass.New(fwdpass.Options{Endpoints: eps, Sink: q, LocalHost: NodeName(),
		Warn: func(endpoint, msg string, err error) {
			ev := d.log.Warn().Err(err)
			if err == nil {
				ev = d.log.Info()
			}
			ev.Str("source", "forward_pass").Str("endpoint", endpoint).Msg(msg)
		}})
	if err != nil {
		return nil, nil, err
	}
	d.metrics.Registry().MustRegister(fp)
	for _, ep := range fp.Endpoints() {
		d.log.Info().Str("source", "forward_pass").Str("endpoint", ep).Msg("subscribing to forward-pass metrics")
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = fp.Run(ctx) // returns nil once ctx ends
	}()
	// The queue is closed first: a subscriber waiting for its sample to be applied is released.
	return q, func() { cancel(); q.Close(); wg.Wait(); d.metrics.Registry().Unregister(fp) }, nil
}
