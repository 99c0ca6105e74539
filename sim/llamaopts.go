package sim

import (
	"errors"
	"time"
)

// LlamaCppOptions are the llama-server flags that change what it logs (llama.cpp 0.7.0).
// Service.Prefix picks its line prefix: PrefixEngine is the time since the process started and
// the level ("0.05.071.041 I "), PrefixBare none. A drafter broken from the start is a
// StuckAtOne fault from 0: it drafts as usual and nothing it drafts is accepted, so its
// statistics list no position, "#acc rate/pos = ()".
type LlamaCppOptions struct {
	// Verbosity is -lv: at 3 (zero selects it) a request prints its launch, print_timing
	// block and release; 4 adds its acc per pos, the drafter's cumulative statistics and "all
	// slots are idle" when the last busy slot is released.
	Verbosity int
	// JSONL is --log-jsonl: every line a {"type":"log","time":µs since start,…} object, with
	// no text prefix.
	JSONL bool
	// NGram drafts by --spec-type ngram-mod rather than a draft model: most steps find no
	// draft, one that does drafts 3/4·DraftLen to DraftLen tokens and accepts most of them,
	// so mean len (per drafting step) is far above the commit length per verify step, and
	// some requests never draft and print no acceptance line.
	NGram bool
}

// llamaBoot is how long llama-server takes from its start to "listening on" (0.61 s in the
// captures): its since-start clock reads that at the scenario's start.
const llamaBoot = 610 * time.Millisecond

func (o *LlamaCppOptions) normalize() error {
	if o.Verbosity == 0 {
		o.Verbosity = 3
	}
	if o.Verbosity != 3 && o.Verbosity != 4 {
		return errors.New("llama.cpp: verbosity must be 3 or 4")
	}
	return nil
}

// drafter is the implementation llama.cpp's statistics line names.
func (o *LlamaCppOptions) drafter() string {
	if o.NGram {
		return "ngram-mod"
	}
	return "draft-simple"
}
