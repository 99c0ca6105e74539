package parse

import (
	"testing"

	"github.com/specwatch/specwatch/sample"
)

// TestStartLines: each engine's start-up line, as its source prints it, is a restart event of
// that engine naming no rank; look-alikes are not.
func TestStartLines(t *testing.T) {
	p := NewParser(Options{})
	var s Record
	for line, engine := range map[string]sample.Engine{
		"INFO 11-20 09:00:00 [api_server.py:1021] vLLM API server version 0.8.5":                                              sample.EngineVLLM,
		"(APIServer pid=9120) INFO 11-20 09:00:00 [api_server.py:1885] vLLM API server version 0.11.0":                        sample.EngineVLLM,
		"[2026-11-20 09:00:00] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tokenizer_path='Qwen/Qwen3-8B', tp_size=1)": sample.EngineSGLang,
		"main: server is listening on http://127.0.0.1:8080 - starting the main loop":                                         sample.EngineLlamaCpp,
		"0.01.287.775 I srv  llama_server: listening on http://127.0.0.1:44343":                                               sample.EngineLlamaCpp, // 0.7.0
		"srv  llama_server: listening on http://127.0.0.1:44343":                                                              sample.EngineLlamaCpp, // --log-jsonl's msg
	} {
		if r := p.Parse([]byte(line), &s); r != sample.Matched || s.Kind != sample.KindEvent || s.Event != sample.EventRestart || s.Engine != engine || len(s.Rank) != 0 {
			t.Errorf("%q: %v kind %v event %v engine %v rank %q", line, r, s.Kind, s.Event, s.Engine, s.Rank)
		}
	}
	for _, line := range []string{
		"INFO 11-20 09:00:00 [api_server.py:1021] Starting vLLM API server on http://0.0.0.0:8000",
		"[2026-11-20 09:00:00] old_server_args=x",
		"main: loading model",
		"0.01.287.775 I srv  llama_server: loading model",
	} {
		if r := p.Parse([]byte(line), &s); r == sample.Matched && s.Event == sample.EventRestart {
			t.Errorf("%q read as a start-up line", line)
		}
	}
}
