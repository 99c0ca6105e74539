package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// Open opens a log for reading: "-" is standard input (closing it leaves stdin open), and a
// gzip stream, named .gz or not (rotated logs often are not), is decompressed on the fly,
// concatenated members included. Errors name the path.
func Open(path string) (io.ReadCloser, error) {
	var f *os.File
	if path == "-" {
		f = os.Stdin
	} else {
		var err error
		if f, err = os.Open(path); err != nil {
			return nil, fmt.Errorf("ingest: %w", err) // *PathError names the path
		}
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			f.Close()
			return nil, fmt.Errorf("ingest: open %s: %w", path, errIsDir)
		}
	}
	closeFile := f.Close
	if f == os.Stdin {
		closeFile = func() error { return nil }
	}
	br := bufio.NewReaderSize(f, 64<<10)
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF {
		closeFile()
		return nil, fmt.Errorf("ingest: reading %s: %w", path, err)
	}
	if !bytes.Equal(magic, gzipMagic) {
		return &readCloser{Reader: br, close: closeFile}, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		closeFile()
		return nil, fmt.Errorf("ingest: %s: gzip: %w", path, err)
	}
	return &readCloser{Reader: &gzipReader{zr: zr, path: path}, close: func() error {
		zerr := zr.Close()
		if err := closeFile(); err != nil {
			return fmt.Errorf("ingest: closing %s: %w", path, err)
		}
		return zerr
	}}, nil
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	errIsDir  = errors.New("is a directory")
)

type readCloser struct {
	io.Reader
	close func() error
}

func (rc *readCloser) Close() error { return rc.close() }

// gzipReader names the path in decompression errors, which otherwise say only "gzip: invalid
// checksum" and leave the operator guessing which of many files is damaged.
type gzipReader struct {
	zr   *gzip.Reader
	path string
}

func (g *gzipReader) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("decompressing %s: %w", g.path, err)
	}
	return n, err
}
