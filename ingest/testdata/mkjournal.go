//go:build ignore

// mkjournal writes journal export text on stdout: the input that mkfixtures.sh feeds to
// systemd-journal-remote to build a real journal file. Binary fields (newlines, NUL) use
// export's length-prefixed encoding.
package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
)

type field struct{ k, v string }

func main() {
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	boot := "0b3c6f0f4a6f4d6c9c2b5d8e1f2a3b4c"
	const t0 = 1795165201000000 // 2026-11-20T09:00:01Z
	long := "Decode batch, #running-req: 1, #token: 5553, " + strings.Repeat("x", 5000) + " end"
	entries := [][]field{
		{{"_HOSTNAME", "gpu07"}, {"_SYSTEMD_UNIT", "sglang.service"}, {"SYSLOG_IDENTIFIER", "python3"}, {"_PID", "48211"},
			{"MESSAGE", "[2026-11-20 09:00:01 TP0] Decode batch, #running-req: 1, #token: 5553, token usage: 0.01, accept len: 2.90, accept rate: 0.13, cuda graph: True, gen throughput (token/s): 31.87, #queue-req: 0"}},
		{{"_HOSTNAME", "gpu07"}, {"_SYSTEMD_UNIT", "vllm.service"}, {"SYSLOG_IDENTIFIER", "vllm"}, {"_PID", "9120"},
			{"MESSAGE", "\x1b[1;36m(APIServer pid=9120)\x1b[0;0m INFO 11-20 09:00:02 [loggers.py:271] Engine 000: Avg prompt throughput: 1204.7 tokens/s, Avg generation throughput: 96.4 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 7.3%, Prefix cache hit rate: 41.2%"}},
		{{"_HOSTNAME", "gpu07"}, {"_SYSTEMD_UNIT", "vllm.service"}, {"SYSLOG_IDENTIFIER", "vllm"}, {"_PID", "9120"},
			{"MESSAGE", "SpecDecoding metrics: bad utf8 \xff\xfe here, Mean acceptance length: 2.37"}},
		{{"_HOSTNAME", "gpu08"}, {"SYSLOG_IDENTIFIER", "llama-server"}, {"_PID", "777"},
			{"MESSAGE", "draft acceptance rate = 0.58824 (  600 accepted /  1020 generated)\nsecond line of the same record"}},
		{{"_HOSTNAME", "gpu08"}, {"SYSLOG_IDENTIFIER", "llama-server"}, {"_PID", "777"},
			{"MESSAGE", "nul\x00inside"}},
		{{"_HOSTNAME", "gpu07"}, {"_SYSTEMD_UNIT", "sglang.service"}, {"SYSLOG_IDENTIFIER", "python3"}, {"_PID", "48211"},
			{"MESSAGE", long}},
		{{"_HOSTNAME", "gpu07"}, {"_SYSTEMD_UNIT", "sglang.service"}, {"SYSLOG_IDENTIFIER", "python3"}, {"_PID", "48211"},
			{"TAG", "first"}, {"TAG", "second"}, {"CODE_ARRAY", "[1,[2,{\"a\":3}]]"},
			{"MESSAGE", "unicode: ✓ café 😀 \"quoted\" back\\slash\ttab"}},
		{{"_HOSTNAME", "gpu07"}, {"SYSLOG_IDENTIFIER", "python3"}, {"_PID", "48212"},
			{"MESSAGE", "first of a repeated MESSAGE"}, {"MESSAGE", "second of a repeated MESSAGE"}},
		{{"_HOSTNAME", "gpu07"}, {"_SYSTEMD_UNIT", "sglang.service"}, {"SYSLOG_IDENTIFIER", "python3"}, {"_PID", "48211"},
			{"MESSAGE", ""}},
		{{"_HOSTNAME", "gpu07"}, {"_SYSTEMD_UNIT", "sglang.service"}, {"SYSLOG_IDENTIFIER", "python3"}, {"_PID", "48211"},
			{"MESSAGE", "[2026-11-20 09:00:09 TP0] Decode batch, #running-req: 8, #token: 20480, token usage: 0.12, accept len: 3.41, cuda graph: True, gen throughput (token/s): 1450.22, #queue-req: 0"}},
	}
	for i, fs := range entries {
		fmt.Fprintf(w, "__REALTIME_TIMESTAMP=%d\n", t0+int64(i)*1000123)
		fmt.Fprintf(w, "__MONOTONIC_TIMESTAMP=%d\n", 5000000+int64(i)*1000123)
		fmt.Fprintf(w, "_BOOT_ID=%s\n", boot)
		w.WriteString("PRIORITY=6\n")
		for _, f := range fs {
			if strings.ContainsAny(f.v, "\n\x00") {
				w.WriteString(f.k + "\n")
				var n [8]byte
				binary.LittleEndian.PutUint64(n[:], uint64(len(f.v)))
				w.Write(n[:])
				w.WriteString(f.v + "\n")
				continue
			}
			w.WriteString(f.k + "=" + f.v + "\n")
		}
		w.WriteString("\n")
	}
}
