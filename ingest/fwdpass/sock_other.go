//go:build !linux

package fwdpass

import (
	"context"
	"errors"
	"time"
)

// sock is Linux-only (sock_unix.go uses its non-blocking socket flags): the engines that
// publish forward passes run on Linux, and the darwin build is for analyze.
type sock struct{}

var errUnsupported = errors.New("forward-pass metrics are read on Linux only")

func dialSock(context.Context, string, string, time.Time) (*sock, error) { return nil, errUnsupported }
func (*sock) write(context.Context, []byte, time.Time) error             { return errUnsupported }
func (*sock) read(context.Context, []byte, time.Time) (int, error)       { return 0, errUnsupported }
func (*sock) readNow([]byte) (int, error)                                { return 0, errUnsupported }
func (*sock) close() error                                               { return nil }
