package vllmjoin

import (
	"testing"

	"github.com/specwatch/specwatch/sample"
)

// A spec line joins its own source's engine line once, within the window; the other source's
// spec line leaves it waiting.
func TestJoin(t *testing.T) {
	var p Pending
	p.Hold(Engine{T: 10e9, Running: 4, TPS: 200, HasTPS: true, Src: sample.SourceLog})
	if _, ok := p.Join(sample.SourceMetrics, 11e9); ok {
		t.Fatal("joined another source's engine line")
	}
	e, ok := p.Join(sample.SourceLog, 11e9)
	if !ok {
		t.Fatal("no join within the window")
	}
	if st, ok := e.Step(3); !ok || st != 3*4.0/200 {
		t.Errorf("step %v %v", st, ok)
	}
	if _, ok := p.Join(sample.SourceLog, 11e9); ok {
		t.Error("an engine line joined twice")
	}
	p.Hold(Engine{T: 10e9, Src: sample.SourceLog})
	if _, ok := p.Join(sample.SourceLog, 10e9+Window+1); ok {
		t.Error("joined past the window")
	}
	if _, ok := p.Take(); ok {
		t.Error("a late spec line left its engine line waiting")
	}
	if _, ok := (Engine{TPS: 0, HasTPS: true}).Step(2); ok {
		t.Error("a step from zero throughput")
	}
}
