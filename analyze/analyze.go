// Package analyze is `specwatch analyze` as a library: log files, standard input and journal
// directories read once, to their end, through the daemon's pipeline into one model, with the
// time anchoring raw logs need.
package analyze

import (
	"io"
	"os"
	"time"

	"github.com/specwatch/specwatch/ingest"
	"github.com/specwatch/specwatch/ingest/journal"
	"github.com/specwatch/specwatch/model"
	"github.com/specwatch/specwatch/pipeline"
)

// Options configure New.
type Options struct {
	MaxSeries    int            // the model's cap on series (0: model.DefaultMaxSeries)
	Location     *time.Location // zone of timestamps written without one; nil: UTC
	Since, Until time.Time      // only samples in [Since, Until); zero: unbounded
	// StartTime, when set, is when the engine whose lines are stamped with the time since it
	// started (llama.cpp) started; else a file's last such line is at its modification time.
	StartTime time.Time
	// Note receives what the user should know about an input that is not an error: where its
	// since-start stamps were anchored, damage found in it. Nil discards.
	Note func(msg string)
	// Labels name the series of inputs whose lines and entries do not name them, by path ("":
	// every input); a file's unit is otherwise its path without rotation suffixes
	// (ingest.RotatedBase), so that two files are two series and a rotated sibling joins its
	// live file.
	Labels map[string]ingest.Identity
}

// Analysis feeds inputs through the pipeline into one model. Lifecycle: New, inputs one at a
// time (File, Journal, Read), then Report; not safe for concurrent use.
type Analysis struct {
	o     Options
	state *pipeline.State
	feed  *pipeline.Pipeline
}

// New starts an empty analysis.
func New(o Options) *Analysis {
	if o.Note == nil {
		o.Note = func(string) {}
	}
	st := pipeline.NewState(pipeline.StateOptions{Model: model.Options{MaxSeries: o.MaxSeries}})
	return &Analysis{o: o, state: st,
		feed: pipeline.New(st, pipeline.Options{Location: o.Location, Since: o.Since, Until: o.Until})}
}

// Report is the report of everything read so far.
func (a *Analysis) Report() model.Report { return a.state.Report() }

// Plots is the report page's plot data.
func (a *Analysis) Plots() []model.SeriesPlot { return a.state.Plots() }

// Journal reads the journal jo names from its first entry to its last, through the same
// reader as the daemon, without following (jo's Start and NoFollow are set here).
func (a *Analysis) Journal(jo journal.Options) error {
	jo.Start, jo.NoFollow = journal.Head(), true
	src, err := journal.Open(jo)
	if err != nil {
		return err
	}
	defer src.Close()
	a.feed.NewInput(time.Now().Year())
	a.feed.Identify(a.o.Labels[""])
	return a.feed.ReadJournal(src, jo.Dir)
}

// File reads one log file (plain or compressed; Docker json-file, CRI), or standard input for
// "-". An error means nothing of it was read.
func (a *Analysis) File(path string) error {
	rc, err := ingest.Open(path)
	if err != nil {
		return err
	}
	defer rc.Close()
	// Year-less timestamps (vLLM, journalctl short) end no later than the file was last written;
	// standard input's end now.
	modified, stated := time.Now(), false
	if path != "-" {
		if fi, err := os.Stat(path); err == nil {
			modified, stated = fi.ModTime(), true
		}
	}
	anchor := a.sinceStartAnchor(path, modified, stated)
	a.feed.NewFileInput(modified, anchor.origin)
	a.feed.Identify(a.identity(path))
	if err := a.readAll(rc, path); err != nil {
		return err
	}
	a.noteSinceStart(path, anchor)
	if err := rc.Damage(); err != nil {
		// What decoded is in the report; the damage is counted there and named here.
		a.o.Note(err.Error())
		a.state.CountDamaged()
	}
	return nil
}

// identity is what names path's series where its lines do not: its labels over every input's,
// and its path as the unit.
func (a *Analysis) identity(path string) ingest.Identity {
	id := a.o.Labels[""]
	if own, ok := a.o.Labels[path]; ok {
		for _, f := range []struct{ dst, v *string }{{&id.Host, &own.Host}, {&id.Unit, &own.Unit},
			{&id.Container, &own.Container}, {&id.Namespace, &own.Namespace}, {&id.Pod, &own.Pod}} {
			if *f.v != "" {
				*f.dst = *f.v
			}
		}
	}
	if id.Unit == "" && path != "-" {
		id.Unit = ingest.RotatedBase(path)
	}
	return id
}

// Read reads r as one input whose year-less timestamps are in year (the demo data, tests).
func (a *Analysis) Read(r io.Reader, name string, year int) error {
	a.feed.NewInput(year)
	a.feed.Identify(a.o.Labels[""])
	return a.readAll(r, name)
}

// readAll feeds r, detected and decoded, through the pipeline to its end.
func (a *Analysis) readAll(r io.Reader, name string) error {
	return a.feed.ReadAll(ingest.NewReader(r, ingest.ReaderOptions{Name: name}), name)
}
