package fwdpass

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Reasons a message was refused, the values of the reason label.
const (
	badFormat  = iota // not a msgpack ForwardPassMetrics
	badVersion        // a schema version other than 1
	numBad
)

var badNames = [numBad]string{"format", "version"}

// counters are one rank's, read by Collect and Stats while its goroutine adds to them.
type counters struct {
	up                 atomic.Int64
	connects, failures atomic.Uint64
	messages           [numKinds]atomic.Uint64
	lost, restarts     atomic.Uint64
	malformed          [numBad]atomic.Uint64
}

// Stats are one rank's counts since New.
type Stats struct {
	Endpoint   string
	Up         bool
	Connects   uint64 // connections made (the first and every one after a loss)
	Failures   uint64 // dials that failed and connections lost
	Decode     uint64 // iterations with decode requests only
	Prefill    uint64 // iterations with prefill requests only
	Mixed      uint64 // iterations with both
	Heartbeats uint64
	Lost       uint64 // messages missing from the sequence
	Restarts   uint64 // publisher restarts seen
	Malformed  uint64 // messages refused (format or version)
}

// Stats returns every rank's counts, in the order of Endpoints.
func (s *Source) Stats() []Stats {
	out := make([]Stats, len(s.ranks))
	for i, r := range s.ranks {
		c := &r.stats
		out[i] = Stats{Endpoint: r.name, Up: c.up.Load() == 1, Connects: c.connects.Load(), Failures: c.failures.Load(),
			Decode: c.messages[msgDecode].Load(), Prefill: c.messages[msgPrefill].Load(), Mixed: c.messages[msgMixed].Load(),
			Heartbeats: c.messages[msgHeartbeat].Load(), Lost: c.lost.Load(), Restarts: c.restarts.Load(),
			Malformed: c.malformed[badFormat].Load() + c.malformed[badVersion].Load()}
	}
	return out
}

// The Source is a prometheus.Collector of its own health (docs/metrics.md, "Forward-pass
// source"), per rank endpoint: the daemon registers it while forward passes are read.
var (
	descUp = prometheus.NewDesc("specwatch_forward_pass_up",
		"Whether the rank's forward-pass publisher is connected and subscribed (1) or not (0).", []string{"endpoint"}, nil)
	descConnects = prometheus.NewDesc("specwatch_forward_pass_connects_total",
		"Connections made to the rank's forward-pass publisher: the first, and one after every loss.", []string{"endpoint"}, nil)
	descFailures = prometheus.NewDesc("specwatch_forward_pass_failures_total",
		"Dials of the rank's publisher that failed, and connections lost (closed, or silent past the timeout: the engines publish a heartbeat every second).", []string{"endpoint"}, nil)
	descMessages = prometheus.NewDesc("specwatch_forward_pass_messages_total",
		"Messages read from the rank's publisher by kind: decode, prefill and mixed iterations (each a sample), heartbeat (the idle heartbeat, no sample).", []string{"endpoint", "kind"}, nil)
	descLost = prometheus.NewDesc("specwatch_forward_pass_lost_messages_total",
		"Messages missing from the rank publisher's sequence numbers: dropped at its high-water mark, or published while not connected.", []string{"endpoint"}, nil)
	descRestarts = prometheus.NewDesc("specwatch_forward_pass_publisher_restarts_total",
		"Times the rank's publisher restarted (its sequence went back, or its worker_id changed): joined again.", []string{"endpoint"}, nil)
	descMalformed = prometheus.NewDesc("specwatch_forward_pass_malformed_messages_total",
		"Messages refused by reason: format (not a msgpack ForwardPassMetrics), version (a schema version other than 1).", []string{"endpoint", "reason"}, nil)
)

// Describe implements prometheus.Collector.
func (s *Source) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descUp, descConnects, descFailures, descMessages, descLost, descRestarts, descMalformed} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (s *Source) Collect(ch chan<- prometheus.Metric) {
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	for _, r := range s.ranks {
		c := &r.stats
		ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, float64(c.up.Load()), r.name)
		counter(descConnects, c.connects.Load(), r.name)
		counter(descFailures, c.failures.Load(), r.name)
		for k := range numKinds {
			counter(descMessages, c.messages[k].Load(), r.name, kindNames[k])
		}
		counter(descLost, c.lost.Load(), r.name)
		counter(descRestarts, c.restarts.Load(), r.name)
		for b := range numBad {
			counter(descMalformed, c.malformed[b].Load(), r.name, badNames[b])
		}
	}
}
