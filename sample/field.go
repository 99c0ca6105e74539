package sample

// Field is one quantity a line may carry. Units are normalised at parse time: fractions, not
// percentages; seconds, not milliseconds; tokens per second.
type Field uint8

const (
	Running        Field = iota // running requests (batch size)
	Queue                       // waiting / queued requests
	Context                     // KV slots in use across running requests (#token, #full token)
	TokenUsage                  // fraction of the KV pool in use (SGLang)
	KVUsage                     // fraction of GPU KV cache in use (vLLM: its context regressor)
	Commit                      // commit length: accepted drafts + 1 bonus token, per verify step
	AcceptRate                  // accept rate as the engine states it (informative only)
	AcceptedDepth               // avg_accepted_depth of custom builds
	AcceptedDrafts              // avg_accepted_drafts / num_accepted_drafts
	Accepted                    // accepted draft tokens in the interval
	Drafted                     // drafted (proposed) tokens in the interval
	Emitted                     // emitted tokens (vLLM v0)
	SpecTokens                  // speculative tokens per step (vLLM v0)
	AcceptedTPS                 // accepted throughput, tokens/s (vLLM)
	DraftedTPS                  // drafted throughput, tokens/s (vLLM)
	GenTPS                      // generation throughput, tokens/s
	PromptTPS                   // prompt/input throughput, tokens/s
	StepSeconds                 // a directly logged step time (step_ms, total_ms)
	Graph                       // 1 when the step ran as a CUDA/CPU/NPU graph, 0 when not
	CachedTokens                // prefix-cache hits in tokens
	NewTokens                   // prefill: new tokens in the batch
	NewSeqs                     // prefill: new sequences in the batch
	Retracted                   // retracted requests
	BlockSize                   // drafter block size (start-up)
	TreeBudget                  // DDTree tree budget (start-up)
	Steps                       // verify steps the sample covers (a llama.cpp request)
	// SpecSteps is the draft length the engine says it runs now; 0 is a step without drafts
	// (speculation off by policy: adaptive steps at 0, a batch above the schedule, a gate).
	SpecSteps
	SpecThreshold // the acceptance below which the engine turns speculation off (TensorRT-LLM)
	// VerifyTokens is the tokens the target verifies per step as the engine configures them now,
	// the root included (SGLang's speculative_num_draft_tokens: steps + 1 with topk 1, the tree's
	// size above).
	VerifyTokens
	numFields
)

var fieldNames = [numFields]string{
	"running", "queue", "context", "token_usage", "kv_usage", "commit_len", "accept_rate",
	"accepted_depth", "accepted_drafts", "accepted", "drafted", "emitted", "spec_tokens",
	"accepted_tps", "drafted_tps", "gen_tps", "prompt_tps", "step_seconds", "graph",
	"cached_tokens", "new_tokens", "new_seqs", "retracted", "block_size", "tree_budget",
	"steps", "spec_steps", "spec_threshold", "verify_tokens",
}

func (f Field) String() string {
	if f < numFields {
		return fieldNames[f]
	}
	return "unknown"
}

// NumFields is the number of defined fields, for iteration.
const NumFields = int(numFields)

// FieldNames are every field's String form, in order.
func FieldNames() []string { return append([]string(nil), fieldNames[:]...) }

// FieldByName maps a Field's String form back to it (config aliases name fields this way).
func FieldByName(name string) (Field, bool) {
	for i, n := range fieldNames {
		if n == name {
			return Field(i), true
		}
	}
	return 0, false
}
