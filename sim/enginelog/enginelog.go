// Package enginelog writes the lines speculative-decoding engines print (SGLang, vLLM, llama.cpp,
// TensorRT-LLM and custom key=value builds) from the values behind them: the mirror of package
// parse. It holds no state and draws no random numbers, so a Record and a Writer determine the
// bytes; the simulator in package sim decides the values and the stream around them.
package enginelog

import "time"

// MaxDraft bounds the draft length: vLLM prints at most 15 per-position rates, and DFlash
// blocks are 16.
const MaxDraft = 15

// MaxPositions bounds llama.cpp's draft length instead: n-gram drafting (ngram-mod) drafts up
// to 64 tokens, and its acc per pos list has one value per position.
const MaxPositions = 64

// Record holds the values one engine line prints. Which fields a line reads depends on its
// Kind; the others are ignored.
type Record struct {
	Kind LineKind
	Sub  uint8 // which line of a multi-line block (llama.cpp's print_timing, SGLang's startup)
	// Renamed writes the line with its fields renamed ("accept len:" becomes "acc. length ->"),
	// as after a format change that parsers do not know yet.
	Renamed bool

	Ctx, Running, Queue int     // KV tokens of the running requests, the batch, the waiting requests
	Step, Commit, TPS   float64 // step seconds, mean commit length, generation tokens/s
	Depth               float64 // accepted depth written; differs from Commit−1 only under a fault
	Iter                int64   // decode step counter
	// SGLang's adaptive speculation: the draft steps before and after a switch (Depth is its
	// ema_accept_len then).
	StepsFrom, Steps int

	NewSeq, NewTok, Cached int     // SGLang prefill: admitted requests, new and cached tokens (llama.cpp: cached)
	InputTPS, PromptTPS    float64 // prefill and prompt throughput, tokens/s
	Retracted              int     // SGLang: requests sent back to the queue

	Drafts, Accepted, Drafted int64               // drafts proposed, draft tokens accepted, draft tokens drafted
	Pos                       [MaxPositions]int32 // drafts accepted at least i+1 tokens
	Interval                  float64             // seconds the counts cover
	CumAcc, CumDraft, CumEmit int64               // vLLM v0's cumulative counts
	PrefixHit                 float64             // vLLM: prefix cache hit rate, %
	// TensorRT-LLM: the previous iteration's GPU time in seconds (0: none yet, "N/A") and the
	// requests fetched so far. Running is then the generation requests, NewSeq and NewTok the
	// context requests and their tokens, Drafted the iteration's draft tokens, Step its host
	// step time. The gate line reads Depth (accepted drafts), Commit (its threshold) and Slot
	// (its window).
	Device  float64
	Fetched int

	// llama.cpp: the request in slot Slot. Prompt is the prompt tokens evaluated (Cached
	// those its slot's cache held), Gen the tokens generated; Accepted, Drafted and Drafts its
	// accepted and drafted tokens and the steps that drafted. Graphs counts the server's reused
	// graphs; the statistics line reads Accepted, Drafted, Drafts and Pos as totals, beside
	// Totals.
	Slot, Task, Prompt, Gen int
	PromptMs, EvalMs        float64 // its prompt and generation time
	Graphs                  int64
	Totals                  SpecTotals
}

// SpecTotals are llama.cpp's common_speculative counters since the server started, which its
// statistics line prints beside the token counts.
type SpecTotals struct {
	Begins, DraftCalls, AcceptCalls int64   // #calls(b,g,a): requests begun, drafter calls, drafts verified
	AccDrafts                       int64   // drafts that accepted at least one token
	BeginMs, DraftMs, AcceptMs      float64 // dur(b,g,a)
}

// Writer is how one rank's engine is configured to log: what it prints around and inside the
// values of a Record.
type Writer struct {
	Engine Engine
	Style  Style // the line generation; StyleDefault is not resolved here, see Style.Resolve
	Prefix Prefix
	Color  bool   // vLLM: ANSI colour codes around the process tag and level
	Rank   string // the rank tag: SGLang "DP1 TP1", vLLM "Engine 000", or "" for none
	// World is TensorRT-LLM's MPI world size: its logger tags lines "[RANK n]" when above 1
	// (n from Rank: "" is rank 0, else its number).
	World int
	PID   int // vLLM: the process in "(APIServer pid=…)"

	KVTokens       int // KV-cache capacity: usage figures are Ctx / KVTokens
	DraftLen       int // draft tokens per step (llama.cpp's n_max); 0 writes no acceptance fields
	DecodeInterval int // decode steps a line covers (the space-separated generic style's counts)

	// llama.cpp: Started is when the process started, the zero of its since-start prefix;
	// JSONL frames each line as --log-jsonl does; Drafter names the implementation in the
	// statistics line ("draft-simple", "ngram-mod"); Listen is the address "listening on"
	// names, "" for llama-server's default.
	Started time.Time
	JSONL   bool
	Drafter string
	Listen  string
}

// AppendLine writes rec as w's engine would at t: logger prefix, then the message.
func (w *Writer) AppendLine(b []byte, t time.Time, rec *Record) []byte {
	switch w.Engine {
	case SGLang:
		b = w.AppendSGLangPrefix(b, t, sglangModule(rec.Kind))
		switch rec.Kind {
		case LineDecode:
			return w.appendDecode(b, rec)
		case LinePrefill:
			return w.appendPrefill(b, rec)
		case LineRetract:
			return w.appendRetract(b, rec)
		case LineStartup:
			return w.appendStartup(b, rec)
		case LineProfile:
			return w.appendProfile(b, rec)
		case LineAdaptive:
			return w.appendAdaptive(b, rec)
		}
		return w.appendCustom(b, rec)
	case VLLM:
		b = w.AppendVLLMPrefix(b, t, "INFO", vllmFile(rec.Kind, w.Style == VLLMV0))
		if rec.Kind == LineSpec {
			return w.appendSpec(b, rec)
		}
		return w.appendStats(b, rec)
	case Generic:
		return w.appendCustom(w.AppendGenericPrefix(b, t), rec)
	case TRTLLM:
		b = w.AppendTRTLLMPrefix(b, t)
		if rec.Kind == LineGate {
			return w.appendGate(b, rec)
		}
		return w.appendIteration(b, t, rec)
	}
	b = w.AppendLlamaPrefix(b, t, 'I')
	return w.AppendLlamaSuffix(w.appendLlama(b, rec))
}
