package parse

import "bytes"

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
func (p *Parser) Parse(line []byte, s *Sample) Result {
	s.Reset()
	if len(line) > MaxLine {
		line = line[:MaxLine]
	}
	fam := families(line)
	if fam == 0 {
		return p.rules(line, s)
	}
	if hasANSI(line) {
		p.scratch = stripANSI(p.scratch[:0], line)
		line = p.scratch
	}
	line = trimSpace(line)
	if r := p.classify(line, fam, s); r != Ignored || len(p.opts.Rules) == 0 {
		return r
	}
	s.Reset()
	return p.rules(line, s)
}

// rules tries the configured rules on a line the built-in parsers ignored.
func (p *Parser) rules(line []byte, s *Sample) Result {
	for i := range p.opts.Rules {
		if r := p.opts.Rules[i].apply(line, s); r != Ignored {
			return r
		}
		s.Reset()
	}
	return Ignored
}

// Families of markers, found by the first look at a line.
const (
	famBatch   uint8 = 1 << iota // "#running-req:", "#new-seq:", "#seq:"
	famMetrics                   // "SpecDecoding metrics:", "Speculative metrics:"
	famEngine                    // "Avg prompt throughput:"
	famRetract                   // "#retracted_reqs:"
	famEquals                    // key=value statistics, llama.cpp, DFLASH/DDTree
)

// families is the cheap first look that lets noise through at memory speed. Every record
// specwatch reads has a '=' (key=value statistics, llama.cpp, DFLASH) or a colon right after
// one of a few words; a noise line costs one vectorised byte search per colon it holds. The
// families found also spare classify the markers that cannot be there.
func families(b []byte) uint8 {
	var fam uint8
	if bytes.IndexByte(b, '=') >= 0 {
		fam = famEquals
	}
	for i := 0; ; i++ {
		j := bytes.IndexByte(b[i:], ':')
		if j < 0 {
			break
		}
		i += j
		if f := colonFamily(b[:i]); f != 0 {
			fam |= f
			break // one marker per record; classify looks for the rest
		}
	}
	if fam == 0 {
		fam = leadFamily(b)
	}
	return fam
}

// leadFamily finds a marker word where engines put it, at the start of the message: at the
// line's start or right after a ']' (SGLang's and vLLM's prefixes end with one). It catches
// records whose fields were renamed by a new engine version, so that they are counted as
// malformed (format_drift's signal) rather than ignored as noise, at the cost of a byte search
// per ']' instead of a substring search over the whole line.
func leadFamily(b []byte) uint8 {
	at := 0
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
	}
	return 0
}

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
	}
	return 0
}

type marker struct {
	text   string
	fam    uint8
	engine Engine // when no prefix names one
	body   func(p *Parser, b []byte, s *Sample) Result
}

// markers are tried in order; the first found decides the line's shape, and everything before
// it is prefix.
var markers = [...]marker{
	{"Decode batch", famBatch, EngineSGLang, func(_ *Parser, b []byte, s *Sample) Result { return sglangDecode(b, s) }},
	{"SpecDecoding metrics:", famMetrics, EngineVLLM, func(_ *Parser, b []byte, s *Sample) Result {
		return vllmSpec(b[len("SpecDecoding metrics:"):], s)
	}},
	{"Avg prompt throughput:", famEngine, EngineVLLM, func(_ *Parser, b []byte, s *Sample) Result { return vllmEngine(b, s) }},
	{"Speculative metrics:", famMetrics, EngineVLLM, func(_ *Parser, b []byte, s *Sample) Result {
		return vllmSpecV0(b[len("Speculative metrics:"):], s)
	}},
	{"Prefill batch", famBatch, EngineSGLang, func(_ *Parser, b []byte, s *Sample) Result {
		return sglangPrefill(b, len("Prefill batch"), ',', s)
	}},
	{"new fill batch", famBatch, EngineSGLang, func(_ *Parser, b []byte, s *Sample) Result {
		return sglangPrefill(b, len("new fill batch"), '.', s)
	}},
	{"#retracted_reqs:", famRetract, EngineSGLang, func(_ *Parser, b []byte, s *Sample) Result { return sglangRetract(b, s) }},
	{"draft acceptance rate = ", famEquals, EngineLlamaCpp, func(_ *Parser, b []byte, s *Sample) Result { return llamaCpp(b, s) }},
	{"Initialized DFLASH draft runner", famEquals, EngineSGLang, (*Parser).drafterEvent},
	{"Initialized DDTree worker", famEquals, EngineSGLang, (*Parser).drafterEvent},
	{"DFLASH verify completed", famEquals, EngineSGLang, func(_ *Parser, b []byte, s *Sample) Result {
		s.Kind, s.Event = KindEvent, EventVerifyDone
		return Matched
	}},
}

func (p *Parser) classify(b []byte, fam uint8, s *Sample) Result {
	for i := range markers {
		m := &markers[i]
		if m.fam&fam == 0 {
			continue
		}
		at := bytes.Index(b, []byte(m.text))
		if at < 0 {
			continue
		}
		prefix(b[:engineLead(b, at, s)], s)
		if s.Engine == EngineUnknown {
			s.Engine = m.engine
		}
		return m.body(p, b[at:], s)
	}
	if fam&famEquals == 0 {
		return Ignored
	}
	return p.generic(b, s)
}

// engineLead finds vLLM's "Engine 000: " or "2 Engines Aggregated: " before the marker at,
// records it as the rank and returns where it starts, which is where the prefix ends.
func engineLead(b []byte, at int, s *Sample) int {
	if at < 2 || b[at-1] != ' ' || b[at-2] != ':' {
		return at
	}
	head := b[:at-2]
	if e := bytes.LastIndex(head, []byte("Engine ")); e >= 0 {
		if _, ok := integer(head[e+len("Engine "):]); ok {
			s.Rank = head[e:]
			return e
		}
	}
	if bytes.HasSuffix(head, []byte(" Engines Aggregated")) {
		e := len(head) - len(" Engines Aggregated")
		for e > 0 && isDigit(head[e-1]) {
			e--
		}
		s.Rank = head[e:]
		return e
	}
	return at
}

func (p *Parser) drafterEvent(b []byte, s *Sample) Result {
	s.Kind, s.Event = KindEvent, EventDrafterInit
	r, _ := keyValues(b, s, p.opts.Aliases)
	return r
}

// generic handles key=value statistics. A line with '=' but no primary key is noise.
func (p *Parser) generic(b []byte, s *Sample) Result {
	if bytes.IndexByte(b, '=') < 0 {
		return Ignored
	}
	r, primary := keyValues(b, s, p.opts.Aliases)
	if !primary {
		s.Reset()
		// A record's lead words with no field read ("Decode batch, running-req=1, …": renamed
		// fields, or garbage after the lead) are a damaged record, as they are without a '=':
		// malformed, not noise.
		if fam := leadFamily(b); fam != 0 {
			return p.classify(b, fam, s)
		}
		return Ignored
	}
	if r == Malformed {
		return r
	}
	if s.Kind == KindNone {
		s.Kind = KindDecode
	}
	at := firstKey(b)
	prefix(b[:at], s)
	if s.Engine == EngineUnknown {
		s.Engine = EngineGeneric
	}
	return Matched
}

// firstKey finds where the first key=value token starts, the end of the prefix.
func firstKey(b []byte) int {
	j := bytes.IndexByte(b, '=')
	for j > 0 && isKeyByte(b[j-1]) {
		j--
	}
	return j
}
