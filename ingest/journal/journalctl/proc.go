//go:build linux

package journalctl

import (
	"io"
	"os/exec"
	"sync"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/internal/deathsig"
)

// ctlProc is one journalctl process and the goroutine that parses its output into batches.
//
// The goroutine exists so that Next can wait with a timeout: it blocks in read(2) on the pipe
// and hands over complete entries through a bounded channel, which Next selects on with a
// timer. Entries travel in batches (up to ctlBatchEntries or ctlBatchBytes) recycled through
// a free list, so the steady state allocates nothing; a batch is handed over as soon as the
// parser has no complete data left, so a quiet journal is not held back waiting to fill one.
type ctlProc struct {
	cmd    *exec.Cmd
	stderr *tailWriter
	full   chan *ctlBatch // parsed batches, in order; the last one carries the stream's end
	free   chan *ctlBatch
	done   chan struct{} // closed to stop the parser early
	exited chan struct{} // closed when the parser has returned
}

const (
	ctlBatches       = 4
	ctlBatchEntries  = 256
	ctlBatchBytes    = 256 << 10
	ctlStderrKept    = 2 << 10
	ctlExportOptions = "--output-fields=MESSAGE,_HOSTNAME,_SYSTEMD_UNIT,SYSLOG_IDENTIFIER,CONTAINER_NAME,CONTAINER_ID"
)

// ctlBatch holds entries copied out of the Reader; rec offsets point into data.
type ctlBatch struct {
	data []byte
	recs []ctlRec
	err  error // set on the final batch: why the output ended (io.EOF when journalctl exited)
	bad  int64 // the Reader's Bad count after this batch
}

type ctlRec struct {
	time int64
	end  [5]int // ends in data of Message, Host, Unit, Container, Cursor, which follow each other
}

func (b *ctlBatch) add(e *ingest.Entry) {
	var r ctlRec
	r.time = e.Time
	for i, f := range [5][]byte{e.Message, e.Host, e.Unit, e.Container, e.Cursor} {
		b.data = append(b.data, f...)
		r.end[i] = len(b.data)
	}
	b.recs = append(b.recs, r)
}

// entry fills e with record i; its slices point into b.data.
func (b *ctlBatch) entry(i int, e *ingest.Entry) {
	r := &b.recs[i]
	start := 0
	if i > 0 {
		start = b.recs[i-1].end[4]
	}
	var f [5][]byte
	for k, end := range r.end {
		f[k] = b.data[start:end:end]
		start = end
	}
	*e = ingest.Entry{Time: r.time, Message: f[0], Host: f[1], Unit: f[2], Container: f[3], Cursor: f[4]}
}

// startCtl starts journalctl and its parser.
func startCtl(path string, args []string) (*ctlProc, error) {
	cmd := exec.Command(path, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p := &ctlProc{cmd: cmd, stderr: &tailWriter{max: ctlStderrKept},
		full: make(chan *ctlBatch, ctlBatches), free: make(chan *ctlBatch, ctlBatches),
		done: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	// Die with specwatch: an orphaned journalctl --follow would linger until its next write.
	if err := deathsig.Start(cmd); err != nil {
		return nil, err
	}
	for range ctlBatches {
		p.free <- &ctlBatch{}
	}
	go p.parse(out)
	return p, nil
}

func (p *ctlProc) parse(out io.Reader) {
	defer close(p.exited)
	rd := ingest.NewReader(out, ingest.ReaderOptions{Shape: ingest.Export, Name: "journalctl output", MaxLineBytes: ctlFieldMax})
	var e ingest.Entry
	for {
		var b *ctlBatch
		select {
		case b = <-p.free:
		case <-p.done:
			return
		}
		b.data, b.recs, b.err = b.data[:0], b.recs[:0], nil
		for {
			if err := rd.Next(&e); err != nil {
				b.err = err
				break
			}
			if rd.Ended() {
				// The stream ended inside this entry (journalctl killed mid-write): fields
				// after MESSAGE may be missing. The restart after the previous cursor
				// reads it again whole.
				continue
			}
			b.add(&e)
			// Hand over when full, or when the next entry would need a read that may block.
			if len(b.recs) >= ctlBatchEntries || len(b.data) >= ctlBatchBytes || rd.Buffered() == 0 {
				break
			}
		}
		b.bad = rd.Stats().Bad
		select {
		case p.full <- b:
		case <-p.done:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// stop kills journalctl and waits for it and the parser; it returns how journalctl ended.
func (p *ctlProc) stop() error {
	close(p.done)
	p.cmd.Process.Kill()
	<-p.exited // Wait closes the pipe: only after the parser stopped reading it
	return p.cmd.Wait()
}

// wait reaps journalctl after its output ended by itself.
func (p *ctlProc) wait() error {
	<-p.exited
	return p.cmd.Wait()
}

// tailWriter keeps the last max bytes written: journalctl's last words for error messages.
type tailWriter struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b = append(w.b, p...)
	if len(w.b) > w.max {
		w.b = append(w.b[:0], w.b[len(w.b)-w.max:]...)
	}
	return len(p), nil
}

func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.b)
}
