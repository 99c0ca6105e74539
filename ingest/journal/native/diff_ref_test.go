package native

import (
	"bufio"
	"bytes"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest/journal/sdjournal"
)

// The reference reader runs in a child process (this test binary again, in
// TestDiffReferenceChild): libsystemd 252 aborts on an assertion for some damaged files
// (generic_array_bisect's "last_index <= right" on some of systemd's own AFL journals), which
// would end the test process with it. The child reads one directory per request and answers
// on file descriptor 3; when it dies, the journal it was reading is recorded as one libsystemd
// cannot read (errRefCrashed: there is no reference for it, and journalctl, on the same
// library, aborts too), and the next request starts a new child.

var errRefCrashed = errors.New("libsystemd aborted reading it")

const refChildEnv = "SPECWATCH_DIFF_REFERENCE_CHILD"

// refResult is the child's answer: diffRead without the error's type.
type refResult struct {
	Read diffRead
	Err  string
}

type refReader struct {
	// limit, when set, bounds one reading: a child that takes longer is killed and the
	// reading gives no reference (errRefCrashed). The fuzz target sets it: Go's fuzz worker
	// dies of any input that runs 10 s, and libsystemd took up to 5.5 s on some damaged files
	// (13 s beside a loaded CI run), which failed the fuzzing with no fault of the reader.
	limit  time.Duration
	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *gob.Decoder
	stderr *bytes.Buffer
}

// newRefReader starts no child yet; read does, when needed. Close it at the end.
func newRefReader() *refReader { return &refReader{} }

func (r *refReader) start() error {
	cmd := exec.Command(os.Args[0], "-test.run=^TestDiffReferenceChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), refChildEnv+"=1")
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pw.Close()
	cmd.ExtraFiles = []*os.File{pw}
	r.stderr = &bytes.Buffer{}
	cmd.Stderr = r.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		pr.Close()
		return err
	}
	if err := cmd.Start(); err != nil {
		pr.Close()
		return err
	}
	r.cmd, r.in, r.out = cmd, in, gob.NewDecoder(bufio.NewReader(pr))
	return nil
}

// refRequest is what the child is asked to read: a diffCase's reading options.
type refRequest struct {
	Dir        string
	Since      time.Time
	Units      []string
	RecoverFor time.Duration
}

// read reads c with libsystemd in the child.
func (r *refReader) read(c diffCase) diffRead {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		if err := r.start(); err != nil {
			return diffRead{err: fmt.Errorf("starting the reference reader: %w", err)}
		}
	}
	var res refResult
	req, _ := json.Marshal(refRequest{Dir: c.dir, Since: c.Since, Units: c.Units, RecoverFor: c.recoverFor})
	_, err := fmt.Fprintf(r.in, "%s\n", req)
	if err == nil {
		err = r.decode(&res)
	}
	if err != nil {
		r.stop()
		msg := strings.TrimSpace(r.stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return diffRead{err: fmt.Errorf("%w: %s", errRefCrashed, msg)}
	}
	if res.Err != "" {
		res.Read.err = errors.New(res.Err)
	}
	return res.Read
}

// decode reads the child's answer, within limit when one is set.
func (r *refReader) decode(res *refResult) error {
	if r.limit <= 0 {
		return r.out.Decode(res)
	}
	done := make(chan error, 1)
	go func() { done <- r.out.Decode(res) }()
	select {
	case err := <-done:
		return err
	case <-time.After(r.limit):
		r.cmd.Process.Kill() // stop then waits for it; the decode ends with the pipe
		<-done
		return fmt.Errorf("no answer within %v", r.limit)
	}
}

func (r *refReader) stop() {
	if r.cmd != nil {
		r.in.Close()
		r.cmd.Wait()
		r.cmd = nil
	}
}

// Close ends the child.
func (r *refReader) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stop()
}

// TestDiffReferenceChild is the reference reader's child process; run by itself it does
// nothing.
func TestDiffReferenceChild(t *testing.T) {
	if os.Getenv(refChildEnv) == "" {
		t.Skip("the differential tests' child process; nothing to do by itself")
	}
	out := os.NewFile(3, "results")
	w := bufio.NewWriter(out)
	enc := gob.NewEncoder(w)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var q refRequest
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			os.Exit(2)
		}
		r := readWith(sdjournal.Name, diffCase{dir: q.Dir, Since: q.Since, Units: q.Units, recoverFor: q.RecoverFor})
		res := refResult{Read: r}
		if r.err != nil {
			res.Err = r.err.Error()
		}
		if err := enc.Encode(&res); err != nil {
			os.Exit(2)
		}
		if err := w.Flush(); err != nil {
			os.Exit(2)
		}
	}
	os.Exit(0)
}
