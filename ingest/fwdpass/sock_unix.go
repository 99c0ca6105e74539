//go:build linux

package fwdpass

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// sock is a connected stream socket that Go's network poller never sees: a descriptor it
// watches wakes the runtime at every packet that arrives (800 a second here), though nothing
// reads until the next poll. The connection reads it when polled, without waiting (readNow), and
// waits only during the handshake, in slices that notice ctx's end.
type sock struct{ fd int }

// slice bounds one wait, so that a dial or handshake in progress sees ctx end soon.
const slice = 100 * time.Millisecond

func dialSock(ctx context.Context, network, addr string, deadline time.Time) (*sock, error) {
	var domain int
	var sa unix.Sockaddr
	switch network {
	case "unix":
		domain, sa = unix.AF_UNIX, &unix.SockaddrUnix{Name: addr}
	case "tcp":
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			return nil, err
		}
		if ip4 := a.IP.To4(); ip4 != nil {
			s := &unix.SockaddrInet4{Port: a.Port}
			copy(s.Addr[:], ip4)
			domain, sa = unix.AF_INET, s
		} else {
			s := &unix.SockaddrInet6{Port: a.Port}
			copy(s.Addr[:], a.IP.To16())
			domain, sa = unix.AF_INET6, s
		}
	default:
		return nil, fmt.Errorf("network %s", network)
	}
	fd, err := unix.Socket(domain, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	s := &sock{fd: fd}
	err = unix.Connect(fd, sa)
	if errors.Is(err, unix.EINPROGRESS) {
		if err = s.wait(ctx, unix.POLLOUT, deadline); err == nil {
			var e int
			if e, err = unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR); err == nil && e != 0 {
				err = unix.Errno(e)
			}
		}
	}
	if err != nil {
		s.close()
		return nil, fmt.Errorf("connect %s: %w", addr, err)
	}
	return s, nil
}

// wait blocks until the socket is ready for events, the deadline passes or ctx ends.
func (s *sock) wait(ctx context.Context, events int16, deadline time.Time) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return errTimeout
		}
		fds := []unix.PollFd{{Fd: int32(s.fd), Events: events}}
		n, err := unix.Poll(fds, int(min(left, slice).Milliseconds())+1)
		switch {
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return err
		case n > 0:
			return nil
		}
	}
}

var errTimeout = errors.New("timed out")

// write writes all of b, waiting for room until the deadline.
func (s *sock) write(ctx context.Context, b []byte, deadline time.Time) error {
	for len(b) > 0 {
		n, err := unix.Write(s.fd, b)
		switch {
		case errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR):
			if err := s.wait(ctx, unix.POLLOUT, deadline); err != nil {
				return err
			}
		case err != nil:
			return err
		default:
			b = b[n:]
		}
	}
	return nil
}

// read reads some bytes into b, waiting for them until the deadline.
func (s *sock) read(ctx context.Context, b []byte, deadline time.Time) (int, error) {
	for {
		n, err := s.readNow(b)
		if n > 0 || err != nil {
			return n, err
		}
		if err := s.wait(ctx, unix.POLLIN, deadline); err != nil {
			return 0, err
		}
	}
}

// readNow reads what the socket holds into b without waiting: 0 and no error when it holds
// nothing; errClosed at the publisher's end of the connection.
func (s *sock) readNow(b []byte) (int, error) {
	for {
		n, err := unix.Read(s.fd, b)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN):
			return 0, nil
		case err != nil:
			return 0, err
		case n == 0 && len(b) > 0:
			return 0, errClosed
		}
		return n, nil
	}
}

func (s *sock) close() error { return unix.Close(s.fd) }
