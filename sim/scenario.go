// Package sim writes realistic speculative-decoding engine logs (SGLang, vLLM, llama.cpp,
// TensorRT-LLM and custom key=value builds) from known parameters, with the truth behind each line.
//
// The logs are what specwatch must explain, so the generator follows the engines' own arithmetic
// rather than drawing numbers independently: a step takes A + B·context seconds, a line's throughput
// is the tokens produced since the previous line over the wall time since then (hence SGLang's tiny
// figure after an idle gap), vLLM's mean acceptance length is 1 + accepted / drafts of the very counts
// it prints. Tests and the demo can then check specwatch's estimates against the truth instead of
// against a second guess.
//
// Everything is a pure function of the Scenario: the same seed yields byte-identical output, and no
// clock is read.
package sim

import "time"

// Scenario is one run of one or more services, written as a single time-ordered stream, because
// that is what specwatch reads: a journal, a compose log or a file several processes write to.
type Scenario struct {
	Name string
	// Seed makes the run reproducible; every random choice derives from it.
	Seed uint64
	// Start is the wall-clock time of the first instant; its Location is the servers' local time
	// zone, used for every printed timestamp. Zero selects 2026-11-20 09:00:00 UTC.
	Start time.Time
	// Duration bounds the run: no engine line is later than Start + Duration.
	Duration time.Duration
	// Format is the transport around the engines' lines. It is per scenario, not per service,
	// because one stream has one shape: journalctl does not mix -o json and -o short.
	Format Format
	// DecodeInterval is SGLang's --decode-log-interval: decode steps between two decode lines
	// (also the cadence of key=value statistics). Zero selects 40.
	DecodeInterval int
	// StatsInterval is vLLM's logging interval. Zero selects 10 s.
	StatsInterval time.Duration
	// Noise is the fraction of written lines that are not engine lines (access logs, NCCL chatter,
	// tracebacks, other units), in [0, 0.95].
	Noise float64
	// NoiseMix weighs the kinds of noise; the zero value is the default mix.
	NoiseMix NoiseMix
	// OnPass, when set, is called with every forward pass of the services with ForwardPass.
	OnPass func(Pass)
	// MaxLines stops the run after this many lines (records, for -o export); zero means no limit.
	MaxLines int
	Services []Service
}

// Service is one engine process (a systemd unit or a compose service) with one or more ranks.
type Service struct {
	Host string // _HOSTNAME; default "gpu01"
	Unit string // _SYSTEMD_UNIT; default "<engine>.service"
	// Identifier is SYSLOG_IDENTIFIER, the command name journald shows; default by engine
	// (python3, vllm, llama-server).
	Identifier string
	// PID of the process; zero derives one from the seed.
	PID int
	// Compose is the docker-compose service name; default the unit without ".service".
	Compose string
	Engine  Engine
	// Ranks are the series this process writes. SGLang: "TP0", "DP1 TP1", "" (one GPU, no tag);
	// vLLM: "Engine 000", or "" for no lead; TensorRT-LLM: "" (rank 0), "1", … (each rank it
	// logs, TLLM_PROFILE_LOG_RANKS). Each rank simulates its own batch: with
	// data-parallel attention every DP rank serves different requests. Default one rank.
	Ranks []string
	// Style selects the engine's line generation; zero is the engine's current one.
	Style Style
	// Prefix selects the logger layout in front of each line.
	Prefix Prefix
	// Color wraps vLLM's process tag and level in ANSI colour codes, as a terminal-enabled vLLM does.
	Color bool

	Step       StepModel
	Workload   Workload
	Acceptance Acceptance
	// KVTokens is the KV-cache capacity in tokens: token usage and vLLM's GPU KV cache usage are
	// context / KVTokens, and SGLang retracts requests when it is full. Zero selects 500 000.
	KVTokens int

	PrefillLines bool // SGLang: a Prefill batch line when requests are admitted
	ProfileLines bool // SGLang DFlash: a [DFLASH profile] line with every decode line
	// ForwardPass: each decode step is its own forward pass, handed to Scenario.OnPass as the
	// engines' forward-pass metrics publish it; the decode line still comes every interval.
	ForwardPass  bool
	CustomStats  bool // SGLang: an avg_commit_len=… key=value line with every decode line
	StartupLines bool // SGLang: the DFLASH/DDTree initialisation lines at the start; llama.cpp "listening on"
	// Restarts are offsets at which the SGLang engine restarts: its start-up lines are
	// written again (the batch carries on; pair with a fault starting there for an upgrade
	// that made it worse).
	Restarts []time.Duration
	// LlamaCpp is how a llama-server (Engine LlamaCpp) is started; its slots (-np) are
	// Workload.Concurrency and its draft length (--spec-draft-n-max) Acceptance.DraftLen.
	LlamaCpp LlamaCppOptions
	// Policy is speculation the engine switches off on purpose (policy.go).
	Policy SpecPolicy

	Faults []Fault
}

