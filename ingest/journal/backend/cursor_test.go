package backend

import (
	"strconv"
	"testing"
	"time"
)

func TestGapBetween(t *testing.T) {
	const id = "s=0123456789abcdef0123456789abcdef"
	cur := func(id string, seq, rt uint64) string {
		return id + ";i=" + strconv.FormatUint(seq, 16) + ";b=fedcba98765432100123456789abcdef;m=1a2b;t=" +
			strconv.FormatUint(rt, 16) + ";x=7f"
	}
	for _, c := range []struct {
		name, from, to string
		entries        int64
		span           time.Duration
	}{
		{"same journal", cur(id, 0x10, 1_000_000), cur(id, 0x20, 3_500_000), 15, 2500 * time.Millisecond},
		{"adjacent", cur(id, 0x10, 1), cur(id, 0x11, 2), 0, time.Microsecond},
		{"recreated journal", cur(id, 0x10, 1), cur("s=ffff", 0x2, 5), -1, 4 * time.Microsecond},
		{"clock stepped back", cur(id, 0x10, 9), cur(id, 0x12, 5), 1, 0},
		{"garbage", "garbage", cur(id, 0x12, 5), -1, 0},
		{"bad seqnum", "s=1;i=zz;t=1", cur("s=1", 0x12, 5), -1, 0},
	} {
		g := gapBetween(c.from, []byte(c.to))
		if g.entries != c.entries || g.span != c.span {
			t.Errorf("%s: gap %+v, want %d entries over %s", c.name, g, c.entries, c.span)
		}
	}
}
