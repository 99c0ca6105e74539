package noise

import (
	"time"

	"github.com/specwatch/specwatch/sim/enginelog"
)

// llamaNoise is what llama-server 0.7.0 logs besides a request's timings, by kind, under its
// own prefix; none names a marker (print_timing, processing task, stop processing, listening).
var llamaNoise = [...][]string{
	Access: {"slot get_availabl: id  0 | task -1 | selected slot by LRU, n_tokens = 0, t_last = -1",
		"slot get_availabl: id  1 | task -1 | selected slot by LCP similarity, f_sim_best = 1.000 (> 0.100 thold), f_keep = 0.142"},
	Health: {"srv  server_strea: conv_id= (empty=1)", "srv  get_availabl: prompt cache update took 0.05 ms"},
	Chatter: {"srv  get_availabl: updating prompt cache",
		"srv        update:  - cache state: 1 prompts, 1.810 MiB (limits: 8192.000 MiB, 16384 tokens, 669750 est)",
		"srv          load:  - looking for better prompt, base f_keep = 0.142, f_sim = 1.000",
		"srv   prompt_save:  - saving prompt with length 148, total state size = 1.810 MiB (draft: 0.074 MiB)"},
	NCCL:      {"llama_kv_cache:      CUDA0 KV buffer size =  4608.00 MiB"},
	Warning:   {"slot   operator(): id  0 | task 50 | n_past was set to 20"},
	Traceback: {"srv    send_error: task id = 7, error: request (33012 tokens) exceeds the available context size (32768 tokens), try increasing it"},
}

// appendLlama writes a llama-server noise line of kind k at tm, or false for a kind it does
// not have (another unit's, SGLang's HTTP server's).
func appendLlama(b []byte, w *enginelog.Writer, k Kind, pick uint32, tm time.Time) ([]byte, bool) {
	if int(k) >= len(llamaNoise) || llamaNoise[k] == nil {
		return b, false
	}
	level := byte('I')
	switch k {
	case Warning:
		level = 'W'
	case Traceback:
		level = 'E'
	}
	msgs := llamaNoise[k]
	b = w.AppendLlamaPrefix(b, tm, level)
	b = append(b, msgs[pick%uint32(len(msgs))]...)
	return w.AppendLlamaSuffix(b), true
}
