package sim

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/specwatch/specwatch/sim/enginelog"
	"github.com/specwatch/specwatch/sim/internal/appendtext"
)

// noiseKind is a kind of line that is not an engine statistic but shares the stream with them.
// None of them carries an engine marker: they must be ignored, not counted as malformed.
type noiseKind uint8

const (
	noiseAccess       noiseKind = iota // uvicorn / llama-server access log
	noiseHealth                        // health probes
	noiseChatter                       // the engine's own marker-free log lines
	noiseNCCL                          // NCCL and CUDA start-up chatter
	noiseWarning                       // a Python warning: the warning and its source line
	noiseTraceback                     // a Python traceback, one line per record as stdout splits it
	noiseOther                         // another unit on the host, or another compose service
	noiseServerAccess                  // SGLang's HTTP server: uvicorn access lines under its "[date time] " prefix
	noiseToolParser                    // SGLang's function-call (tool) parser
	numNoiseKinds
)

// noiseWeights is the default mix; NoiseMix replaces it. The kinds after noiseOther weigh
// nothing by default, so that adding them left every other scenario's output as it was.
var noiseWeights = [numNoiseKinds]int{30, 12, 20, 8, 5, 3, 22, 0, 0}

// noiseLines is how many records a noise item writes.
func noiseLines(k noiseKind, e Engine) int {
	switch {
	case k == noiseWarning && e != LlamaCpp:
		return 2
	case k == noiseTraceback && e != LlamaCpp:
		return len(traceback)
	}
	return 1
}

// pickNoise draws a noise kind; other units only appear where the format would show them.
func pickNoise(rng *rand.Rand, f Format, weights *[numNoiseKinds]int) noiseKind {
	total := 0
	for k, w := range weights {
		if noiseKind(k) != noiseOther || f.Journal() || f.Docker() {
			total += w
		}
	}
	x := rng.IntN(total)
	for k, w := range weights {
		if x < w {
			return noiseKind(k)
		}
		x -= w
	}
	return noiseAccess
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
func chatter(e Engine) []string {
	switch e {
	case SGLang:
		return chatterSGLang
	case VLLM:
		return chatterVLLM
	case LlamaCpp:
		return chatterLlama
	}
	return chatterGeneric
}

var chatterSGLang = []string{"Cache flushed successfully!", "The server is fired up and ready to roll!", "Receive: obj=GenerateReqInput(rid='5f1c')", "Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=21.37 GB, mem usage=16.04 GB."}
var chatterVLLM = []string{"Added request chatcmpl-9b2e41.", "Detected the chat template content format to be 'string'. You can set `--chat-template-content-format` to override this.", "Finished request chatcmpl-9b2e41.", "Aborted request chatcmpl-77d0c3."}
var chatterLlama = []string{"slot launch_slot_: id  0 | task 7 | processing task", "srv  update_slots: all slots are idle", "slot update_slots: id  0 | task 7 | new prompt, n_ctx_slot = 32768, n_keep = 0, n_prompt_tokens = 913", "srv  cancel_tasks: cancel task, id_task = 7"}
var chatterGeneric = []string{"tree cache rebuilt, nodes=64", "draft model warm-up done in 3.2 s", "request 77d0c3 finished", "verify kernel autotuned: 12 configs"}

// others are the lines other units on a GPU host write; some carry non-ASCII text.
var others = []struct {
	ident, unit string
	pid         int
	msg         string
}{
	{"systemd", "init.scope", 1, "Started Session 42 of User ubuntu."},
	{"systemd", "init.scope", 1, "Starting Daily apt upgrade and clean activities..."},
	{"kernel", "", 0, "NVRM: Xid (PCI:0000:1b:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row marked for remapping, reset gpu to activate."},
	{"sshd", "ssh.service", 2211, "Accepted publickey for ubuntu from 10.0.0.5 port 51234 ssh2: ED25519 SHA256:3q8vQmZk0xXh7gq9S2Q2x6l0kJbVv5o0p0Yk7zYF2aI"},
	{"CRON", "cron.service", 3321, "(root) CMD (rsync -a /data /backup # nächtliche Sicherung)"},
	{"nvidia-persistenced", "nvidia-persistenced.service", 1200, "device 0000:1b:00.0 - persistence mode enabled."},
	{"prometheus-node-exporter", "prometheus-node-exporter.service", 900, `level=error source=collector.go:178 msg="collector failed" name=hwmon err="open /sys/class/hwmon/hwmon3/temp1_input: no such device"`},
}

// appendNoise writes line i of a noise item of rank r at t; pick is the item's random draw.
func (g *generator) appendNoise(b []byte, r *rankSim, k noiseKind, i int, pick uint32, t int64) []byte {
	tm := time.Unix(0, t).In(g.loc)
	e := r.svc.Engine
	port := int64(32768 + pick%28000)
	access := func(b []byte, req string) []byte {
		if e == LlamaCpp {
			b = append(b, "srv  log_server_r: request: "...)
			b = append(b, req...)
			return append(b, " 127.0.0.1 200"...)
		}
		if e == VLLM && r.svc.Prefix != PrefixBare {
			b = r.writer.AppendProcessTag(b, r.svc.PID)
		}
		b = append(b, "INFO:     127.0.0.1:"...)
		b = appendtext.Int(b, port)
		b = append(b, ` - "`...)
		b = append(b, req...)
		return append(b, ` HTTP/1.1" 200 OK`...)
	}
	switch k {
	case noiseAccess:
		switch e {
		case VLLM:
			return access(b, "POST /v1/chat/completions")
		case LlamaCpp:
			return access(b, "POST /completion")
		}
		return access(b, "POST /generate")
	case noiseHealth:
		return access(b, "GET /health")
	case noiseChatter:
		msg := chatter(e)[pick%4]
		switch e {
		case SGLang:
			b = r.writer.AppendSGLangPrefix(b, tm, enginelog.ModScheduler)
		case VLLM:
			b = r.writer.AppendVLLMPrefix(b, tm, "INFO", "async_llm.py:273")
		case Generic:
			b = r.writer.AppendGenericPrefix(b, tm)
		}
		return append(b, msg...)
	case noiseNCCL:
		if e == LlamaCpp {
			return append(b, "llama_kv_cache: CUDA0 KV buffer size =  4608.00 MiB"...)
		}
		b = append(b, r.svc.Host...)
		b = append(b, ':')
		b = appendtext.Int(b, int64(r.svc.PID))
		b = append(b, ':')
		b = appendtext.Int(b, int64(r.svc.PID)+int64(pick%97))
		b = append(b, " ["...)
		b = appendtext.Int(b, int64(r.rankIx))
		b = append(b, "] NCCL INFO Channel "...)
		b = appendtext.Digits2(b, int(pick%24))
		return append(b, "/0 : 0[0] -> 1[1] via P2P/CUMEM/read"...)
	case noiseWarning:
		if i == 1 {
			return append(b, "  warnings.warn("...)
		}
		if e == LlamaCpp {
			return append(b, "srv  params_from_: Chat format: Hermes 2 Pro"...)
		}
		return append(b, "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:129: UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount()."...)
	case noiseTraceback:
		if e == LlamaCpp {
			return append(b, "srv    send_error: task id = 7, error: the request exceeds the available context size, try increasing it"...)
		}
		return append(b, traceback[i]...)
	case noiseServerAccess, noiseToolParser:
		return appendServerNoise(b, k, tm, port, pick)
	}
	if g.sc.Format.Docker() {
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
	return append(b, others[pick%uint32(len(others))].msg...)
}
