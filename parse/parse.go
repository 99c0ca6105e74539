package parse

import (
	"bytes"
	"strings"

	"github.com/specwatch/specwatch/parse/internal/lex"
	"github.com/specwatch/specwatch/parse/internal/llama"
	"github.com/specwatch/specwatch/parse/internal/stamp"
	"github.com/specwatch/specwatch/sample"
)

// Options extend the built-in formats.
type Options struct {
	// Aliases adds key=value names for custom builds (config: aliases).
	Aliases map[string]Alias
	// Rules read shapes no built-in parser knows (config: rules).
	Rules []Rule
}

// Parser parses lines. It holds only a scratch buffer (for lines whose ANSI codes must be
// removed) so that parsing does not allocate; it is not safe for concurrent use.
type Parser struct {
	opts    Options
	scratch []byte
}

// NewParser returns a Parser with the given options.
func NewParser(opts Options) *Parser { return &Parser{opts: opts} }

// MaxLine bounds the bytes of a line the parser looks at. Engine records are a few hundred
// bytes; a longer line is damage or a dump, and reading further would only cost time.
const MaxLine = 1 << 20

// Parse reads one line into s (which it resets first) and says what the line was.
func (p *Parser) Parse(line []byte, s *Record) sample.Result {
	s.Reset()
	if len(line) > MaxLine {
		line = line[:MaxLine]
	}
	fam := families(line)
	if fam == 0 {
		if len(p.opts.Rules) == 0 {
			return sample.Ignored // noise, most lines
		}
		return p.rules(line, s)
	}
	if lex.HasANSI(line) {
		p.scratch = lex.StripANSI(p.scratch[:0], line)
		line = p.scratch
	}
	line = lex.TrimSpace(line)
	if r := p.classify(line, fam, s); r != sample.Ignored || len(p.opts.Rules) == 0 {
		return r
	}
	s.Reset()
	return p.rules(line, s)
}

// rules tries the configured rules on a line the built-in parsers ignored.
func (p *Parser) rules(line []byte, s *Record) sample.Result {
	for i := range p.opts.Rules {
		if r := p.opts.Rules[i].apply(line, s); r != sample.Ignored {
			return r
		}
		s.Reset()
	}
	return sample.Ignored
}

// Families of markers, found by the first look at a line.
const (
	famBatch   uint8 = 1 << iota // "#running-req:", "#new-seq:", "#seq:"
	famMetrics                   // "SpecDecoding metrics:", "Speculative metrics:"
	famEngine                    // "Avg prompt throughput:"
	famRetract                   // "#retracted_reqs:"
	famEquals                    // key=value statistics, llama.cpp
	famDrafter                   // DFLASH/DDTree start-up and summary lines (found by classify)
	famSpaced                    // the first '=' has a blank each side: llama.cpp's "key = value"
	famStart                     // an engine's start-up line: vLLM's version, SGLang's server_args, llama.cpp listening
)

// families is the cheap first look that lets noise through at memory speed. Every record
// specwatch reads has a '=' (key=value statistics, llama.cpp, DFLASH) or a colon right after
// one of a few words; a noise line costs one vectorised byte search per colon it holds. The
// families found also spare classify the markers that cannot be there.
func families(b []byte) uint8 {
	var fam uint8
	if j := bytes.IndexByte(b, '='); j >= 0 {
		fam = famEquals
		// llama.cpp writes "name = value", the key=value statistics do not: telling them apart
		// here spares those the llama.cpp markers' searches and noise with a '=' the summary's.
		if j > 0 && b[j-1] == ' ' && j+1 < len(b) && b[j+1] == ' ' {
			fam |= famSpaced
		}
		// SGLang's launch line, "server_args=ServerArgs(…)": one comparison at the first '='.
		if j >= len("server_args") && string(b[j-len("server_args"):j]) == "server_args" {
			fam |= famStart
		}
	}
	for i := afterShortStamp(b); ; {
		j := bytes.IndexByte(b[i:], ':')
		if j < 0 {
			break
		}
		i += j
		if i >= 4 && endsWord(b[i-1]) {
			if f := colonFamily(b[:i]); f != 0 {
				fam |= f
				break // one marker per record; classify looks for the rest
			}
		} else if i+3 < len(b) && b[i+3] == ':' && lex.IsDigit(b[i+2]) {
			// The first colon of a clock, "09:00:01": the second follows a digit and cannot end a
			// marker word either, so the search resumes after it. Nearly every line has such a
			// clock after its journal prefix (SGLang's and vLLM's own stamps): analyze of the
			// chatty corpus 3,635 → 3,598 M instructions, the mixed corpus 2,500 → 2,499 M (cachegrind).
			i += 3
		}
		i++
	}
	if fam == 0 {
		fam = leadFamily(b)
	}
	return fam
}

