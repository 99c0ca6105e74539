package parse

import "testing"

func TestLlamaCppTiming(t *testing.T) {
	var p Parser
	var s Sample
	line := []byte("slot print_timing: id  1 | task 0 | draft acceptance = 0.64479 (  167 accepted /   259 generated), mean acceptance length =  2.92, acceptance rate per position = (0.805, 0.632, 0.483)")
	if r := p.Parse(line, &s); r != Matched {
		t.Fatalf("result %v (%s)", r, s.Why)
	}
	if s.Engine != EngineLlamaCpp || s.Kind != KindSpec {
		t.Fatalf("engine %v kind %v", s.Engine, s.Kind)
	}
	if s.Value(Accepted) != 167 || s.Value(Drafted) != 259 || s.Value(Commit) != 2.92 || s.Value(AcceptRate) != 0.64479 {
		t.Fatalf("fields %v %v %v %v", s.Value(Accepted), s.Value(Drafted), s.Value(Commit), s.Value(AcceptRate))
	}
	if s.NPos != 3 || s.PerPos[0] != 0.805 || s.PerPos[2] != 0.483 {
		t.Fatalf("per position %v (%d)", s.PerPos[:s.NPos], s.NPos)
	}

	s.Reset()
	short := []byte("slot print_timing: id  0 | task 4827 | draft acceptance = 0.98444 (  886 accepted /   900 generated), mean len =  4.94")
	if r := p.Parse(short, &s); r != Matched || s.Value(Commit) != 4.94 || s.NPos != 0 {
		t.Fatalf("short form: %v %q commit %v", r, s.Why, s.Value(Commit))
	}

	for _, bad := range []string{
		"draft acceptance = 0.6 (  167 accepted /   259 generated), acceptance rate per position = (0.805, 1.5)",
		"draft acceptance = 0.6 (  167 accepted /   259 generated), mean len = 0.5",
		"draft acceptance = 0.6 (  167 accepted /   259 generated), acceptance rate per position = (0.805, 0.6",
	} {
		s.Reset()
		if r := p.Parse([]byte(bad), &s); r != Malformed {
			t.Errorf("%q: %v, want malformed", bad, r)
		}
	}
}
