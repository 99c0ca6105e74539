// Command corpus writes the benchmark corpus of bench/run.sh: sim.Mixed as journalctl -o short
// text, and the very same entries (same seed, same record stream, written as -o export) as a
// real journal file built by systemd-journal-remote.
//
//	go run ./bench/cmd/corpus -lines 1000000 -out /tmp/specwatch-bench/corpus
//
// writes OUT/mixed.log and OUT/journal/mixed*.journal (journal-remote rotates at its size limit), and OUT/summary.txt (records per kind).
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
	lines := flag.Int("lines", 1_000_000, "records to write")
	seed := flag.Uint64("seed", 1, "simulator seed")
	out := flag.String("out", "/tmp/specwatch-bench/corpus", "output directory")
	flag.Parse()
	// journal-remote rotates at its size limit even with --split-mode=none: start afresh.
	os.RemoveAll(filepath.Join(*out, "journal"))
	if err := os.MkdirAll(filepath.Join(*out, "journal"), 0o755); err != nil {
		log.Fatal(err)
	}

	// (a) text, journalctl -o short (Mixed's default format).
	sc := sim.Mixed(*seed, *lines)
	txt := filepath.Join(*out, "mixed.log")
	f, err := os.Create(txt + ".tmp")
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
		err = os.Rename(txt+".tmp", txt)
	}
	if err != nil {
		log.Fatal(err)
	}

	// (b) the same scenario as export, piped into systemd-journal-remote.
	jf := filepath.Join(*out, "journal", "mixed.journal")
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
	s := fmt.Sprintf("records %d\nengine %d\nnoise %d\nfirst %s\nlast %s\n", sum.Lines, sum.EngineLines,
		sum.NoiseLines, sum.First.UTC().Format("2006-01-02T15:04:05Z"), sum.Last.UTC().Format("2006-01-02T15:04:05Z"))
	if err := os.WriteFile(filepath.Join(*out, "summary.txt"), []byte(s), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Print(s)
}
