package pipeline

import (
	"bytes"
	"errors"
	"io"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/parse"
)

// unwrap returns what to parse of e's message (a --log-jsonl record's msg, else the message)
// and, when e has no time of its own, the line's since-start stamp in µs (the record's "time",
// else the stamp that starts the line; -1: none). Apply and SinceStartSpan both read a line's
// stamp through it, so that a file's span and its main pass count the same lines.
func unwrap(u *ingest.LlamaJSONL, e *ingest.Entry) ([]byte, int64, ingest.JSONLResult) {
	msg, since, r := e.Message, int64(-1), ingest.NotJSONL
	if len(msg) > 0 && msg[0] == '{' {
		msg, since, r = u.Unwrap(msg)
	}
	switch {
	case e.Time != 0:
		return msg, -1, r // the entry's time wins: its stamps are not needed
	case r == ingest.Unwrapped:
	case r == ingest.NotJSONL:
		if us, ok := parse.LeadSinceStart(msg); ok {
			since = us
		}
	}
	if since > parse.MaxSinceStart {
		since = -1
	}
	return msg, since, r
}

// resolve completes a matched sample's time and key from its entry: the entry's own time, else
// the line's stamps, a since-start one (which --log-jsonl gives outside the text) placed by the
// input's origin or by the line's arrival (the source's, else the pipeline's clock now: analyze
// reading standard input).
func (p *Pipeline) resolve(e *ingest.Entry, since int64, s *parse.Record) bool {
	if e.Time != 0 {
		return p.stream.Resolve(e.Time, e.Host, e.Unit, s)
	}
	if since >= 0 {
		s.Stamp.Offer(parse.SinceStartStamp(since))
	}
	arrival := e.Arrival
	if arrival == 0 && (s.Stamp.Prec == parse.PrecRelative || s.Stamp.Prec == parse.PrecNone && p.stream.SinceStart().Lines > 0) {
		arrival = p.now().UnixMicro()
	}
	return p.stream.ResolveArrived(0, arrival, e.Host, e.Unit, s)
}

// SinceStart says how the current input's since-start stamps were anchored so far.
func (p *Pipeline) SinceStart() parse.SinceStartStats { return p.stream.SinceStart() }

// SinceStartSpan reads r to its end the way Apply reads an input's since-start stamps
// (llama.cpp's "0.05.071.041", --log-jsonl's "time", on entries without a time of their own)
// and returns their clock: its Elapsed is the time from the engine's first start to the last
// line, restarts included. A file whose last line was written at its modification time M
// therefore began at M − Elapsed, which NewFileInput takes as its origin.
func SinceStartSpan(r Reader) (parse.Clock, error) {
	var (
		c parse.Clock
		e ingest.Entry
		u ingest.LlamaJSONL
	)
	for {
		if err := r.Next(&e); err != nil {
			if errors.Is(err, io.EOF) {
				return c, nil
			}
			return c, err
		}
		if _, since, _ := unwrap(&u, &e); since >= 0 {
			c.Add(since)
		}
	}
}

// HasSinceStart reports whether any line of chunk (a file's head or tail) carries a
// since-start stamp: analyze reads a whole file for its span only when one does.
func HasSinceStart(chunk []byte) bool {
	var u ingest.LlamaJSONL
	for len(chunk) > 0 {
		line := chunk
		if k := bytes.IndexByte(chunk, '\n'); k >= 0 {
			line, chunk = chunk[:k], chunk[k+1:]
		} else {
			chunk = nil
		}
		if _, since, _ := unwrap(&u, &ingest.Entry{Message: bytes.TrimSuffix(line, []byte("\r"))}); since >= 0 {
			return true
		}
	}
	return false
}
