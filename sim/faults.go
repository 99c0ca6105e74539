package sim

import (
	"fmt"
	"slices"
	"time"
)

// FaultKind is a failure specwatch should notice (or, for a drift, attribute).
type FaultKind uint8

// Fault kinds. Each maps onto one of DESIGN.md's anomaly kinds.
const (
	// StuckAtOne: the drafter contributes nothing, commit length exactly 1.00 (vLLM: Accepted: 0
	// with drafts). commit_len_stuck.
	StuckAtOne FaultKind = iota + 1
	// InconsistentDepth: commit length 1.00 while avg_accepted_depth reports Size (default 3.00), as
	// a broken custom build does. metrics_inconsistent.
	InconsistentDepth
	// AcceptanceDrift: commit length falls gradually by Size (a fraction) over Ramp. acceptance_drop.
	AcceptanceDrift
	// AcceptanceDrop: commit length falls by Size at once. acceptance_drop.
	AcceptanceDrop
	// StepSlowdown: steps take 1+Size times the model. step_time_regression.
	StepSlowdown
	// Collapse: wall time stretches so throughput is (1−Size) of what the steps allow, while the
	// GPU step time (step_ms, total_ms) stays normal: host stalls. throughput_collapse.
	Collapse
	// FormatChange: the engine's lines keep their marker but rename their fields
	// ("accept len:" becomes "acc. length ->"), so they no longer parse. format_drift.
	FormatChange
	// Silence: the series writes nothing while the process keeps running. stale.
	Silence
	numFaultKinds
)

var faultNames = [numFaultKinds]string{"", "stuck_at_one", "inconsistent_depth", "acceptance_drift",
	"acceptance_drop", "step_slowdown", "collapse", "format_change", "silence"}

func (k FaultKind) String() string {
	if k == 0 || k >= numFaultKinds {
		return fmt.Sprintf("FaultKind(%d)", int(k))
	}
	return faultNames[k]
}

// FaultSet is a set of fault kinds; a bit set so that a Truth record carries it without allocating.
type FaultSet uint16

// Has reports whether k is in the set.
func (s FaultSet) Has(k FaultKind) bool { return s&(1<<k) != 0 }

func (s FaultSet) String() string {
	out := ""
	for k := StuckAtOne; k < numFaultKinds; k++ {
		if s.Has(k) {
			if out != "" {
				out += ","
			}
			out += k.String()
		}
	}
	return out
}

// Fault is an injected failure. A line carries a fault's effects when its interval starts inside
// [Start, Start+Duration); that instant is also when the engine would have measured it.
type Fault struct {
	Kind  FaultKind
	Start time.Duration // offset from Scenario.Start
	// Duration of the episode; zero lasts until the end of the run.
	Duration time.Duration
	// Size is the fault's magnitude as a fraction (0.3 = 30 %); see each kind. For
	// InconsistentDepth it is the depth written (default 3).
	Size float64
	// Ramp is how long AcceptanceDrift takes to reach Size; zero selects Duration (or one hour
	// when Duration is zero too).
	Ramp time.Duration
	// Ranks limits the fault to these ranks of the service; empty means all.
	Ranks []string
}

func (f *Fault) active(off time.Duration) bool {
	return off >= f.Start && (f.Duration == 0 || off < f.Start+f.Duration)
}

func (f *Fault) validate() error {
	if f.Kind == 0 || f.Kind >= numFaultKinds {
		return fmt.Errorf("unknown fault kind %d", f.Kind)
	}
	if f.Start < 0 || f.Duration < 0 || f.Ramp < 0 {
		return fmt.Errorf("%v: negative time", f.Kind)
	}
	switch f.Kind {
	case AcceptanceDrift, AcceptanceDrop, Collapse:
		if f.Size <= 0 || f.Size >= 1 {
			return fmt.Errorf("%v: size %g outside (0, 1)", f.Kind, f.Size)
		}
	case StepSlowdown:
		if f.Size <= 0 {
			return fmt.Errorf("%v: size %g not positive", f.Kind, f.Size)
		}
	}
	return nil
}

// effects is what the active faults do to one interval of one rank.
type effects struct {
	set       FaultSet
	stuck     bool    // commit exactly 1
	depth     float64 // > 0: the accepted depth a broken build writes
	commitMul float64
	stepMul   float64
	wallMul   float64
	format    bool
	silent    bool
}

// faultsFor keeps the faults that apply to rank.
func faultsFor(fs []Fault, rank string) []Fault {
	var out []Fault
	for _, f := range fs {
		if len(f.Ranks) == 0 || slices.Contains(f.Ranks, rank) {
			out = append(out, f)
		}
	}
	return out
}

func effectsAt(fs []Fault, off time.Duration) effects {
	e := effects{commitMul: 1, stepMul: 1, wallMul: 1}
	for i := range fs {
		f := &fs[i]
		if !f.active(off) {
			continue
		}
		e.set |= 1 << f.Kind
		switch f.Kind {
		case StuckAtOne:
			e.stuck = true
		case InconsistentDepth:
			e.stuck = true
			e.depth = f.Size
			if e.depth <= 0 {
				e.depth = 3
			}
		case AcceptanceDrift:
			ramp := f.Ramp
			if ramp == 0 {
				ramp = f.Duration
			}
			if ramp == 0 {
				ramp = time.Hour
			}
			e.commitMul *= 1 - f.Size*min(1, float64(off-f.Start)/float64(ramp))
		case AcceptanceDrop:
			e.commitMul *= 1 - f.Size
		case StepSlowdown:
			e.stepMul *= 1 + f.Size
		case Collapse:
			e.wallMul /= 1 - f.Size
		case FormatChange:
			e.format = true
		case Silence:
			e.silent = true
		}
	}
	return e
}
