package parse

import (
	"github.com/specwatch/specwatch/parse/internal/header"
	"github.com/specwatch/specwatch/sample"
)

// prefix reads everything before a record's marker (timestamps, host and identifier, rank and
// process tags: see parse/internal/header) into s, and the engine when the prefix names one.
func prefix(b []byte, s *Record) {
	switch header.Read(b, header.Sink{Stamp: &s.Stamp, Host: &s.Host, Unit: &s.Unit, Rank: &s.Rank, Proc: &s.Proc}) {
	case header.SGLang:
		s.Engine = sample.EngineSGLang
	case header.VLLM:
		s.Engine = sample.EngineVLLM
	case header.TRTLLM:
		s.Engine = sample.EngineTRTLLM
	}
}
