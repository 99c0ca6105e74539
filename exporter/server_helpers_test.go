package exporter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/parse"
	"github.com/specwatch/specwatch/sim"
)

// demoSamples runs the demo scenario through ingest and parse as `specwatch analyze` does
// (cmd/specwatch/analyze.go) and returns every resolved line: matched samples and malformed
// ones, with results, deep-copied so that they can be replayed into any number of Sets.
func demoSamples(t testing.TB) ([]parse.Sample, []parse.Result) {
	t.Helper()
	sc := sim.Demo(1)
	pr, pw := io.Pipe()
	go func() {
		_, err := sim.Generate(sc, pw, nil)
		pw.CloseWithError(err)
	}()
	defer pr.Close()
	rd := ingest.NewReader(pr, ingest.ReaderOptions{Name: sc.Name})
	st := parse.NewStream(parse.StreamOptions{Location: time.UTC, Year: 2026})
	p := parse.NewParser(parse.Options{})
	var e ingest.Entry
	var s parse.Sample
	var out []parse.Sample
	var res []parse.Result
	for {
		err := rd.Next(&e)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading %s: %v", sc.Name, err)
		}
		r := p.Parse(e.Message, &s)
		if r != parse.Ignored {
			st.Resolve(e.Time, e.Host, e.Unit, &s)
		}
		c := s
		c.Host, c.Unit, c.Rank, c.Proc = bytes.Clone(s.Host), bytes.Clone(s.Unit), bytes.Clone(s.Rank), bytes.Clone(s.Proc)
		out, res = append(out, c), append(res, r)
	}
	return out, res
}

// replay applies samples to l.Set the way the pipeline does: one lock per entry, and each new
// decode point fed to the step histogram once (model.Series.StepObserved).
func replay(l *Locked, m *Metrics, samples []parse.Sample, res []parse.Result) {
	var seen []int64
	for i := range samples {
		s := &samples[i]
		l.Mu.Lock()
		if se := l.Set.Apply(res[i], s); se != nil && m != nil {
			for len(seen) <= se.ID() {
				seen = append(seen, 0)
			}
			if step, seq := se.StepObserved(); seq != seen[se.ID()] {
				seen[se.ID()] = seq
				m.ObserveStep(se.ID(), se.Labels(), step)
			}
		}
		l.LastEntry = time.Unix(0, s.Time)
		l.Mu.Unlock()
	}
}

// demoSource is a Locked over a model.Set fed with the demo data, caught up and live.
func demoSource(t testing.TB, m func(Source) *Metrics) (*Locked, *Metrics) {
	t.Helper()
	samples, res := demoSamples(t)
	l := &Locked{Set: model.NewSet(model.Options{Live: true}), Live: true}
	mm := m(l)
	replay(l, mm, samples, res)
	l.Mu.Lock()
	l.AtTail, l.CaughtUp = true, true
	l.HasJournal, l.Journal = true, JournalCounts{Reopens: 2, CursorMissing: 1, LostEntries: 1200, Duplicates: 3}
	l.Mu.Unlock()
	return l, mm
}

// needBinary returns the path of an external program the integration tests run, or skips
// loudly naming the Debian package (scripts/deps.sh installs it).
func needBinary(t *testing.T, name, debPackage string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("SKIPPED: %s not found: install the Debian package %q (scripts/deps.sh test)", name, debPackage)
	}
	return p
}

// freePort returns a port that was free a moment ago; callers retry if another process takes
// it before they bind.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// proc is an external server started by a test; its output is kept for failure messages.
type proc struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startProc starts bin with args and waits until GET url answers 200, within deadline. It
// returns an error (not a failure) when the process exits first, so that callers can retry on
// a port taken in between.
func startProc(t *testing.T, deadline time.Duration, url, bin string, args ...string) (*proc, error) {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, args...), out: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	err := poll(deadline, func() error {
		select {
		case <-p.done:
			return errExited
		default:
		}
		return get200(url)
	})
	if err != nil {
		p.stop()
		return nil, fmt.Errorf("%s did not come up: %w\n%s", bin, err, p.out.String())
	}
	return p, nil
}

var errExited = errors.New("process exited")

// stop interrupts the process and waits for it (killing it after 10 s).
func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

func get200(url string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}

// poll calls f every 100 ms until it returns nil or deadline passes (the last error is
// returned); errExited stops it at once. Tests use it only to wait for a real external process.
func poll(deadline time.Duration, f func() error) error {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		err := f()
		if err == nil || errors.Is(err, errExited) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-tick.C:
		}
	}
}

// serveTest starts s on its own listener and stops it when the test ends.
func serveTest(t *testing.T, s *Server) string {
	t.Helper()
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s.Addr()
}

func itoa(n int) string { return strconv.Itoa(n) }