// afterShortStamp returns 15 when b starts with journalctl's short timestamp, "Nov 20 09:00:01",
// and 0 otherwise. Its two colons follow digits and cannot end a marker word: starting the colon
// search after them spares two searches on every line of the most common input. (A colon among
// the first bytes cannot end one either: the blank at b[3] breaks any marker word there.)
func afterShortStamp(b []byte) int {
	if len(b) >= 15 && b[3] == ' ' && b[6] == ' ' && isClock(b[7:15]) {
		return 15
	}
	return afterISOStamp(b)
}

// afterISOStamp does the same for journalctl's short-iso timestamp, "2026-11-20T09:00:01",
// returning 19 (digits, not a blank, break a marker word among the first bytes). Every line of
// the chatty corpus starts with one; skipping it took BenchmarkChatty's instructions from 3,419
// to 3,333 per line (cachegrind) and its CPU time to 0.87× (median of 11 alternated runs),
// BenchmarkAccessISO from 1,158 to 1,066 instructions. Short lines pay one more comparison
// (BenchmarkSGLangDecode +0.4 % instructions).
func afterISOStamp(b []byte) int {
	if len(b) >= 19 && b[4] == '-' && b[7] == '-' && b[10] == 'T' && isClock(b[11:19]) {
		return 19
	}
	return 0
}

// isClock reports whether c is "hh:mm:ss" in shape: two digits, a colon, two, a colon, two.
func isClock(c []byte) bool {
	return len(c) == 8 && lex.IsDigit(c[0]) && lex.IsDigit(c[1]) && c[2] == ':' && lex.IsDigit(c[3]) && lex.IsDigit(c[4]) &&
		c[5] == ':' && lex.IsDigit(c[6]) && lex.IsDigit(c[7])
}

// leadFamily finds a marker word where engines put it, at the start of the message: at the
// line's start or right after a ']' (SGLang's and vLLM's prefixes end with one). It catches
// records whose fields were renamed by a new engine version, so that they are counted as
// malformed (format_drift's signal) rather than ignored as noise, at the cost of a byte search
// per ']' instead of a substring search over the whole line.
func leadFamily(b []byte) uint8 {
	at := 0
	if len(b) > 0 && lex.IsDigit(b[0]) { // llama.cpp's since-start stamp, "0.01.287.775 I "
		var t stamp.Stamp
		at, _ = stamp.SinceStartAt(b, 0, &t)
	}
	for k := 0; k < 4; k++ {
		for at < len(b) && b[at] == ' ' {
			at++
		}
		if f := leadWord(b[at:]); f != 0 {
			return f
		}
		j := bytes.IndexByte(b[at:], ']')
		if j < 0 {
			return 0
		}
		at += j + 1
	}
	return 0
}

func leadWord(b []byte) uint8 {
	if len(b) < 12 {
		return 0
	}
	switch b[0] {
	case 'D':
		if bytes.HasPrefix(b, []byte("Decode batch")) {
			return famBatch
		}
	case 'P':
		if bytes.HasPrefix(b, []byte("Prefill batch")) {
			return famBatch
		}
	case 'S':
		if bytes.HasPrefix(b, []byte("SpecDecoding metrics")) || bytes.HasPrefix(b, []byte("Speculative metrics")) {
			return famMetrics
		}
	case 'v':
		if bytes.HasPrefix(b, []byte("vLLM API server version ")) {
			return famStart
		}
	case 'm':
		if bytes.HasPrefix(b, []byte("main: server is listening")) {
			return famStart
		}
	case 's':
		if bytes.HasPrefix(b, []byte("srv  llama_server: listening on ")) {
			return famStart
		}
	}
	return 0
}

