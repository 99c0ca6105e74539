package activity

import "testing"

// TestUnits: a source's last time is its latest arrival once one is recorded (its stamps no
// longer count), else its latest stamp; sources differ by host, unit and container; past Max,
// new sources are not remembered but known ones still move.
func TestUnits(t *testing.T) {
	u := Units{Max: 2}
	b := func(s string) []byte { return []byte(s) }
	u.Seen(b("gpu07"), b("docker.service"), b("vllm-1"), 100, 0)
	u.Seen(b("gpu07"), b("docker.service"), b("vllm-1"), 90, 0) // an older stamp moves nothing
	if got := u.Last("gpu07", "docker.service", "vllm-1"); got != 100 {
		t.Fatalf("last %d, want the latest stamp 100", got)
	}
	u.Seen(b("gpu07"), b("docker.service"), b("vllm-1"), 0, 50)
	u.Seen(b("gpu07"), b("docker.service"), b("vllm-1"), 500, 0)
	if got := u.Last("gpu07", "docker.service", "vllm-1"); got != 50 {
		t.Fatalf("last %d, want the arrival 50: once heard live, stamps do not count", got)
	}
	if got := u.Last("gpu07", "docker.service", "vllm-2"); got != 0 {
		t.Fatalf("another container: %d, want 0 (never seen)", got)
	}
	u.Seen(b("gpu08"), b("docker.service"), b("vllm-1"), 7, 0)
	u.Seen(b("gpu09"), b("docker.service"), b("vllm-1"), 8, 0) // past Max
	if u.Len() != 2 || u.Last("gpu09", "docker.service", "vllm-1") != 0 || u.Last("gpu08", "docker.service", "vllm-1") != 7 {
		t.Fatalf("%d sources; gpu09 %d, gpu08 %d", u.Len(), u.Last("gpu09", "docker.service", "vllm-1"), u.Last("gpu08", "docker.service", "vllm-1"))
	}
	u.Seen(b("gpu08"), b("docker.service"), b("vllm-1"), 9, 0)
	if u.Last("gpu08", "docker.service", "vllm-1") != 9 {
		t.Fatal("a known source stops moving past Max")
	}
}
