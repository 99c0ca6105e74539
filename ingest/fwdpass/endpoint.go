package fwdpass

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// rankEndpoint is where DP rank r of an engine started with base publishes: the engines bind one
// PUB socket per DP rank, vLLM at tcp://*:<--forward-pass-metrics-port + rank>, SGLang at
// <--forward-pass-metrics-ipc-name>.<rank> (ipc://). A tcp:// base takes the port + rank, an
// ipc:// base the path + "." + rank. It returns the network and address to dial and the
// endpoint as shown in metrics and logs.
func rankEndpoint(base string, r int) (network, addr, shown string, err error) {
	scheme, rest, ok := strings.Cut(base, "://")
	switch {
	case !ok || rest == "":
		return "", "", "", fmt.Errorf("%q: want tcp://HOST:PORT or ipc://PATH", base)
	case scheme == "tcp":
		host, port, err := net.SplitHostPort(rest)
		if err != nil {
			return "", "", "", fmt.Errorf("%q: want tcp://HOST:PORT: %v", base, err)
		}
		if host == "" || host == "*" {
			return "", "", "", fmt.Errorf("%q: name the engine's host (127.0.0.1 for this machine), not the address it binds", base)
		}
		p, err := strconv.Atoi(port)
		if err != nil || p <= 0 || p+r > 65535 {
			return "", "", "", fmt.Errorf("%q: port %s + rank %d is not a port", base, port, r)
		}
		addr = net.JoinHostPort(host, strconv.Itoa(p+r))
		return "tcp", addr, "tcp://" + addr, nil
	case scheme == "ipc":
		path := rest + "." + strconv.Itoa(r)
		return "unix", path, "ipc://" + path, nil
	}
	return "", "", "", fmt.Errorf("%q: transport %s: want tcp:// or ipc://", base, scheme)
}

// loopback reports whether a dialled address is this machine: an ipc:// socket, localhost or a
// loopback IP.
func loopback(network, addr string) bool {
	if network == "unix" {
		return true
	}
	host, _, _ := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || ip != nil && ip.IsLoopback()
}

// CheckEndpoint reports what is wrong with rank r of an engine whose setting is base, if
// anything (config validates with it).
func CheckEndpoint(base string, r int) error {
	_, _, _, err := rankEndpoint(base, r)
	return err
}