// endsWord tells whether a colon after c may end a marker word. Most colons end something else
// (a clock time, a process tag), and this spares them a call.
func endsWord(c byte) bool { return c == 'q' || c == 's' || c == 't' || c == 'd' }

// colonFamily names the family of the marker word that head, the text before a colon, ends with.
func colonFamily(head []byte) uint8 {
	n := len(head)
	if n < 4 {
		return 0
	}
	switch head[n-1] {
	case 'q': // "-req", "_req", "#seq"
		if head[n-2] == 'e' && (head[n-3] == 'r' || head[n-3] == 's') {
			return famBatch
		}
	case 's':
		if bytes.HasSuffix(head, []byte("metrics")) {
			return famMetrics
		}
		if bytes.HasSuffix(head, []byte("_reqs")) {
			return famRetract
		}
	case 't':
		if bytes.HasSuffix(head, []byte("throughput")) {
			return famEngine
		}
	case 'd': // the engines' word on their speculation (specpolicy.go)
		if bytes.HasSuffix(head, []byte("spec params updated")) || bytes.HasSuffix(head, []byte("decoding disabled")) {
			return famDrafter
		}
	}
	return 0
}

type marker struct {
	text   string
	anchor int // index in text of a byte that is rare in logs; see index
	fam    uint8
	engine sample.Engine // when no prefix names one
	body   func(p *Parser, b []byte, s *Record) sample.Result
	lead   func(b []byte, at int) int // where the record starts, when before the marker
}

// mark builds a marker whose search anchors on the first rare byte in text.
func mark(text string, rare byte, fam uint8, engine sample.Engine, body func(p *Parser, b []byte, s *Record) sample.Result) marker {
	anchor := strings.IndexByte(text, rare)
	if anchor < 0 {
		panic("parse: marker " + text + " lacks its anchor " + string(rare))
	}
	return marker{text: text, anchor: anchor, fam: fam, engine: engine, body: body}
}

// led gives m a lead: where its record starts before the marker found.
func led(m marker, lead func(b []byte, at int) int) marker { m.lead = lead; return m }

// index returns where the marker first occurs in b, or -1. bytes.Index would search for the
// marker's first byte, often a letter common in logs ('d' of "draft acceptance rate = "), and
// then compare at each of its many places; searching for a rare byte of the marker instead
// ('z' of "Initialized") skips most of a line in one vectorised step. The answer is the same:
// each occurrence of the marker holds its anchor at the same offset.
func (m *marker) index(b []byte) int {
	rare := m.text[m.anchor]
	for i := m.anchor; i < len(b); i++ {
		j := bytes.IndexByte(b[i:], rare)
		if j < 0 {
			return -1
		}
		i += j
		at := i - m.anchor
		if at+len(m.text) > len(b) {
			return -1
		}
		if string(b[at:at+len(m.text)]) == m.text {
			return at
		}
	}
	return -1
}

