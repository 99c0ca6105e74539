package testharness

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// FreeAddr returns a loopback address free now, for a server the test starts next. Its port is
// below the kernel's ephemeral range: a port from :0 is one that any process's next outgoing
// connection or :0 listener may take before the server binds it, and a CI run failed on that
// ("bind: address already in use"). Ports below the range are taken only on request; this
// process never hands one out twice, and other test processes draw theirs at random.
func FreeAddr(t testing.TB) string {
	t.Helper()
	lo := ephemeralLow()
	for range 200 {
		port := freeFloor + rand.IntN(lo-freeFloor)
		if !handOut(port) {
			continue
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if l, err := net.Listen("tcp", addr); err == nil {
			l.Close()
			return addr
		}
	}
	t.Fatalf("no free loopback port in %d-%d", freeFloor, lo-1)
	return ""
}

// freeFloor is the lowest port FreeAddr draws: above the well-known servers' (Prometheus 9090,
// Alertmanager 9093, VictoriaMetrics 8428, specwatch 9877).
const freeFloor = 20000

var (
	handedMu sync.Mutex
	handed   = map[int]bool{}
)

// handOut reserves port for this process; false if it was handed out before.
func handOut(port int) bool {
	handedMu.Lock()
	defer handedMu.Unlock()
	if handed[port] {
		return false
	}
	handed[port] = true
	return true
}

// ephemeralLow is the start of the kernel's ephemeral port range (32768 unless configured).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if lo, err := strconv.Atoi(f[0]); err == nil && lo > freeFloor+1000 {
				return lo
			}
		}
	}
	return 32768
}
