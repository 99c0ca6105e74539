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

// Input is an opened log. Read it to io.EOF, then ask Damage whether all of it decoded.
type Input struct {
	r     io.Reader
	close func() error
	gz    *gzipReader // nil for plain input
}

func (in *Input) Read(p []byte) (int, error) { return in.r.Read(p) }

// Close closes the file (never standard input).
func (in *Input) Close() error { return in.close() }

// Damage says why a compressed input ended before its data did (a truncated member, corrupt
// data, a checksum mismatch, trailing garbage), naming the path; nil when it all decoded.
// What decoded before the damage was read, as `gzip -dc` writes it.
func (in *Input) Damage() error {
	if in.gz == nil {
		return nil
	}
	return in.gz.damage
}

// Open opens a log for reading: "-" is standard input (closing it leaves stdin open), and a
// gzip stream, named .gz or not (rotated logs often are not), is decompressed on the fly,
// concatenated members included. Errors name the path.
func Open(path string) (*Input, error) {
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
		return &Input{r: br, close: closeFile}, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		closeFile()
		return nil, fmt.Errorf("ingest: %s: gzip: %w", path, err)
	}
	zr.Multistream(false) // members one at a time: what follows the last one is looked at
	g := &gzipReader{zr: zr, src: br, path: path}
	return &Input{r: g, gz: g, close: func() error {
		if err := closeFile(); err != nil {
			return fmt.Errorf("ingest: closing %s: %w", path, err)
		}
		return nil
	}}, nil
}

var (
	gzipMagic = []byte{0x1f, 0x8b}
	errIsDir  = errors.New("is a directory")
)

// gzipReader decompresses member after member as gzip -dc does, and turns damage into the end
// of the input plus a Damage that names the path: one damaged rotated log must not lose the
// report of every other file. Trailing zero bytes (tape and block padding, which gzip -t
// accepts) end the input quietly.
type gzipReader struct {
	zr     *gzip.Reader
	src    *bufio.Reader
	path   string
	n      int64 // decompressed bytes so far
	done   bool
	damage error
}

func (g *gzipReader) Read(p []byte) (int, error) {
	for !g.done {
		n, err := g.zr.Read(p)
		g.n += int64(n)
		switch {
		case err == nil:
			return n, nil
		case err == io.EOF:
			g.nextMember()
		default:
			g.fail(err)
		}
		if n > 0 {
			return n, nil
		}
	}
	return 0, io.EOF
}

// nextMember starts the next member, or ends the input at the end of the file, at zero
// padding, or (as damage) at anything else.
func (g *gzipReader) nextMember() {
	magic, err := g.src.Peek(2)
	switch {
	case len(magic) == 0 && err == io.EOF:
		g.done = true
	case bytes.Equal(magic, gzipMagic):
		if err := g.zr.Reset(g.src); err != nil {
			g.fail(err)
			return
		}
		g.zr.Multistream(false)
	default:
		g.done = true
		if !onlyZeros(g.src) {
			g.damage = fmt.Errorf("%s: trailing garbage after the gzip data (%d bytes decompressed) ignored", g.path, g.n)
		}
	}
}

func (g *gzipReader) fail(err error) {
	g.done = true
	what := "corrupt gzip data"
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		what = "truncated gzip member"
	case errors.Is(err, gzip.ErrChecksum):
		what = "gzip checksum mismatch"
	}
	g.damage = fmt.Errorf("%s: %s after %d bytes decompressed (%w); read what decoded", g.path, what, g.n, err)
}

// onlyZeros reads r to its end and reports whether every byte was zero.
func onlyZeros(r io.Reader) bool {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		for _, b := range buf[:n] {
			if b != 0 {
				return false
			}
		}
		if err != nil {
			return err == io.EOF
		}
	}
}
