//go:build linux

package llamacpp

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/specwatch/specwatch/internal/testkit/testjournal"
)

// unit is the systemd unit the engine's output is written under in the private journal.
const unit = "llama-server.service"

// Run is one engine process's load and what it printed.
type Run struct {
	Name    string
	Server  *Server
	Truth   []Truth
	Log     string             // the output file
	Before  map[string]float64 // /metrics before and after the load
	After   map[string]float64
	Started time.Time
}

// Capture is everything the scenarios produced, made once per test binary.
type Capture struct {
	Env     *Env
	Dir     string
	Journal *testjournal.Journal
	// JournalDir is a copy of the journal's files once every scenario has run.
	JournalDir string
	Draft      *Run   // good draft, -lv 3, sequential, chat, idle, parallel; journal and file
	Ngram      *Run   // n-gram drafting, -lv 4, 32 requests
	Fix        []*Run // good → broken → good again, -lv 4, 20 draft tokens, one journal unit
	JSONL      *Run   // weak draft, --log-jsonl
	Live       *LiveResult
}

var (
	capOnce sync.Once
	capData *Capture
	capFail string
)

// capture runs the scenarios once; tests that need them share the result. A failure while
// capturing fails every test that asks for it, with the reason.
func capture(t *testing.T) *Capture {
	t.Helper()
	env := Prepare(t)
	capOnce.Do(func() {
		c := &Capture{Env: env, Dir: captureDir(t)}
		ok := t.Run("capture", func(t *testing.T) { c.run(t) })
		if !ok {
			capFail = "the capture failed: see its subtest"
			return
		}
		capData = c
	})
	if capData == nil {
		t.Fatal(capFail)
	}
	return capData
}

// captureDir outlives the test that made it (the others read it); SPECWATCH_ENGINE_KEEP names
// a directory to keep the captures in for a look afterwards.
func captureDir(t *testing.T) string {
	if d := os.Getenv("SPECWATCH_ENGINE_KEEP"); d != "" {
		os.RemoveAll(d) // a previous run's logs would be appended to: one engine run per file
		os.MkdirAll(d, 0o755)
		return d
	}
	d, err := os.MkdirTemp("", "specwatch-llamacpp-")
	if err != nil {
		t.Fatal(err)
	}
	captureDirs = append(captureDirs, d)
	return d
}

var captureDirs []string

func (c *Capture) run(t *testing.T) {
	c.Journal = testjournal.Start(t)
	c.Journal.RequireUnits()
	text := NewText(readCorpus(t, c.Env), 7)
	toJournal := func(line []byte) {
		if err := c.Journal.Send(unit, "llama-server", line); err != nil {
			t.Errorf("journal: %v", err)
		}
	}

	live := startLive(t, c)
	opts := draftOptions
	opts.Line, opts.Addr = toJournal, live.engineAddr
	c.Draft = c.engine(t, "draft", opts, func(s *Server) []Truth {
		rs := draftSequential(t, s, text)
		time.Sleep(3 * time.Second) // an idle gap
		for _, k := range []int{2, 4} {
			var reqs []Request
			for j := range k {
				reqs = append(reqs, Request{Prompt: text.Random(200 + 300*j), N: 64, Temp: 0.8, Seed: 100*k + j})
			}
			rs = append(rs, s.Parallel(t, reqs)...)
		}
		return rs
	})
	c.Live = live.finish(t, c)

	c.Ngram = c.engine(t, "ngram", ngramOptions, func(s *Server) []Truth { return ngramRequests(t, s, text) })

	for i, draft := range []string{"draft-good.gguf", "draft-broken.gguf", "draft-good.gguf"} {
		r := c.engine(t, fmt.Sprintf("fix-%d", i+1), ServerOptions{Draft: draft, Line: toJournal,
			Args: []string{"--spec-type", "draft-simple", "--spec-draft-n-max", "20", "-lv", "4"}},
			func(s *Server) []Truth {
				var rs []Truth
				for j := range 6 {
					rs = append(rs, s.Do(t, Request{Prompt: text.Source(100 + 200*j), N: 80, Temp: float64(j%2) * 0.8, Seed: 10*i + j}))
				}
				return rs
			})
		c.Fix = append(c.Fix, r)
	}

	c.JSONL = c.engine(t, "jsonl", ServerOptions{Draft: "draft-weak.gguf",
		Args: []string{"--spec-type", "draft-simple", "--log-jsonl", "-lv", "3"}},
		func(s *Server) []Truth {
			var rs []Truth
			for i := range 6 {
				rs = append(rs, s.Do(t, Request{Prompt: text.Source(200 + 400*i), N: 96, Temp: float64(i%2) * 0.8, Seed: i}))
			}
			return rs
		})
	c.Journal.Sync()
	// The journal's files outlive this subtest (its journald does not): the tests read a copy.
	c.JournalDir = filepath.Join(c.Dir, "journal")
	if err := os.CopyFS(c.JournalDir, os.DirFS(c.Journal.Dir())); err != nil {
		t.Fatal(err)
	}
}

