package daemon

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
)

// listenError says which address could not be bound, why, and which flag or config key
// changes it, in one line an operator can act on (net.Listen's error is three wraps deep).
// An error that is not the bind's (the web config file's) is returned as it is.
func listenError(addr string, err error) error {
	var op *net.OpError
	if !errors.As(err, &op) {
		return err
	}
	cause := op.Err
	var sc *os.SyscallError
	if errors.As(cause, &sc) {
		cause = sc.Err
	}
	hint := ""
	switch {
	case errors.Is(cause, syscall.EADDRINUSE):
		hint = "; pick another port or stop the process holding it"
	case errors.Is(cause, syscall.EACCES):
		hint = "; a port below 1024 needs CAP_NET_BIND_SERVICE: pick a higher one"
	case errors.Is(cause, syscall.EADDRNOTAVAIL):
		hint = "; the host is not an address of this machine"
	}
	return fmt.Errorf("cannot listen on %s (--web.listen-address, config listen): %w%s", addr, cause, hint)
}

// stateDirError names the flag and config key that choose the state directory.
func stateDirError(err error) error {
	return fmt.Errorf("%w (--state.directory, config state_dir)", err)
}
