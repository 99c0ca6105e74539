package ingest

import "testing"

func TestRotatedBase(t *testing.T) {
	for in, want := range map[string]string{
		"engine.log":                      "engine.log",
		"engine.log.1":                    "engine.log",
		"/var/log/sglang/engine.log.2.gz": "/var/log/sglang/engine.log",
		"engine.log-20261120":             "engine.log",
		"engine.log-20261120.gz":          "engine.log",
		"engine.log-2026112013.zst":       "engine.log",
		"engine.log-2026-11-20":           "engine.log",
		"messages.1":                      "messages",
		"gpu01-sglang.log":                "gpu01-sglang.log",
		"server-0.7.0":                    "server-0.7.0", // a version, not a rotation
		"run.2026":                        "run.2026",
		"x.gz":                            "x",
		".gz":                             ".gz",
		"logs.1/engine.log":               "logs.1/engine.log",
		"a-12345678":                      "a-12345678", // not a date
	} {
		if got := RotatedBase(in); got != want {
			t.Errorf("RotatedBase(%q) = %q, want %q", in, got, want)
		}
	}
}