// markers are tried in order; the first found decides the line's shape, and everything before
// it is prefix.
var markers = [...]marker{
	mark("Decode batch", 'b', famBatch, sample.EngineSGLang, func(_ *Parser, b []byte, s *Record) sample.Result { return sglangDecode(b, s) }),
	mark("SpecDecoding metrics:", 'D', famMetrics, sample.EngineVLLM, func(_ *Parser, b []byte, s *Record) sample.Result {
		return vllmSpec(b[len("SpecDecoding metrics:"):], s)
	}),
	mark("Avg prompt throughput:", 'h', famEngine, sample.EngineVLLM, func(_ *Parser, b []byte, s *Record) sample.Result { return vllmEngine(b, s) }),
	mark("Speculative metrics:", 'S', famMetrics, sample.EngineVLLM, func(_ *Parser, b []byte, s *Record) sample.Result {
		return vllmSpecV0(b[len("Speculative metrics:"):], s)
	}),
	mark("Prefill batch", 'f', famBatch, sample.EngineSGLang, func(_ *Parser, b []byte, s *Record) sample.Result {
		return sglangPrefill(b, len("Prefill batch"), ',', s)
	}),
	mark("new fill batch", 'f', famBatch, sample.EngineSGLang, func(_ *Parser, b []byte, s *Record) sample.Result {
		return sglangPrefill(b, len("new fill batch"), '.', s)
	}),
	mark("#retracted_reqs:", '#', famRetract, sample.EngineSGLang, func(_ *Parser, b []byte, s *Record) sample.Result { return sglangRetract(b, s) }),
	// llama.cpp's slot lines ("id  0 | task 5 | …") before the bare ones they contain.
	led(mark("| task ", '|', famSpaced, sample.EngineLlamaCpp, func(_ *Parser, b []byte, s *Record) sample.Result { return llamaSlot(b, s) }), llama.SlotLead),
	mark("draft acceptance ", 'f', famSpaced, sample.EngineLlamaCpp, func(_ *Parser, b []byte, s *Record) sample.Result { return llamaBare(b, s) }),
	led(mark("#calls(b,g,a) = ", '#', famSpaced, sample.EngineLlamaCpp, func(_ *Parser, b []byte, s *Record) sample.Result { return llamaStats(b, s) }), llama.StatsLead),
	led(mark("eval time = ", 'v', famSpaced, sample.EngineLlamaCpp, func(_ *Parser, b []byte, s *Record) sample.Result { return llamaBare(b, s) }), llama.EvalLead),
	mark("total time = ", 'm', famSpaced, sample.EngineLlamaCpp, func(_ *Parser, b []byte, s *Record) sample.Result { return llamaBare(b, s) }),
	// TensorRT-LLM's iteration line (trtllm.go): every generation spells its first '=' " = ".
	led(mark(", global_rank = ", 'k', famEquals, sample.EngineTRTLLM, func(_ *Parser, b []byte, s *Record) sample.Result { return trtIteration(b, s) }), trtIterLead),
	mark("Initialized DFLASH draft runner", 'z', famDrafter, sample.EngineSGLang, (*Parser).drafterEvent),
	mark("Initialized DDTree worker", 'z', famDrafter, sample.EngineSGLang, (*Parser).drafterEvent),
	mark("DFLASH verify completed", 'H', famDrafter, sample.EngineSGLang, func(_ *Parser, b []byte, s *Record) sample.Result { return verifyDone(b, s) }),
	mark("DDTREE verify completed", 'T', famDrafter, sample.EngineSGLang, func(_ *Parser, b []byte, s *Record) sample.Result { return verifyDone(b, s) }),
	mark("[DFLASH accept]", 'F', famDrafter, sample.EngineSGLang, func(_ *Parser, b []byte, s *Record) sample.Result { return dflashAccept(b, s) }),
	mark("[DFLASH profile]", 'F', famDrafter, sample.EngineSGLang, (*Parser).dflashProfile),
	// Speculation switched by the engine's policy (specpolicy.go); "updated:" and "disabled:"
	// put them in the drafter family.
	mark("Adaptive spec params updated:", 'A', famDrafter, sample.EngineSGLang, func(_ *Parser, b []byte, s *Record) sample.Result { return adaptiveSteps(b, s) }),
	mark("Speculative decoding disabled:", 'v', famDrafter, sample.EngineTRTLLM, func(_ *Parser, b []byte, s *Record) sample.Result { return specGate(b, s) }),
	// Start-up lines: the engine (re)started, so restart_regression compares what follows with
	// what came before (vllm/entrypoints/openai/api_server.py, sglang's launch_server,
	// llama.cpp's tools/server/server.cpp).
	mark("vLLM API server version ", 'A', famStart, sample.EngineVLLM, startEvent),
	mark("server_args=ServerArgs(", 'A', famStart, sample.EngineSGLang, startEvent),
	mark("main: server is listening", 'g', famStart, sample.EngineLlamaCpp, startEvent),
	mark("llama_server: listening on ", '_', famStart, sample.EngineLlamaCpp, startEvent), // 0.7.0
}

// startEvent is an engine's start-up line: an event naming no rank, which the model applies to
// every series of the engine's host, unit and container.
func startEvent(_ *Parser, _ []byte, s *Record) sample.Result {
	s.Kind, s.Event = sample.KindEvent, sample.EventRestart
	return sample.Matched
}

