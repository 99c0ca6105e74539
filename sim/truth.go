package sim

import "time"

// Series identifies one rank of one engine process on one host, as DESIGN.md's series key.
type Series struct {
	Host, Unit string
	Engine     Engine
	Rank       string
}

// Truth is the ground truth behind one engine line.
type Truth struct {
	// Record is the 1-based index of the line's record in the output: the line number in every
	// format but -o export, where it counts entries.
	Record int
	Line   LineKind
	Series Series
	// Time is the engine's clock when it wrote the line (its own prefix shows it truncated);
	// Logged is journald's receive time, in whole microseconds, a little later.
	Time, Logged time.Time
	// Context is the KV tokens of the running requests (SGLang #token; vLLM's KV usage is
	// Context / KVTokens). Running and Queue are the batch and waiting requests.
	Context, Running, Queue int
	// StepSeconds is the GPU time of one step over the interval (what step_ms and total_ms
	// print); CommitLen the mean tokens committed per request per step; TPS the generation
	// throughput the engine computed. For llama.cpp's lines from print_timing to release they
	// describe the finished request (below). TensorRT-LLM's iteration lines: StepSeconds is the
	// iteration's host step time, Running its generation requests (its context ones beside).
	StepSeconds, CommitLen, TPS float64
	// Steps, Drafts and MeanContext describe a llama.cpp request: its verify steps (G − 1 −
	// accepted, G the tokens generated), how many of them drafted, and its mean context,
	// n_tokens at release − (G − 1)/2 (Context rounds it). CommitLen is then (G − 1) / Steps,
	// StepSeconds the eval time / Steps, TPS the (G − 1) / eval time the engine prints, and
	// Running the most requests that ran at once during it, itself included.
	Steps, Drafts int
	MeanContext   float64
	// AfterIdle marks a line whose interval contains idle time, so its TPS understates the
	// batch's rate: keep it out of fits.
	AfterIdle bool
	// Faults active when the line's interval began.
	Faults FaultSet
}

// SeriesLines counts the engine lines of one series.
type SeriesLines struct {
	Series Series
	Lines  int
}

// Summary describes what Generate wrote.
type Summary struct {
	Lines       int // records written (lines, or entries for -o export)
	EngineLines int // records with a Truth
	NoiseLines  int // everything else
	Series      []SeriesLines
	// First and Last are the receive times of the first and last records.
	First, Last time.Time
}
