package noise

import (
	"time"

	"github.com/specwatch/specwatch/sim/internal/appendtext"
)

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
func appendServerNoise(b []byte, k Kind, t time.Time, port int64, pick uint32) []byte {
	b = append(b, '[')
	b = appendtext.Date(b, t)
	b = append(b, ' ')
	b = appendtext.Clock(b, t)
	b = append(b, "] "...)
	if k == ToolParser {
		return append(b, toolParserLines[pick%uint32(len(toolParserLines))]...)
	}
	b = append(b, "INFO:     127.0.0.1:"...)
	b = appendtext.Int(b, port)
	b = append(b, ` - "`...)
	b = append(b, serverRequests[pick/7%uint32(len(serverRequests))]...)
	return append(b, ` HTTP/1.1" 200 OK`...)
}
