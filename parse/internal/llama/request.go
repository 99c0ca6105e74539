package llama

// Request is one finished request as its lines state it.
type Request struct {
	Key        []byte // the server's key, as the caller gave it
	Slot, Task int
	HasID      bool  // the slot and task are known (older builds' bare lines name none)
	Time       int64 // its latest line's time, Unix ns (0: unknown)

	PromptN, PromptMs       float64 // HasPrompt: prompt tokens evaluated (cached ones not)
	G, EvalMs               float64 // HasEval: tokens generated, the first from the prompt pass
	Rate, Accepted, Drafted float64 // HasAccept: the request drafted
	Mean                    float64 // HasMean: 1 + accepted / drafting steps (informative)
	NTokens                 float64 // HasRelease: the slot's tokens when it ended
	Running                 int     // most requests in flight during its life; 0: unknown
	Pos                     [MaxPos]float64
	NPos                    int // the per-position list, when printed

	HasPrompt, HasEval, HasAccept, HasMean, HasRelease bool
}

// Figures are what a request says of its decode, means over its verify steps.
type Figures struct {
	// Steps is G − 1 − accepted: the first token comes from the prompt pass, and each verify
	// step commits its accepted drafts plus one token of the target's.
	Steps float64
	// Commit is (G − 1) / Steps = 1 + accepted / Steps: tokens committed per verify step,
	// 1 exactly for a request that never drafted.
	Commit float64
	// StepSeconds is the eval time over Steps.
	StepSeconds float64
	// GenTPS is G / eval seconds, the request's decode rate as its HTTP timings state it
	// (predicted_n / predicted_ms). 0.7.0's printed "tokens per second" is (G − 1) / eval s.
	GenTPS float64
	// Context is the mean context over the steps: the release's n_tokens (the whole prompt,
	// cached or not, and G − 1) less half of G − 1. Without a release line it is the prompt
	// tokens evaluated plus G / 2, short of the cached prefix (FromRelease false).
	Context                 float64
	HasContext, FromRelease bool
}

// Figures computes the request's figures; false when it made no verify step (one token, or
// more accepted than generated: nothing to say of a step).
func (r *Request) Figures() (f Figures, ok bool) {
	if !r.HasEval || r.G < 2 || !(r.EvalMs > 0) {
		return f, false
	}
	a := 0.0
	if r.HasAccept {
		a = r.Accepted
	}
	f.Steps = r.G - 1 - a
	if f.Steps < 1 {
		return f, false
	}
	f.Commit = (r.G - 1) / f.Steps
	if f.Commit > 1+MaxPos {
		return f, false
	}
	f.StepSeconds = r.EvalMs / 1000 / f.Steps
	f.GenTPS = r.G / (r.EvalMs / 1000)
	switch {
	case r.HasRelease && r.NTokens >= r.G-1:
		f.Context, f.HasContext, f.FromRelease = r.NTokens-(r.G-1)/2, true, true
	case r.HasPrompt:
		f.Context, f.HasContext = r.PromptN+r.G/2, true
	}
	return f, true
}