// draftOptions is the good draft at -lv 3 with four slots.
var draftOptions = ServerOptions{Draft: "draft-good.gguf", Ctx: 32768,
	Args: []string{"--spec-type", "draft-simple", "--spec-draft-n-max", "8", "-lv", "3", "-np", "4"}}

// ngramOptions drafts from the context's n-grams, up to 64 tokens, at -lv 4.
var ngramOptions = ServerOptions{Args: []string{"--spec-type", "ngram-mod", "--spec-draft-n-max", "64", "-lv", "4"}}

// ngramRequests is the n-gram scenario: 32 requests, 128 tokens each, over Go source of ten
// lengths and random words, greedy and sampled. 32: the tok/s of requests this short varies by
// 10 % between identical ones, and the mean over the 24 the model predicts is judged.
func ngramRequests(t *testing.T, s *Server, text *Text) []Truth {
	var rs []Truth
	for i := range 32 {
		p := text.Source(300 + 500*(i%10))
		if i%2 == 1 {
			p = text.Random(400)
		}
		rs = append(rs, s.Do(t, Request{Prompt: p, N: 128, Temp: float64(i/2%2) * 0.8, Seed: i}))
	}
	return rs
}

// draftSequential is the draft scenario's requests one at a time: prompts of growing length
// sharing their prefix, greedy and sampled in turn, then lengths in no order, as an operator's
// traffic comes (the step model is judged on these too, inside the range it learned, not only
// on each new longest prompt), then the chat endpoint.
func draftSequential(t *testing.T, s *Server, text *Text) []Truth {
	var rs []Truth
	for i, n := range []int{60, 400, 1200, 2400, 3600, 4800, 6000, 7500, 9000, 10500, 12000} {
		rs = append(rs, s.Do(t, Request{Prompt: text.Source(n), N: 96, Temp: float64(i%2) * 0.8, Seed: i}))
	}
	for i, n := range []int{5000, 800, 9500, 3000, 11000, 200, 6500, 1800} {
		rs = append(rs, s.Do(t, Request{Prompt: text.Source(n), N: 96, Temp: float64(i%2) * 0.8, Seed: 20 + i}))
	}
	rs = append(rs, s.Do(t, Request{Prompt: "Write a Go function that reverses a string.", N: 64, Chat: true}))
	rs = append(rs, s.Do(t, Request{Prompt: text.Random(300), N: 64, Temp: 0.8, Seed: 40, Chat: true}))
	return rs
}

// engine runs one llama-server, appending its output to <dir>/<name>.log, drives load and
// stops it, so that everything it prints is in the file.
func (c *Capture) engine(t *testing.T, name string, opts ServerOptions, load func(*Server) []Truth) *Run {
	t.Helper()
	r := &Run{Name: name, Log: filepath.Join(c.Dir, name+".log")}
	s := c.Env.Start(t, r.Log, opts)
	r.Server, r.Started = s, s.Started
	r.Before = s.Counters(t)
	start := time.Now()
	r.Truth = load(s)
	r.After = s.Counters(t)
	s.Stop()
	t.Logf("%s: %d requests in %v", name, len(r.Truth), time.Since(start).Round(time.Millisecond))
	return r
}

func readCorpus(t *testing.T, env *Env) string {
	b, err := os.ReadFile(filepath.Join(env.Root, "work", "corpus.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestMain removes the captures and the specwatch binary.
func TestMain(m *testing.M) {
	code := mainRun(m)
	for _, d := range captureDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}
