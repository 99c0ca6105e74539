// Command corpus writes a benchmark corpus of bench/run.sh.
//
//	go run ./bench/cmd/corpus -lines 1000000 -out /tmp/specwatch-bench/corpus
//	go run ./bench/cmd/corpus -preset chatty -lines 1000000 -out /tmp/specwatch-bench/chatty
//
// The mixed preset (sim.Mixed, four engines on four hosts) is written as journalctl -o short
// text, OUT/mixed.log, and the very same entries (same seed, same record stream, written as -o
// export) as a real journal file built by systemd-journal-remote, OUT/journal/mixed*.journal
// (journal-remote rotates at its size limit). The chatty preset (sim.Chatty, one SGLang unit
// among its own chatter) is text only, journalctl -o short-iso: OUT/chatty.log. Both write
// OUT/summary.txt (records per kind).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/specwatch/specwatch/sim"
)

const journalRemote = "/lib/systemd/systemd-journal-remote"

func main() {
	preset := flag.String("preset", "mixed", "corpus: mixed (text and journal) or chatty (text)")
	lines := flag.Int("lines", 1_000_000, "records to write")
	seed := flag.Uint64("seed", 1, "simulator seed")
	out := flag.String("out", "/tmp/specwatch-bench/corpus", "output directory")
	flag.Parse()
	var sc sim.Scenario
	switch *preset {
	case "mixed":
		sc = sim.Mixed(*seed, *lines)
	case "chatty":
		sc = sim.Chatty(*seed, *lines)
	default:
		log.Fatalf("unknown preset %q", *preset)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	sum := writeText(sc, filepath.Join(*out, sc.Name+".log"))
	if *preset == "mixed" {
		writeJournal(sc, filepath.Join(*out, "journal"), sum)
	}
	s := fmt.Sprintf("records %d\nengine %d\nnoise %d\nfirst %s\nlast %s\n", sum.Lines, sum.EngineLines,
		sum.NoiseLines, sum.First.UTC().Format("2006-01-02T15:04:05Z"), sum.Last.UTC().Format("2006-01-02T15:04:05Z"))
	if err := os.WriteFile(filepath.Join(*out, "summary.txt"), []byte(s), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Print(s)
}

// writeText writes the scenario in its own format to path, through a temporary file so that
// an interrupted run leaves no corpus behind that looks whole.
func writeText(sc sim.Scenario, path string) sim.Summary {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	sum, err := sim.Generate(sc, w, nil)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Close()
	}
	if err == nil {
		err = os.Rename(path+".tmp", path)
	}
	if err != nil {
		log.Fatal(err)
	}
	return sum
}

// writeJournal writes the same scenario as export, piped into systemd-journal-remote, and
// checks that it holds as many records as the text.
func writeJournal(sc sim.Scenario, dir string, sum sim.Summary) {
	// journal-remote rotates at its size limit even with --split-mode=none: start afresh.
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	jf := filepath.Join(dir, sc.Name+".journal")
	sc.Format = sim.FormatExport
	cmd := exec.Command(journalRemote, "--output="+jf, "--split-mode=none", "--compress=no", "--seal=no", "-")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		log.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		log.Fatalf("%s: %v (Debian: apt-get install systemd-journal-remote)", journalRemote, err)
	}
	bw := bufio.NewWriterSize(stdin, 1<<20)
	jsum, gerr := sim.Generate(sc, bw, nil)
	if gerr == nil {
		gerr = bw.Flush()
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		log.Fatalf("journal-remote: %v: %s", err, stderr.Bytes())
	}
	if gerr != nil && gerr != io.ErrClosedPipe {
		log.Fatal(gerr)
	}
	if jsum.Lines != sum.Lines || jsum.EngineLines != sum.EngineLines {
		log.Fatalf("text and export differ: %d/%d vs %d/%d records", sum.Lines, sum.EngineLines, jsum.Lines, jsum.EngineLines)
	}
}
