// Package sample is specwatch's vocabulary: what a record from an engine says (Sample), the
// quantities it may carry (Field), its kind, engine, event and source. It imports nothing of
// specwatch, so that the parser, every source, the model and the simulator can share it.
package sample

// Result says what a record was.
type Result uint8

const (
	// Ignored lines carry no engine marker: noise, counted and skipped.
	Ignored Result = iota
	// Matched lines produced a Sample.
	Matched
	// Malformed lines carry an engine marker but did not parse. Their count drives the
	// format_drift anomaly, so a damaged record must land here, never as a plausible number.
	Malformed
)

func (r Result) String() string {
	switch r {
	case Matched:
		return "matched"
	case Malformed:
		return "malformed"
	}
	return "ignored"
}

// Kind is the sort of record a line is.
type Kind uint8

const (
	KindNone    Kind = iota
	KindDecode       // SGLang decode line, vLLM engine line, DFLASH profile, key=value statistics
	KindSpec         // vLLM SpecDecoding/Speculative metrics, llama.cpp draft acceptance
	KindPrefill      // SGLang prefill lines
	KindEvent        // retractions, drafter start-up, verify summaries
)

var kindNames = [...]string{"none", "decode", "spec", "prefill", "event"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "none"
}

// Engine names the software that wrote a line. It is part of the series key.
type Engine uint8

const (
	EngineUnknown Engine = iota
	EngineSGLang
	EngineVLLM
	EngineLlamaCpp
	EngineGeneric
	EngineTRTLLM // TensorRT-LLM: its iteration and SpeculationGate lines (parse), its /metrics (ingest/scrape)
)

var engineNames = [...]string{"unknown", "sglang", "vllm", "llamacpp", "generic", "trtllm"}

func (e Engine) String() string {
	if int(e) < len(engineNames) {
		return engineNames[e]
	}
	return "unknown"
}

// Event refines KindEvent.
type Event uint8

const (
	EventNone        Event = iota
	EventRetract           // KV cache full or decode out of memory: requests retracted
	EventDrafterInit       // DFLASH draft runner or DDTree worker initialised
	EventVerifyDone        // DFLASH/DDTree verify completed (one-off summary of the first step)
	// EventTotals marks a spec sample whose figures are cumulative since the engine started
	// (llama.cpp's common_speculative statistics): right, but not the current acceptance.
	EventTotals
	EventSummary // one line of a run's closing summary (llama.cpp examples/speculative)
	EventRestart // the engine's counters went back: it restarted (ingest/scrape)
	// EventRequest is one finished llama.cpp request, joined from its print_timing lines: a
	// decode sample whose step time, commit length and context hold for the whole request.
	EventRequest
	// EventPart is a line that only contributes to a join (a request's eval time, its
	// acceptance): matched, but the model has nothing to do with it on its own.
	EventPart
	// EventStatsDelta is llama.cpp's statistics line made the change since the previous one
	// of its server and implementation (Stream): accepted and drafted tokens, per-position
	// rates of the interval. Its first reading stays EventTotals.
	EventStatsDelta
	// EventSpecPolicy is an engine saying it changed its speculation (SGLang's adaptive steps,
	// TensorRT-LLM's SpeculationGate): SpecSteps, and what it judged by.
	EventSpecPolicy
	// EventIteration is one forward pass of the engine, measured rather than averaged
	// (ingest/fwdpass): its step time, the decode requests it ran and their KV tokens. A
	// KindDecode sample ran decode requests only; a KindPrefill one ran prefill requests,
	// alone or beside decode ones (NewSeqs, NewTokens, CachedTokens say which).
	EventIteration
)

var eventNames = [...]string{"", "retract", "drafter_init", "verify_done", "totals", "summary", "restart", "request", "part",
	"stats_delta", "spec_policy", "iteration"}

func (e Event) String() string {
	if int(e) < len(eventNames) {
		return eventNames[e]
	}
	return ""
}

// Source says where a sample came from. The model keeps one series per engine rank whatever
// the source, and takes each figure from the source that states it best (the counters for
// acceptance, the logs for step time and context), so it must know which one spoke.
type Source uint8

const (
	SourceLog     Source = iota // a log line (parse)
	SourceMetrics               // the engine's /metrics (ingest/scrape)
	// SourceForwardPass is the engine's per-iteration forward-pass metrics stream (ingest/fwdpass):
	// one sample per forward pass, its step time measured, never an average.
	SourceForwardPass
)

func (s Source) String() string {
	switch s {
	case SourceMetrics:
		return "metrics"
	case SourceForwardPass:
		return "forward_pass"
	}
	return "logs"
}

// MaxPerPosition bounds the per-position acceptance list. vLLM prints 2 to 15 values; llama.cpp
// one per draft position, up to 64 (--spec-draft-n-max, n-gram drafts); a longer list is damage
// (two lines glued), not a bigger drafter.
const MaxPerPosition = 64

// Sample is one record: a parsed log line or one reading of an engine's /metrics. Byte slices
// point into the record's input or its reader's scratch buffer and are valid until the reader's
// next call: copy what you keep.
//
// Absent fields are absent (Has reports false), never zero, because "zero requests running" and
// "this line did not say" lead the model to different conclusions.
type Sample struct {
	Kind   Kind
	Engine Engine
	Event  Event
	Source Source

	// Series key parts found in the line itself. The journal's own _HOSTNAME/_SYSTEMD_UNIT
	// override Host and Unit when the entry has them (see Stream).
	Host []byte
	Unit []byte
	Rank []byte // "TP0", "DP3 TP3 EP3", "Engine 000", "gpu=0"
	Proc []byte // vLLM process tag ("APIServer pid=9120") or docker-compose service ("vllm-1")
	// Container, Namespace and Pod come from the entry, never from the line (see
	// ingest.Entry); the caller sets them before Resolve.
	Container, Namespace, Pod []byte

	// Time in Unix nanoseconds (for a log line, parse.Stream resolves it from the line's stamps).
	Time int64

	has    uint64
	vals   [numFields]float64
	PerPos [MaxPerPosition]float64
	NPos   int

	// Why names the first problem of a Malformed line, for logs and tests.
	Why string
}

// Reset clears s for reuse.
func (s *Sample) Reset() { *s = Sample{} }

// ClearFields drops every field s carries, keeping its key, kind and time.
func (s *Sample) ClearFields() {
	for f := Field(0); f < numFields; f++ {
		if s.Has(f) {
			s.vals[f] = 0
		}
	}
	s.has = 0
}

// Has reports whether the line carried f.
func (s *Sample) Has(f Field) bool { return s.has&(1<<f) != 0 }

// Get returns f's value and whether the line carried it.
func (s *Sample) Get(f Field) (float64, bool) { return s.vals[f], s.has&(1<<f) != 0 }

// Value returns f's value, or 0 when absent; use Has or Get where absence matters.
func (s *Sample) Value(f Field) float64 { return s.vals[f] }

// Set records f; the second Set of one field in a line is reported so that duplicated keys
// (two records glued together) make the line malformed.
func (s *Sample) Set(f Field, v float64) (dup bool) {
	bit := uint64(1) << f
	dup = s.has&bit != 0
	s.has |= bit
	s.vals[f] = v
	return dup
}

// Fields returns the bit set of present fields (for iteration in tests and exporters).
func (s *Sample) Fields() uint64 { return s.has }
