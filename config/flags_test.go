package config

import (
	"errors"
	"testing"

	"github.com/specwatch/specwatch/ingest"
)

// TestInputLabels: --label KEY=VALUE names every input, KEY=VALUE:FILE one of them; a value may
// hold ':' where what follows is no input; unknown keys and empty values are refused naming
// the flag.
func TestInputLabels(t *testing.T) {
	files := []string{"gpu01.log", "gpu02.log"}
	got, err := inputLabels([]string{"host=gpu02:gpu02.log", "unit=sglang:main", "host=gpu01:gpu01.log", "namespace=ml"}, files)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]ingest.Identity{"": {Unit: "sglang:main", Namespace: "ml"}, "gpu01.log": {Host: "gpu01"}, "gpu02.log": {Host: "gpu02"}}
	if len(got) != len(want) {
		t.Fatalf("labels %+v, want %+v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("labels[%q] = %+v, want %+v", k, got[k], v)
		}
	}
	for _, bad := range []string{"host", "host=", "rank=TP0", "host=:gpu01.log"} {
		if _, err := inputLabels([]string{bad}, files); !errors.Is(err, ErrFlag) {
			t.Errorf("--label %q: %v, want a flag error", bad, err)
		}
	}
}
