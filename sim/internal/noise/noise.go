// Package noise writes the lines that share a stream with the engines' statistics without being
// statistics: access logs, health probes, the engines' own chatter, NCCL start-up lines, Python
// warnings and tracebacks, SGLang's HTTP server and tool parser, other units on the host. None
// carries an engine marker, so a reader must skip them without counting them as malformed; the
// simulator in package sim decides how many and when.
package noise

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/specwatch/specwatch/sim/enginelog"
	"github.com/specwatch/specwatch/sim/internal/appendtext"
	"github.com/specwatch/specwatch/sim/internal/transport"
)

// Kind is a kind of line that is not an engine statistic but shares the stream with them.
type Kind uint8

// Noise kinds; an item of one kind writes Lines records.
const (
	Access       Kind = iota // uvicorn access log (llama-server: its slot selection)
	Health                   // health probes
	Chatter                  // the engine's own marker-free log lines
	NCCL                     // NCCL and CUDA start-up chatter
	Warning                  // a Python warning: the warning and its source line
	Traceback                // a Python traceback, one line per record as stdout splits it
	Other                    // another unit on the host, or another compose service
	ServerAccess             // SGLang's HTTP server: uvicorn access lines under its "[date time] " prefix
	ToolParser               // SGLang's function-call (tool) parser
	NumKinds
)

// Weights weigh the kinds of a mix, indexed by Kind.
type Weights [NumKinds]int

// DefaultWeights is the default mix. The kinds after Other weigh nothing by default, so that
// adding them left every other scenario's output as it was.
var DefaultWeights = Weights{30, 12, 20, 8, 5, 3, 22, 0, 0}

// Lines is how many records an item of kind k from engine e writes.
func Lines(k Kind, e enginelog.Engine) int {
	switch {
	case k == Warning && e != enginelog.LlamaCpp:
		return 2
	case k == Traceback && e != enginelog.LlamaCpp:
		return len(traceback)
	}
	return 1
}

// Pick draws a kind by weights; other units only appear where the format would show them.
func Pick(rng *rand.Rand, f transport.Format, weights *Weights) Kind {
	total := 0
	for k, w := range weights {
		if Kind(k) != Other || f.Journal() || f.Docker() {
			total += w
		}
	}
	x := rng.IntN(total)
	for k, w := range weights {
		if x < w {
			return Kind(k)
		}
		x -= w
	}
	return Access
}

var traceback = []string{
	"Traceback (most recent call last):",
	`  File "/usr/local/lib/python3.12/dist-packages/starlette/middleware/errors.py", line 165, in __call__`,
	"    await self.app(scope, receive, _send)",
	`  File "/usr/local/lib/python3.12/dist-packages/uvicorn/protocols/http/httptools_impl.py", line 409, in run_asgi`,
	"    result = await app(  # type: ignore[func-returns-value]",
	"ValueError: The input (33012 tokens) is longer than the model's context length (32768 tokens).",
}

// chatter is what each engine logs besides its statistics.
func chatter(e enginelog.Engine) []string {
	switch e {
	case enginelog.SGLang:
		return chatterSGLang
	case enginelog.VLLM:
		return chatterVLLM
	}
	return chatterGeneric
}

var chatterSGLang = []string{"Cache flushed successfully!", "The server is fired up and ready to roll!", "Receive: obj=GenerateReqInput(rid='5f1c')", "Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=21.37 GB, mem usage=16.04 GB."}
var chatterVLLM = []string{"Added request chatcmpl-9b2e41.", "Detected the chat template content format to be 'string'. You can set `--chat-template-content-format` to override this.", "Finished request chatcmpl-9b2e41.", "Aborted request chatcmpl-77d0c3."}
var chatterGeneric = []string{"tree cache rebuilt, nodes=64", "draft model warm-up done in 3.2 s", "request 77d0c3 finished", "verify kernel autotuned: 12 configs"}

// Unit is another unit on a GPU host and a line it writes.
type Unit struct {
	Ident, Unit string // SYSLOG_IDENTIFIER and _SYSTEMD_UNIT ("" for the kernel)
	PID         int
	Msg         string
}

