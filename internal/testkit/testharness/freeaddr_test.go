package testharness

import (
	"net"
	"strconv"
	"testing"
)

// TestFreeAddr: addresses are loopback, below the ephemeral range, never the same twice, and
// free: a server can bind each.
func TestFreeAddr(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		addr := FreeAddr(t)
		host, p, err := net.SplitHostPort(addr)
		port, _ := strconv.Atoi(p)
		if err != nil || host != "127.0.0.1" || port < freeFloor || port >= ephemeralLow() || seen[addr] {
			t.Fatalf("FreeAddr %q: want a new 127.0.0.1 port in %d-%d", addr, freeFloor, ephemeralLow()-1)
		}
		seen[addr] = true
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("%s handed out, then: %v", addr, err)
		}
		l.Close()
	}
}
