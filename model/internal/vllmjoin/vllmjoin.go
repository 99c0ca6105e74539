// Package vllmjoin pairs a vLLM engine line with the SpecDecoding line vLLM prints right after
// it: only together do they give a step (commit × running / throughput).
package vllmjoin

import "github.com/specwatch/specwatch/sample"

// Engine is an engine line's figures.
type Engine struct {
	T                   int64 // Unix ns
	Running, TPS, KVPct float64
	HasTPS, HasKV       bool          // v0.7.0's engine line has no KV usage: no context then
	Src                 sample.Source // a spec line joins only an engine line of its own source
}

// Window bounds how far apart an engine line and its SpecDecoding line may be.
const Window = 5e9 // ns

// Step is the step time of a decode that committed commit tokens per request, if the line
// gave a positive throughput.
func (e Engine) Step(commit float64) (float64, bool) {
	if !e.HasTPS || e.TPS <= 0 {
		return 0, false
	}
	return commit * e.Running / e.TPS, true
}

// Pending holds the engine line waiting for its spec line; the zero value holds none.
type Pending struct {
	e  Engine
	ok bool
}

// Hold makes e the line waiting.
func (p *Pending) Hold(e Engine) { p.e, p.ok = e, true }

// Take returns the line waiting, if any, and forgets it (its spec line never came).
func (p *Pending) Take() (Engine, bool) {
	e, ok := p.e, p.ok
	p.ok = false
	return e, ok
}

// Join returns the line a spec line of src at t completes, if it is within Window before it.
// The line waiting is spent unless it is the other source's, which waits for its own.
func (p *Pending) Join(src sample.Source, t int64) (Engine, bool) {
	if p.e.Src != src {
		return p.e, false
	}
	e, ok := p.Take()
	return e, ok && t-e.T <= Window && t >= e.T
}