// StepModel is the cost of one decode (or verify) step: A + B·context seconds, where context is
// the KV tokens of all running requests (SGLang's #token). Attention reads every context token,
// which is why the slope, not the batch size, dominates at long context.
type StepModel struct {
	A float64 // fixed seconds per step
	B float64 // seconds per context token
	// Noise is the multiplicative standard deviation per line; zero selects 3 %, negative none.
	Noise float64
}

// Workload is the requests process of one rank.
type Workload struct {
	// Concurrency caps running requests; further arrivals wait in the queue. Zero selects 1.
	Concurrency int
	// ArrivalMean is the mean gap between Poisson arrivals. Zero with no Script keeps the batch
	// full (a closed-loop benchmark: no idle gaps).
	ArrivalMean          time.Duration
	PromptMin, PromptMax int // prompt tokens, log-uniform; zero selects 200..8000
	OutputMin, OutputMax int // generated tokens, log-uniform; zero selects 100..2000
	// MaxContext ends a request when prompt + generated reaches it (the model's window).
	// Zero selects 32768.
	MaxContext int
	// Shifts change the arrival and length distributions from a time on, e.g. a long-context
	// period; the last shift whose At has passed applies to new requests.
	Shifts []Shift
	// Script, when set, replaces random arrivals with exactly these requests.
	Script []Request
}

// Shift is a change of workload from At (offset from Scenario.Start) on. Zero fields keep the
// base Workload's value.
type Shift struct {
	At                   time.Duration
	ArrivalMean          time.Duration
	PromptMin, PromptMax int
	OutputMin, OutputMax int
}

// Request is one scripted request.
type Request struct {
	At     time.Duration // arrival, offset from Scenario.Start
	Prompt int           // prompt tokens
	Output int           // tokens to generate
	Phase  int           // index into Acceptance.Phases where the request starts
}

// Acceptance is the commit-length process: how many tokens a verify step commits per request.
// Acceptance depends on the text being generated, so it is a property of each request's phase
// rather than of the engine.
type Acceptance struct {
	// DraftLen is the number of draft tokens proposed per step (DFlash block size − 1, EAGLE
	// num_speculative_tokens, llama.cpp's n_max), at most 15 (llama.cpp 64). Commit length is
	// clamped to [1, DraftLen+1]. Zero means no speculative decoding: no acceptance fields are
	// written.
	DraftLen int
	// Phases of text. A random request starts in a phase drawn by Weight and moves to the next
	// phase after Tokens generated tokens. Empty selects one phase of mean 3.
	Phases []Phase
	// NoiseSD is the standard deviation of a line's commit length around the phase means; zero
	// selects 0.15, negative none.
	NoiseSD float64
}

// Phase is a stretch of text with a characteristic acceptance: "easy" boilerplate accepts 7–8
// tokens per step with a long draft, "hard reasoning" nearer 3.
type Phase struct {
	Name   string
	Mean   float64 // mean commit length at the start of the phase
	To     float64 // if non-zero, the mean moves linearly to To over Tokens
	Tokens int     // generated tokens before the next phase; zero: until the request ends
	Weight float64 // chance that a random request starts here
}
