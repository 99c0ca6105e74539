package sim

import (
	"bytes"
	"regexp"
	"testing"
)

// Engine line shapes from FORMATS.md. They are written here from the documented shapes, not from
// the generator, so that a generator change that drifts from the engines fails here.
var (
	reSGLangPrefix = regexp.MustCompile(`^\[(\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}:\d{2}(\.\d{3})?(( (DP|TP|PP|EP|ATTN_CP|MOE_DP)\d+)*)\] `)
	rePythonPrefix = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} \[INFO\] [\w.]+: `)
	reLlamaPrefix  = regexp.MustCompile(`^\d+\.\d{2}\.\d{3}\.\d{3} [IWED] `)
	reLlamaJSONL   = regexp.MustCompile(`^\{"type":"log","time":\d+,"level":"(?:info|warn|error|debug)","msg":"(.*)\\n"\}$`)
	reVLLMPrefix   = regexp.MustCompile(`^((\x1b\[1;36m)?\((APIServer|EngineCore_DP\d+) pid=\d+\)(\x1b\[0;0m)? )?(\x1b\[32m)?INFO(\x1b\[0m)? \d{2}-\d{2} \d{2}:\d{2}:\d{2} ((\x1b\[2m)?\[[\w.]+\.py:\d+\](\x1b\[0m)?|[\w.]+\.py:\d+\]) `)

	shapes = map[LineKind][]*regexp.Regexp{
		LineDecode: {
			regexp.MustCompile(`^Decode batch\. #running-req: (\d+), #token: (\d+), token usage: \d\.\d\d, (accept len: (\d+\.\d\d), )?cuda graph: (True|False), gen throughput \(token/s\): (\d+\.\d\d), #queue-req: \d+$`),
			regexp.MustCompile(`^Decode batch(, | \[\d+\], )#running-req: (\d+), (#token: (\d+), token usage: \d\.\d\d|#full token: (\d+), full token usage: \d\.\d\d, #swa token: \d+, swa token usage: \d\.\d\d)(, pre-allocated usage: \d\.\d\d, #prealloc-req: \d+, #transfer-req: \d+, #retracted-req: \d+)?(, accept len: (\d+\.\d\d), accept rate: \d\.\d\d)?, cuda graph: (True|False), gen throughput \(token/s\): (\d+\.\d\d), #queue-req: \d+(, )?$`),
		},
		LinePrefill: {
			regexp.MustCompile(`^Prefill batch[.,] #new-seq: \d+, #new-token: \d+, #cached-token: \d+, (cache hit rate: \d+\.\d\d%, )?token usage: \d\.\d\d, #running-req: \d+, #queue-req: \d+, (#pending-token: \d+, cuda graph: (True|False), input throughput \(token/s\): \d+\.\d\d)?$`),
		},
		LineRetract: {
			regexp.MustCompile(`^(KV cache pool is full\. Retract requests\.|Decode out of memory happened\.) #retracted_reqs: \d+, #new_token_ratio: \d\.\d{4} -> \d\.\d{4}$`),
		},
		LineStartup: {
			regexp.MustCompile(`^Initialized DFLASH draft runner\. attention_backend=\w+, model=\S+, block_size=\d+, draft_window_size=\d+, compact_cache=(True|False)$`),
			regexp.MustCompile(`^Initialized DDTree worker\. block_size=\d+, tree_budget=\d+, max_tree_nodes=\d+$`),
			regexp.MustCompile(`^srv  llama_server: listening on http://127\.0\.0\.1:\d+$`),
		},
		LineProfile: {
			regexp.MustCompile(`^\[DFLASH profile\] bs=\d+ mode=decode can_run_cuda_graph=(True|False) prepare_ms=\d+\.\d\d target_verify_ms=\d+\.\d\d verify_cpu_ms=\d+\.\d\d verify_wall_ms=\d+\.\d\d append_ms=\d+\.\d\d total_ms=(\d+\.\d\d) verify_cuda_ms=\d+\.\d step_cuda_ms=\d+\.\d accept_sum=\d+ accept_mean=(\d+\.\d\d)$`),
		},
		LineCustom: {
			regexp.MustCompile(`^avg_commit_len=(\d+\.\d\d), avg_accepted_depth=(\d+\.\d\d), step_ms=(\d+\.\d)$`),
			regexp.MustCompile(`^ddtree step=\d+ bs=\d+ ctx=\d+ avg_commit_len=(\d+\.\d\d) avg_accepted_drafts=(\d+\.\d\d) num_accepted_drafts=\d+ step_time=(\d+\.\d{4})$`),
		},
		LineStats: {
			regexp.MustCompile(`^(Engine \d{3}: )?Avg prompt throughput: \d+\.\d tokens/s, Avg generation throughput: (\d+\.\d) tokens/s, Running: (\d+) reqs, Waiting: \d+ reqs, GPU KV cache usage: \d+\.\d%, Prefix cache hit rate: \d+\.\d%$`),
			regexp.MustCompile(`^Avg prompt throughput: \d+\.\d tokens/s, Avg generation throughput: (\d+\.\d) tokens/s, Running: (\d+) reqs, Swapped: \d+ reqs, Pending: \d+ reqs, GPU KV cache usage: \d+\.\d%, CPU KV cache usage: \d+\.\d%\.$`),
		},
		LineSpec: {
			regexp.MustCompile(`^SpecDecoding metrics: Draft acceptance rate: \d+\.\d%, Accepted: \d+ tokens, Drafted: \d+ tokens$`),
			regexp.MustCompile(`^SpecDecoding metrics: Draft acceptance rate: \d+\.\d%, Mean acceptance length: \d+\.\d\d, Accepted: \d+ tokens, Drafted: \d+ tokens, Per-position acceptance rate: \d\.\d{3}(, \d\.\d{3}){1,14}$`),
			regexp.MustCompile(`^SpecDecoding metrics: Mean acceptance length: \d+\.\d\d, Accepted throughput: \d+\.\d\d tokens/s, Drafted throughput: \d+\.\d\d tokens/s, Accepted: \d+ tokens, Drafted: \d+ tokens, Per-position acceptance rate: \d\.\d{3}(, \d\.\d{3}){1,14}, Avg Draft acceptance rate: \d+\.\d%$`),
			regexp.MustCompile(`^Speculative metrics: Draft acceptance rate: \d\.\d{3}, System efficiency: \d\.\d{3}, Number of speculative tokens: \d+, Number of accepted tokens: \d+, Number of draft tokens: \d+, Number of emitted tokens: \d+\.$`),
		},
		// llama-server 0.7.0, as captured (issue 26)
		LineTiming: {
			regexp.MustCompile(`^slot print_timing: id +\d+ \| task \d+ \| (prompt eval|       eval) time = +\d+\.\d\d ms / +\d+ tokens \( +\d+\.\d\d ms per token, +\d+\.\d\d tokens per second\)$`),
			regexp.MustCompile(`^slot print_timing: id +\d+ \| task \d+ \|       total time = +\d+\.\d\d ms / +\d+ tokens$`),
			regexp.MustCompile(`^slot print_timing: id +\d+ \| task \d+ \|    graphs reused = +\d+$`),
			regexp.MustCompile(`^slot print_timing: id +\d+ \| task \d+ \|   graph reallocs = +0    / +0        \(same size\) / \(changed size\)$`),
		},
		LineDraft: {
			regexp.MustCompile(`^slot print_timing: id +\d+ \| task \d+ \| draft acceptance = (\d\.\d{5}) \( *(\d+) accepted / *(\d+) generated\), mean len = +(\d+\.\d\d)$`),
		},
		LineSlot: {
			regexp.MustCompile(`^slot launch_slot_: id +\d+ \| task \d+ \| processing task, is_child = 0$`),
			regexp.MustCompile(`^slot      release: id +\d+ \| task \d+ \| stop processing: n_tokens = \d+, truncated = 0$`),
			regexp.MustCompile(`^srv  update_slots: all slots are idle$`),
		},
		LinePositions: {
			regexp.MustCompile(`^slot print_timing: id +\d+ \| task \d+ \|      acc per pos = \((\d\.\d{3}(, \d\.\d{3})*)\)$`),
		},
		LineStatistics: {
			regexp.MustCompile(`^spec common_specu: statistics +(draft-simple|ngram-mod): #calls\(b,g,a\) = +\d+ +\d+ +\d+, #gen drafts = +\d+, #acc drafts = +\d+, #gen tokens = +\d+, #acc tokens = +\d+(, #mean acc len = \d+\.\d\d, #acc rate/pos = \(((\d\.\d{3})(, \d\.\d{3})*)?\))?, dur\(b,g,a\) = \d+\.\d{3}, \d+\.\d{3}, \d+\.\d{3} ms$`),
		},
	}

	// markers are the strings that make a line an engine line to specwatch's parser.
	markers = []string{"Decode batch", "SpecDecoding metrics", "Speculative metrics", "avg_commit_len",
		"Avg generation throughput", "[DFLASH profile]", "draft acceptance", "Prefill batch", "print_timing",
		"processing task", "stop processing", "#calls(b,g,a)", "listening on", "all slots are idle"}
)

// body strips the engine logger prefix from an engine line's message.
func body(t testing.TB, e Engine, msg []byte) []byte {
	t.Helper()
	var re *regexp.Regexp
	switch e {
	case SGLang:
		if rePythonPrefix.Match(msg) {
			re = rePythonPrefix
		} else {
			re = reSGLangPrefix
		}
	case VLLM:
		re = reVLLMPrefix
	case Generic:
		re = rePythonPrefix
	case LlamaCpp:
		if m := reLlamaJSONL.FindSubmatch(msg); m != nil {
			return m[1]
		}
		re = reLlamaPrefix
	}
	if re == nil {
		return msg
	}
	if loc := re.FindIndex(msg); loc != nil {
		return msg[loc[1]:]
	}
	return msg // a bare line: the shape test below decides
}

// match returns the submatches of the first shape of kind k that matches b, or nil.
func match(k LineKind, b []byte) [][]byte {
	for _, re := range shapes[k] {
		if m := re.FindSubmatch(b); m != nil {
			return m
		}
	}
	return nil
}

func hasMarker(b []byte) bool {
	for _, m := range markers {
		if bytes.Contains(b, []byte(m)) {
			return true
		}
	}
	return false
}

// TestShapes checks, in every format, that each engine line has a documented shape under a
// documented prefix, that noise carries no engine marker, and that every shape appears.
func TestShapes(t *testing.T) {
	for _, f := range Formats() {
		t.Run(f.String(), func(t *testing.T) {
			t.Parallel()
			out, truths, sum := run(t, zoo(f, 0.4))
			es := split(t, f, out)
			if len(es) != sum.Lines {
				t.Fatalf("%d records read back, summary says %d", len(es), sum.Lines)
			}
			engine := make([]bool, len(es))
			seen := map[*regexp.Regexp]bool{}
			for _, tr := range truths {
				e := es[tr.Record-1]
				engine[tr.Record-1] = true
				if f.Journal() && f != FormatCat && e.host != tr.Series.Host {
					t.Fatalf("record %d: host %q, want %q", tr.Record, e.host, tr.Series.Host)
				}
				if (f == FormatJSON || f == FormatExport) && e.unit != tr.Series.Unit {
					t.Fatalf("record %d: unit %q, want %q", tr.Record, e.unit, tr.Series.Unit)
				}
				b := body(t, tr.Series.Engine, e.msg)
				if match(tr.Line, b) == nil {
					t.Fatalf("record %d (%v %v): no %v shape matches %q", tr.Record, tr.Series.Unit,
						tr.Series.Rank, tr.Line, e.msg)
				}
				for _, re := range shapes[tr.Line] {
					if re.Match(b) {
						seen[re] = true
					}
				}
			}
			for i, e := range es {
				if !engine[i] && hasMarker(e.msg) {
					t.Fatalf("noise record %d carries an engine marker: %q", i+1, e.msg)
				}
			}
			for k, res := range shapes {
				for i, re := range res {
					if !seen[re] {
						t.Errorf("no %v line of shape %d was written", k, i)
					}
				}
			}
		})
	}
}

// TestPrefixes checks that every prefix layout and rank tag combination appears in raw output.
func TestPrefixes(t *testing.T) {
	out, truths, _ := run(t, zoo(FormatRaw, 0))
	lines := bytes.Split(out, []byte("\n"))
	want := map[string]*regexp.Regexp{
		"sglang seconds, two tags": regexp.MustCompile(`^\[2026-11-20 \d\d:\d\d:\d\d DP1 TP1 EP1\] Decode batch, `),
		"sglang untagged":          regexp.MustCompile(`^\[2026-11-20 \d\d:\d\d:\d\d\] Decode batch, `),
		"sglang millis":            regexp.MustCompile(`^\[2026-11-20 \d\d:\d\d:\d\d\.\d{3} DP0 TP0 PP0\] Decode batch \[\d+\], `),
		"sglang time only":         regexp.MustCompile(`^\[\d\d:\d\d:\d\d TP0\] Decode batch\. `),
		"python layout":            regexp.MustCompile(`^2026-11-20 \d\d:\d\d:\d\d,\d{3} \[INFO\] sglang\.srt\.managers\.scheduler_metrics_mixin: Decode batch, #running-req: \d+, #full token: `),
		"bare sglang":              regexp.MustCompile(`^Decode batch, .*, #queue-req: \d+, $`),
		"vllm colour":              regexp.MustCompile("^\x1b\\[1;36m\\(APIServer pid=\\d+\\)\x1b\\[0;0m \x1b\\[32mINFO\x1b\\[0m 11-20 \\d\\d:\\d\\d:\\d\\d \x1b\\[2m\\[loggers\\.py:\\d+\\]\x1b\\[0m Engine 001: "),
		"vllm bare":                regexp.MustCompile(`^INFO 11-20 \d\d:\d\d:\d\d \[loggers\.py:\d+\] Engine 000: `),
		"vllm no lead":             regexp.MustCompile(`^\(APIServer pid=\d+\) INFO 11-20 \d\d:\d\d:\d\d \[loggers\.py:\d+\] Avg prompt throughput`),
		"vllm v0":                  regexp.MustCompile(`^\(APIServer pid=\d+\) INFO 11-20 \d\d:\d\d:\d\d metrics\.py:\d+\] Avg prompt throughput: .*, Swapped: `),
		"generic":                  regexp.MustCompile(`^2026-11-20 \d\d:\d\d:\d\d,\d{3} \[INFO\] ddtree\.worker: avg_commit_len=`),
	}
	for name, re := range want {
		found := false
		for _, tr := range truths {
			if re.Match(lines[tr.Record-1]) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s: no line matches %v", name, re)
		}
	}
}