// Others are the lines other units on a GPU host write; some carry non-ASCII text. An Other
// item's pick chooses one, modulo len(Others): the caller frames it under that unit.
var Others = []Unit{
	{"systemd", "init.scope", 1, "Started Session 42 of User ubuntu."},
	{"systemd", "init.scope", 1, "Starting Daily apt upgrade and clean activities..."},
	{"kernel", "", 0, "NVRM: Xid (PCI:0000:1b:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row marked for remapping, reset gpu to activate."},
	{"sshd", "ssh.service", 2211, "Accepted publickey for ubuntu from 10.0.0.5 port 51234 ssh2: ED25519 SHA256:3q8vQmZk0xXh7gq9S2Q2x6l0kJbVv5o0p0Yk7zYF2aI"},
	{"CRON", "cron.service", 3321, "(root) CMD (rsync -a /data /backup # nächtliche Sicherung)"},
	{"nvidia-persistenced", "nvidia-persistenced.service", 1200, "device 0000:1b:00.0 - persistence mode enabled."},
	{"prometheus-node-exporter", "prometheus-node-exporter.service", 900, `level=error source=collector.go:178 msg="collector failed" name=hwmon err="open /sys/class/hwmon/hwmon3/temp1_input: no such device"`},
}

// Process is the engine process whose stream the noise shares.
type Process struct {
	Writer *enginelog.Writer // a rank's: engine, logger prefix, colour
	Host   string
	PID    int // the API server's pid
	Rank   int // the rank's index in its process, as NCCL numbers it
}

// Append writes line i of an item of kind k from p at tm; pick is the item's random draw, and f
// the stream's format (a docker stream's other service is nginx).
func Append(b []byte, p *Process, k Kind, i int, pick uint32, tm time.Time, f transport.Format) []byte {
	w := p.Writer
	e := w.Engine
	if e == enginelog.LlamaCpp {
		if out, ok := appendLlama(b, w, k, pick, tm); ok {
			return out
		}
	}
	port := int64(32768 + pick%28000)
	access := func(b []byte, req string) []byte {
		if e == enginelog.VLLM && w.Prefix != enginelog.PrefixBare {
			b = w.AppendProcessTag(b, p.PID)
		}
		b = append(b, "INFO:     127.0.0.1:"...)
		b = appendtext.Int(b, port)
		b = append(b, ` - "`...)
		b = append(b, req...)
		return append(b, ` HTTP/1.1" 200 OK`...)
	}
	switch k {
	case Access:
		if e == enginelog.VLLM {
			return access(b, "POST /v1/chat/completions")
		}
		return access(b, "POST /generate")
	case Health:
		return access(b, "GET /health")
	case Chatter:
		msg := chatter(e)[pick%4]
		switch e {
		case enginelog.SGLang:
			b = w.AppendSGLangPrefix(b, tm, enginelog.ModScheduler)
		case enginelog.VLLM:
			b = w.AppendVLLMPrefix(b, tm, "INFO", "async_llm.py:273")
		case enginelog.Generic:
			b = w.AppendGenericPrefix(b, tm)
		}
		return append(b, msg...)
	case NCCL:
		b = append(b, p.Host...)
		b = append(b, ':')
		b = appendtext.Int(b, int64(p.PID))
		b = append(b, ':')
		b = appendtext.Int(b, int64(p.PID)+int64(pick%97))
		b = append(b, " ["...)
		b = appendtext.Int(b, int64(p.Rank))
		b = append(b, "] NCCL INFO Channel "...)
		b = appendtext.Digits2(b, int(pick%24))
		return append(b, "/0 : 0[0] -> 1[1] via P2P/CUMEM/read"...)
	case Warning:
		if i == 1 {
			return append(b, "  warnings.warn("...)
		}
		return append(b, "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:129: UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount()."...)
	case Traceback:
		return append(b, traceback[i]...)
	case ServerAccess, ToolParser:
		return appendServerNoise(b, k, tm, port, pick)
	}
	if f.Docker() {
		b = append(b, `10.0.0.5 - - [`...)
		b = appendtext.Digits2(b, tm.Day())
		b = append(b, '/')
		b = append(b, tm.Month().String()[:3]...)
		b = append(b, '/')
		b = appendtext.Digits4(b, tm.Year())
		b = append(b, ':')
		b = appendtext.Clock(b, tm)
		b = append(b, ` +0000] "POST /v1/chat/completions HTTP/1.1" 200 `...)
		b = strconv.AppendUint(b, uint64(200+pick%4000), 10)
		return append(b, ` "-" "python-httpx/0.27.0"`...)
	}
	return append(b, Others[pick%uint32(len(Others))].Msg...)
}
