package sample

import "testing"

// TestFieldsAbsentNotZero: a field is absent until set, a second Set of one field is reported
// (two records glued), and ClearFields drops values as well as presence.
func TestFieldsAbsentNotZero(t *testing.T) {
	var s Sample
	if _, ok := s.Get(Running); ok || s.Has(Running) {
		t.Fatal("an unset field is present")
	}
	if dup := s.Set(Running, 0); dup || !s.Has(Running) {
		t.Fatalf("Set(Running, 0): dup %v, has %v", dup, s.Has(Running))
	}
	if dup := s.Set(Running, 3); !dup {
		t.Error("a second Set of one field is not reported")
	}
	s.Set(Commit, 2.5)
	if v, ok := s.Get(Commit); !ok || v != 2.5 || s.Fields() != 1<<Running|1<<Commit {
		t.Errorf("Get(Commit) = %v %v, fields %b", v, ok, s.Fields())
	}
	s.Kind, s.Time = KindDecode, 7
	s.ClearFields()
	if s.Fields() != 0 || s.Value(Commit) != 0 || s.Value(Running) != 0 || s.Kind != KindDecode || s.Time != 7 {
		t.Errorf("after ClearFields: %+v", s)
	}
}

// TestNames: every field, kind, engine and event has a name, and field names read back (the
// config's aliases name fields this way).
func TestNames(t *testing.T) {
	names := FieldNames()
	if len(names) != NumFields {
		t.Fatalf("%d field names for %d fields", len(names), NumFields)
	}
	for i, n := range names {
		if f, ok := FieldByName(n); !ok || int(f) != i || f.String() != n {
			t.Errorf("field %d %q reads back as %v %v", i, n, f, ok)
		}
	}
	names[0] = "changed"
	if Field(0).String() == "changed" {
		t.Error("FieldNames hands out the table itself")
	}
	if _, ok := FieldByName("nonsense"); ok {
		t.Error("an unknown name is a field")
	}
	for _, s := range []interface{ String() string }{KindEvent, EngineTRTLLM, EventStatsDelta, SourceMetrics, Malformed} {
		if s.String() == "" || s.String() == "unknown" || s.String() == "none" {
			t.Errorf("%#v has no name", s)
		}
	}
	if Kind(200).String() != "none" || Engine(200).String() != "unknown" || Field(200).String() != "unknown" {
		t.Error("an out-of-range value is named")
	}
}
