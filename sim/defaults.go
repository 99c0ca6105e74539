package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/specwatch/specwatch/sim/enginelog"
)

// defaultStart is a fixed instant so that a zero Scenario is still reproducible.
var defaultStart = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// normalize returns a copy of s with defaults filled in, leaving the caller's slices untouched,
// and checks it.
func (s Scenario) normalize() (Scenario, error) {
	if s.Start.IsZero() {
		s.Start = defaultStart
	}
	if s.Duration <= 0 {
		return s, errors.New("sim: scenario duration must be positive")
	}
	if !s.Format.Valid() {
		return s, fmt.Errorf("sim: unknown format %d", s.Format)
	}
	if s.DecodeInterval == 0 {
		s.DecodeInterval = 40
	}
	if s.StatsInterval == 0 {
		s.StatsInterval = 10 * time.Second
	}
	if s.DecodeInterval < 1 || s.StatsInterval < time.Millisecond {
		return s, errors.New("sim: logging intervals must be positive")
	}
	if s.Noise < 0 || s.Noise > 0.95 {
		return s, fmt.Errorf("sim: noise fraction %g outside [0, 0.95]", s.Noise)
	}
	if len(s.Services) == 0 {
		return s, errors.New("sim: scenario has no services")
	}
	svcs := make([]Service, len(s.Services))
	for i, sv := range s.Services {
		if err := sv.normalize(s.Seed, i); err != nil {
			return s, fmt.Errorf("sim: service %d (%s): %w", i, sv.Unit, err)
		}
		svcs[i] = sv
	}
	s.Services = svcs
	return s, nil
}

func (sv *Service) normalize(seed uint64, idx int) error {
	switch sv.Engine {
	case SGLang, VLLM, LlamaCpp, Generic, TRTLLM:
	default:
		return fmt.Errorf("unknown engine %q", sv.Engine)
	}
	if e := sv.Style.Engine(); e != "" && e != sv.Engine {
		return fmt.Errorf("style %v is not a %s style", sv.Style, sv.Engine)
	}
	sv.Style = sv.Style.Resolve(sv.Engine)
	if sv.Host == "" {
		sv.Host = "gpu01"
	}
	if sv.Unit == "" {
		sv.Unit = string(sv.Engine) + ".service"
	}
	if sv.Compose == "" {
		sv.Compose = strings.TrimSuffix(sv.Unit, ".service")
	}
	if sv.Identifier == "" {
		sv.Identifier = map[Engine]string{SGLang: "python3", VLLM: "vllm", LlamaCpp: "llama-server",
			Generic: "python3", TRTLLM: "trtllm-serve"}[sv.Engine]
	}
	if sv.PID == 0 {
		sv.PID = 2000 + int((seed*2654435761+uint64(idx)*40503)%60000)
	}
	if len(sv.Ranks) == 0 {
		sv.Ranks = []string{map[Engine]string{SGLang: "TP0", VLLM: "Engine 000"}[sv.Engine]}
	}
	sv.Ranks = append([]string(nil), sv.Ranks...)
	for i, r := range sv.Ranks {
		if slices.Contains(sv.Ranks[:i], r) {
			return fmt.Errorf("rank %q twice: a series is one rank", r)
		}
	}
	untagged := sv.Prefix == PrefixPython || (sv.Prefix == PrefixBare && sv.Engine != VLLM) ||
		sv.Engine == LlamaCpp || sv.Engine == Generic
	if untagged && len(sv.Ranks) > 1 {
		return errors.New("lines of this engine and prefix name no rank: use one rank")
	}
	if err := enginelog.CheckTRTLLM(sv.Engine, sv.Ranks, sv.Policy.OnFrom != 0); err != nil {
		return err
	}
	if sv.Step.A < 0 || sv.Step.B < 0 || sv.Step.A+sv.Step.B <= 0 {
		return errors.New("step model needs A ≥ 0, B ≥ 0, not both zero")
	}
	if sv.Step.Noise == 0 {
		sv.Step.Noise = 0.03
	}
	if sv.KVTokens == 0 {
		sv.KVTokens = 500000
	}
	if err := sv.Workload.normalize(); err != nil {
		return err
	}
	maxDraft := enginelog.MaxDraft
	if sv.Engine == LlamaCpp {
		maxDraft = enginelog.MaxPositions
		if err := sv.LlamaCpp.normalize(); err != nil {
			return err
		}
	}
	if err := sv.Acceptance.normalize(maxDraft); err != nil {
		return err
	}
	sv.Faults = append([]Fault(nil), sv.Faults...)
	for i := range sv.Faults {
		if err := sv.Faults[i].validate(); err != nil {
			return err
		}
	}
	return nil
}

func (w *Workload) normalize() error {
	if w.Concurrency == 0 {
		w.Concurrency = 1
	}
	if w.PromptMin == 0 && w.PromptMax == 0 {
		w.PromptMin, w.PromptMax = 200, 8000
	}
	if w.OutputMin == 0 && w.OutputMax == 0 {
		w.OutputMin, w.OutputMax = 100, 2000
	}
	if w.MaxContext == 0 {
		w.MaxContext = 32768
	}
	if w.Concurrency < 1 || w.PromptMin < 1 || w.PromptMax < w.PromptMin || w.OutputMin < 1 ||
		w.OutputMax < w.OutputMin || w.ArrivalMean < 0 {
		return errors.New("workload: bad concurrency, lengths or arrival mean")
	}
	w.Shifts = append([]Shift(nil), w.Shifts...)
	w.Script = append([]Request(nil), w.Script...)
	for i := 1; i < len(w.Script); i++ {
		if w.Script[i].At < w.Script[i-1].At {
			return errors.New("workload: script out of time order")
		}
	}
	return nil
}

func (a *Acceptance) normalize(maxDraft int) error {
	if a.DraftLen < 0 || a.DraftLen > maxDraft {
		return fmt.Errorf("acceptance: draft length %d outside [0, %d]", a.DraftLen, maxDraft)
	}
	if len(a.Phases) == 0 {
		a.Phases = []Phase{{Name: "text", Mean: 3, Weight: 1}}
	}
	a.Phases = append([]Phase(nil), a.Phases...)
	for _, p := range a.Phases {
		if p.Mean < 1 || (p.To != 0 && p.To < 1) || p.Weight < 0 || p.Tokens < 0 {
			return fmt.Errorf("acceptance: phase %q: means must be ≥ 1", p.Name)
		}
	}
	if a.NoiseSD == 0 {
		a.NoiseSD = 0.15
	}
	return nil
}

// shiftAt returns the workload in force for a request arriving at off.
func (w *Workload) shiftAt(off time.Duration) Workload {
	out := *w
	for _, s := range w.Shifts {
		if s.At > off {
			continue
		}
		if s.ArrivalMean != 0 {
			out.ArrivalMean = s.ArrivalMean
		}
		if s.PromptMax != 0 {
			out.PromptMin, out.PromptMax = s.PromptMin, s.PromptMax
		}
		if s.OutputMax != 0 {
			out.OutputMin, out.OutputMax = s.OutputMin, s.OutputMax
		}
	}
	return out
}
