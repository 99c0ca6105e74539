package sim

import (
	"time"

	"github.com/specwatch/specwatch/sim/internal/appendtext"
)

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

func (m NoiseMix) weights() [numNoiseKinds]int {
	if m == (NoiseMix{}) {
		return noiseWeights
	}
	return [numNoiseKinds]int{m.Access, m.Health, m.Chatter, m.NCCL, m.Warning, m.Traceback, m.Other,
		m.ServerAccess, m.ToolParser}
}

var serverRequests = [...]string{
	"POST /v1/chat/completions", "POST /v1/chat/completions", "POST /v1/chat/completions",
	"POST /generate", "POST /v1/completions", "GET /v1/models", "GET /health", "GET /metrics",
}

// toolParserLines are what SGLang's function-call parsers log about a model's malformed tool
// calls; one holds '=' signs (a URL's query), as JSON arguments often do.
var toolParserLines = [...]string{
	"Model attempted to call undefined function: web_search",
	`Failed to parse JSON part: {"name": "get_weather", "arguments": {"location": "Berlin, DE", "unit": "cels, JSON parse error: Unterminated string starting at: line 1 column 66 (char 65)`,
	"Tool call parsing error: Expecting ',' delimiter: line 1 column 88 (char 87)",
	`Failed to parse JSON part: {"name": "fetch_url", "arguments": {"url": "https://docs.example.com/search?q=speculative+decoding&lang=en"}}}, JSON parse error: Extra data: line 1 column 103 (char 102)`,
}

// appendServerNoise writes a line of SGLang's HTTP server process at t: its prefix carries the
// time and no rank.
func appendServerNoise(b []byte, k noiseKind, t time.Time, port int64, pick uint32) []byte {
	b = append(b, '[')
	b = appendtext.Date(b, t)
	b = append(b, ' ')
	b = appendtext.Clock(b, t)
	b = append(b, "] "...)
	if k == noiseToolParser {
		return append(b, toolParserLines[pick%uint32(len(toolParserLines))]...)
	}
	b = append(b, "INFO:     127.0.0.1:"...)
	b = appendtext.Int(b, port)
	b = append(b, ` - "`...)
	b = append(b, serverRequests[pick/7%uint32(len(serverRequests))]...)
	return append(b, ` HTTP/1.1" 200 OK`...)
}
