package pipeline

import (
	"errors"
	"io"
	"time"

	"github.com/specwatch/specwatch/ingest"
)

// Replay plays a recorded (here: simulated) journal as if it were being written: entries come
// out at speed times their original pace, and at the end the recording starts over with its
// timestamps shifted by its length, so time keeps moving forward for the model. It is the
// Journal of `specwatch demo`. Lifecycle: Next from one goroutine, then Close.
type Replay struct {
	open  func() io.ReadCloser
	speed float64
	now   func() time.Time
	sleep func(time.Duration)

	rc      io.ReadCloser
	rd      *ingest.Reader
	cur     ingest.Entry
	pending bool

	shift     int64 // µs added to every timestamp in this pass
	t0, last  int64 // µs of the recording's first and latest entry (unshifted)
	first     int64 // µs of the first entry replayed (the pacing origin)
	wallStart time.Time
	passes    int
}

// ReplayOptions configure NewReplay.
type ReplayOptions struct {
	// Open starts a pass over the recording (an export stream, as ingest.Reader reads it).
	Open func() io.ReadCloser
	// Speed is recorded seconds per wall second; 0 replays as fast as possible.
	Speed float64
	// Now and Sleep are the clock; nil means time.Now and time.Sleep.
	Now   func() time.Time
	Sleep func(time.Duration)
}

// NewReplay prepares a replay; nothing is read before the first Next.
func NewReplay(o ReplayOptions) *Replay {
	r := &Replay{open: o.Open, speed: o.Speed, now: o.Now, sleep: o.Sleep}
	if r.now == nil {
		r.now = time.Now
	}
	if r.sleep == nil {
		r.sleep = time.Sleep
	}
	return r
}

// Next returns the next entry once it is due, waiting at most wait.
func (r *Replay) Next(e *ingest.Entry, wait time.Duration) (bool, error) {
	if !r.pending {
		if err := r.read(); err != nil {
			return false, err
		}
	}
	t := r.cur.Time + r.shift
	if r.first == 0 {
		r.first, r.wallStart = t, r.now()
	}
	if r.speed > 0 {
		due := r.wallStart.Add(time.Duration(float64(t-r.first)*1e3/r.speed) * time.Nanosecond)
		if d := due.Sub(r.now()); d > 0 {
			r.sleep(min(d, wait))
			if d > wait {
				r.pending = true
				return false, nil
			}
		}
	}
	r.pending = false
	*e = r.cur
	e.Time = t
	return true, nil
}

// read fills r.cur with the next recorded entry, starting a new pass at the end.
func (r *Replay) read() error {
	for tries := 0; tries < 2; tries++ {
		if r.rd == nil {
			r.rc = r.open()
			r.rd = ingest.NewReader(r.rc, ingest.ReaderOptions{Name: "demo"})
		}
		err := r.rd.Next(&r.cur)
		if err == nil {
			if r.t0 == 0 {
				r.t0 = r.cur.Time
			}
			r.last = max(r.last, r.cur.Time)
			return nil
		}
		if !errors.Is(err, io.EOF) {
			return err
		}
		r.rc.Close()
		r.rd = nil
		r.passes++
		// The next pass follows the recording's end by a second, as if the service went on.
		r.shift = int64(r.passes) * (r.last - r.t0 + 1_000_000)
	}
	return errors.New("demo data is empty")
}

// Close stops the replay.
func (r *Replay) Close() error {
	if r.rc != nil {
		return r.rc.Close()
	}
	return nil
}
