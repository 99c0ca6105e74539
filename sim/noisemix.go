package sim

import "github.com/specwatch/specwatch/sim/internal/noise"

// NoiseMix weighs the kinds of noise a scenario writes, per item: a traceback item is six
// lines, a warning two, the others one. The zero value selects the default mix.
type NoiseMix struct {
	Access    int // uvicorn / llama-server access lines, bare
	Health    int // health probes
	Chatter   int // the engine's own marker-free lines
	NCCL      int // NCCL and CUDA start-up chatter
	Warning   int // a Python warning and its source line
	Traceback int // a Python traceback
	Other     int // other units on the host, or another compose service
	// ServerAccess is SGLang's HTTP server access log: uvicorn's line under the server's own
	// "[2026-11-20 09:00:01] " prefix, which names no rank.
	ServerAccess int
	// ToolParser is SGLang's function-call parser reporting tool calls it could not read.
	ToolParser int
}

func (m NoiseMix) weights() noise.Weights {
	if m == (NoiseMix{}) {
		return noise.DefaultWeights
	}
	return noise.Weights{noise.Access: m.Access, noise.Health: m.Health, noise.Chatter: m.Chatter,
		noise.NCCL: m.NCCL, noise.Warning: m.Warning, noise.Traceback: m.Traceback, noise.Other: m.Other,
		noise.ServerAccess: m.ServerAccess, noise.ToolParser: m.ToolParser}
}