// markersOf lists, for each set of families, the markers of those families in the order of
// markers: classify visits only the markers that may be on the line.
var markersOf = func() (t [int(famStart) << 1][]uint8) {
	for fam := range t {
		for i, m := range markers {
			if m.fam&uint8(fam) != 0 {
				t[fam] = append(t[fam], uint8(i))
			}
		}
	}
	return t
}()

func (p *Parser) classify(b []byte, fam uint8, s *Record) sample.Result {
	if fam&famEquals != 0 && namesDrafter(b) {
		fam |= famDrafter
	}
	for _, i := range markersOf[fam] {
		m := &markers[i]
		at := m.index(b)
		if at < 0 {
			continue
		}
		if m.lead != nil {
			at = m.lead(b, at)
		}
		prefix(b[:engineLead(b, at, s)], s)
		if s.Engine == sample.EngineUnknown {
			s.Engine = m.engine
		}
		return m.body(p, b[at:], s)
	}
	if fam&famEquals == 0 {
		return sample.Ignored
	}
	return p.generic(b, fam&famSpaced != 0, s)
}

// namesDrafter tells whether b may name a DFLASH or DDTree drafter: whether it holds "DF" or
// "DD", as each start-up marker does. One search for 'D' rules the three markers out on the
// key=value lines that are not start-up lines, instead of a search per marker.
func namesDrafter(b []byte) bool {
	for i := 0; i+1 < len(b); i++ {
		j := bytes.IndexByte(b[i:len(b)-1], 'D')
		if j < 0 {
			return false
		}
		i += j
		if b[i+1] == 'F' || b[i+1] == 'D' {
			return true
		}
	}
	return false
}

// engineLead finds vLLM's "Engine 000: " or "2 Engines Aggregated: " before the marker at,
// records it as the rank and returns where it starts, which is where the prefix ends.
func engineLead(b []byte, at int, s *Record) int {
	if at < 2 || b[at-1] != ' ' || b[at-2] != ':' {
		return at
	}
	head := b[:at-2]
	// The engine index is the run of digits that ends head, preceded by "Engine ".
	d := len(head)
	for d > 0 && lex.IsDigit(head[d-1]) {
		d--
	}
	if _, ok := lex.Integer(head[d:]); ok && bytes.HasSuffix(head[:d], []byte("Engine ")) {
		e := d - len("Engine ")
		s.Rank = head[e:]
		return e
	}
	if bytes.HasSuffix(head, []byte(" Engines Aggregated")) {
		e := len(head) - len(" Engines Aggregated")
		for e > 0 && lex.IsDigit(head[e-1]) {
			e--
		}
		s.Rank = head[e:]
		return e
	}
	return at
}

func (p *Parser) drafterEvent(b []byte, s *Record) sample.Result {
	s.Kind, s.Event = sample.KindEvent, sample.EventDrafterInit
	r, _ := keyValues(b, s, p.opts.Aliases)
	return r
}

// generic handles key=value statistics. A line with '=' but no primary key is noise, or one of
// llama.cpp's summary lines when spaced (its first '=' is " = ", see famSpaced). b has a '=':
// classify calls generic only for the equals family.
func (p *Parser) generic(b []byte, spaced bool, s *Record) sample.Result {
	r, primary := keyValues(b, s, p.opts.Aliases)
	if !primary {
		s.Reset()
		if spaced {
			if r, ok := llamaSummary(b, s); ok {
				return r
			}
		}
		// A record's lead words with no field read ("Decode batch, running-req=1, …": renamed
		// fields, or garbage after the lead) are a damaged record, as they are without a '=':
		// malformed, not noise.
		if fam := leadFamily(b); fam != 0 {
			return p.classify(b, fam, s)
		}
		return sample.Ignored
	}
	if r == sample.Malformed {
		return r
	}
	if s.Kind == sample.KindNone {
		s.Kind = sample.KindDecode
	}
	at := firstKey(b)
	prefix(b[:at], s)
	if s.Engine == sample.EngineUnknown {
		s.Engine = sample.EngineGeneric
	}
	return sample.Matched
}

// firstKey finds where the first key=value token starts, the end of the prefix.
func firstKey(b []byte) int {
	j := bytes.IndexByte(b, '=')
	return j - len(lex.KeyBefore(b[:j]))
}
