package scrape

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/specwatch/specwatch/sample"
)

// MaxRanks bounds the ranks one target may expose: a hostile or broken endpoint that invents
// label values cannot grow the model past it (the rest are dropped and counted).
const MaxRanks = 64

// rankKey identifies one engine rank within a target.
type rankKey struct {
	engine sample.Engine
	rank   string
}

// reading is what one scrape said about one rank: the values of the slots it carried.
type reading struct {
	has    uint32 // bit per slot
	vals   [numSlots]float64
	perPos [sample.MaxPerPosition]float64
	nPos   int    // positions 0..nPos-1 were seen
	posSet uint64 // bit per position seen
	posBad bool   // a position past the bound, or seen twice
	// The drafted tokens per position (slotDraftPerPos), checked as perPos is.
	dPos    [sample.MaxPerPosition]float64
	dNPos   int
	dPosSet uint64
	dPosBad bool
}

// The position bits fit the bound.
var _ [64 - sample.MaxPerPosition]struct{}

func (r *reading) set(s slot, v float64) { r.has |= 1 << s; r.vals[s] = v }

func (r *reading) get(s slot) (float64, bool) { return r.vals[s], r.has&(1<<s) != 0 }

// Readings is one scrape's decoded content, reused across scrapes of a target.
type Readings struct {
	ranks   map[rankKey]*reading
	Dropped int // ranks past MaxRanks, values that were not finite or negative counters
	// Draft is the samples of SGLang's drafter (engine_type="draft") left out: the drafter is
	// no engine of its own, and its labels name the same ranks as the target's.
	Draft int
	// SGLang is the deployment's parallel sizes where the target states them: they name the
	// ranks as the log prefix does when the exposition cannot tell (only attention-TP rank 0
	// exports, so one tp_rank is seen where the prefix says TP0). Kept across scrapes.
	SGLang Sizes
	text   bytes.Buffer // the lines of the families read, as text (filterExposition)
}

// Sizes are an SGLang deployment's pipeline, tensor and expert parallel sizes (0: not stated,
// taken from the ranks the exposition holds).
type Sizes struct{ PP, TP, EP int }

// reset empties r for the next scrape, keeping its allocations.
func (r *Readings) reset() {
	if r.ranks == nil {
		r.ranks = map[rankKey]*reading{}
	}
	for k := range r.ranks {
		delete(r.ranks, k)
	}
	r.Dropped, r.Draft = 0, 0
}

// Len is the number of ranks read.
func (r *Readings) Len() int { return len(r.ranks) }

// ErrFormat marks a body that is not a metrics exposition specwatch can read.
var ErrFormat = errors.New("not a Prometheus exposition")

// Decode parses one exposition body into r (emptied first). contentType picks the format as
// the Content-Type header names it: OpenMetrics 1.0, the Prometheus text format (also when
// the header is missing or unknown); only the lines of families specwatch reads are parsed,
// OpenMetrics rewritten as text on the way (filterExposition). Families specwatch does not know, and
// _created series, are skipped. Decode does no I/O and keeps no reference to body.
func Decode(body []byte, contentType string, r *Readings) error {
	r.reset()
	om := formatOf(contentType).FormatType() == expfmt.TypeOpenMetrics
	if err := filterExposition(body, om, &r.text); err != nil {
		return fmt.Errorf("%w: %w", ErrFormat, err)
	}
	dec := expfmt.NewDecoder(bytes.NewReader(r.text.Bytes()), expfmt.NewFormat(expfmt.TypeTextPlain))
	var mf dto.MetricFamily
	for {
		mf.Reset()
		err := dec.Decode(&mf)
		if errors.Is(err, io.EOF) {
			r.sglangRanks()
			r.checkPositions()
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrFormat, err)
		}
		m, ok := lookup(mf.GetName())
		if !ok || staleMeaning(m, mf.GetHelp()) {
			continue
		}
		for _, mt := range mf.GetMetric() {
			r.add(m, mt)
		}
	}
}

// formatOf maps a Content-Type to the decoder's format; text is the fallback, as Prometheus
// itself does for a missing header.
func formatOf(contentType string) expfmt.Format {
	if contentType == "" {
		return expfmt.NewFormat(expfmt.TypeTextPlain)
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return expfmt.NewFormat(expfmt.TypeTextPlain)
	}
	switch mt {
	case expfmt.OpenMetricsType:
		return expfmt.NewFormat(expfmt.TypeOpenMetrics)
	}
	// Protobuf is not asked for and not decoded: expfmt reads it with no size limit, so a
	// ten-byte body announcing an enormous message would make it allocate that much.
	return expfmt.NewFormat(expfmt.TypeTextPlain)
}

