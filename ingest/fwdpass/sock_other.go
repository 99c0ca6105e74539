//go:build !unix

package fwdpass

import (
	"context"
	"errors"
	"time"
)

// sock is unix-only: the engines that publish forward passes run on Linux.
type sock struct{}

var errUnsupported = errors.New("forward-pass metrics are read on unix systems only")

func dialSock(context.Context, string, string, time.Time) (*sock, error) { return nil, errUnsupported }
func (*sock) write(context.Context, []byte, time.Time) error             { return errUnsupported }
func (*sock) read(context.Context, []byte, time.Time) (int, error)       { return 0, errUnsupported }
func (*sock) readNow([]byte) (int, error)                                { return 0, errUnsupported }
func (*sock) close() error                                               { return nil }