// add records one sample of a known family.
func (r *Readings) add(m metric, mt *dto.Metric) {
	labels := mt.GetLabel()
	get := func(name string) string {
		for _, l := range labels {
			if l.GetName() == name {
				return l.GetValue()
			}
		}
		return ""
	}
	v, ok := value(mt)
	if !ok || (m.slot.isCounter() && v < 0) {
		r.Dropped++
		return
	}
	if m.engine == sample.EngineSGLang && get("engine_type") == "draft" {
		r.Draft++
		return
	}
	if m.slot == slotSpecTokens { // an info gauge: the figure is a label, the value is 1
		n, err := strconv.ParseFloat(get("max_draft_len"), 64)
		if err != nil || n < 0 || n > 1024 {
			return // no draft length among the labels: nothing to read
		}
		v = n
	}
	k := rankKey{m.engine, rankOf(m.engine, get)}
	rd := r.ranks[k]
	if rd == nil {
		if len(r.ranks) >= MaxRanks {
			r.Dropped++
			return
		}
		rd = new(reading)
		r.ranks[k] = rd
	}
	if m.slot != slotPerPos && m.slot != slotDraftPerPos {
		rd.set(m.slot, v)
		return
	}
	label := get("position")
	if m.engine == sample.EngineTRTLLM {
		label = get("token_position")
	}
	vals, n, set, bad := &rd.perPos, &rd.nPos, &rd.posSet, &rd.posBad
	if m.slot == slotDraftPerPos {
		vals, n, set, bad = &rd.dPos, &rd.dNPos, &rd.dPosSet, &rd.dPosBad
	}
	pos, err := strconv.Atoi(label)
	if err != nil || pos < 0 || pos >= sample.MaxPerPosition || *set&(1<<pos) != 0 {
		*bad = true
		return
	}
	rd.has |= 1 << m.slot
	vals[pos] = v
	*set |= 1 << pos
	*n = max(*n, pos+1)
}

// staleMeaning reports a family whose meaning changed under the same name, in a version that
// still means the old thing: SGLang's spec_accept_rate was (accepted + one per verify step) /
// verify width until it became accepted drafts / proposed drafts (sglang pull request 11572);
// the HELP text tells the two apart, and the old figure is not the accept rate.
func staleMeaning(m metric, help string) bool {
	return m.engine == sample.EngineSGLang && m.slot == slotAcceptRate && help != "" &&
		!strings.Contains(help, "proposed drafts")
}

// checkPositions drops a rank's per-position list unless it is whole: positions 0 .. n−1 once
// each, none past parse.MaxPerPosition. A cut list would name a shorter draft than the one
// configured, and a gap would read as a position that accepts nothing.
func (r *Readings) checkPositions() {
	for k, rd := range r.ranks {
		if k.engine == sample.EngineTRTLLM && !rd.posBad && !rd.dPosBad && rd.dPosSet == 1<<rd.dNPos-1 &&
			rd.posSet&^(1<<rd.dNPos-1) == 0 {
			// TensorRT-LLM creates a position's accepted counter at its first accepted token:
			// a drafted position without one has accepted none.
			rd.posSet, rd.nPos = 1<<rd.dNPos-1, rd.dNPos
			rd.has |= 1 << slotPerPos
		}
		if rd.posBad || rd.posSet != 1<<rd.nPos-1 {
			r.Dropped++
			rd.has &^= 1 << slotPerPos
			rd.perPos, rd.nPos = [sample.MaxPerPosition]float64{}, 0
		}
		if rd.dPosBad || rd.dPosSet != 1<<rd.dNPos-1 {
			r.Dropped++
			rd.has &^= 1 << slotDraftPerPos
			rd.dPos, rd.dNPos = [sample.MaxPerPosition]float64{}, 0
		}
	}
}

// value is a counter's, gauge's or untyped sample's value, if finite.
func value(mt *dto.Metric) (float64, bool) {
	var v float64
	switch {
	case mt.Counter != nil:
		v = mt.Counter.GetValue()
	case mt.Gauge != nil:
		v = mt.Gauge.GetValue()
	case mt.Untyped != nil:
		v = mt.Untyped.GetValue()
	default:
		return 0, false
	}
	return v, !math.IsNaN(v) && !math.IsInf(v, 0)
}
