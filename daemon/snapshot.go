package daemon

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/rs/zerolog"

	"github.com/specwatch/specwatch/internal/atomicfile"
	"github.com/specwatch/specwatch/internal/readfile"
	"github.com/specwatch/specwatch/pipeline"
)

// ModelFile is the model's saved state in the state directory, with the positions it is as of.
const ModelFile = "model.state"

// The file: snapshotMagic, the format version, the digest of the position files it is as of,
// and the model's state (model.Set.AppendState, with its own CRC) compressed with zstd (whose
// frame carries a checksum too): damage anywhere is refused.
const (
	snapshotMagic   = "specwatch-snapshot\n"
	snapshotVersion = 1
	// maxSnapshotBytes bounds what is read back: 256 series with full day plots take 24 MB
	// before compression.
	maxSnapshotBytes = 1 << 30
)

// snapshots writes the model's state beside the sources' position files when the feed loop
// ends (pipeline.Snapshotter).
type snapshots struct {
	dir       string
	positions []string // the position files' names in dir
	log       zerolog.Logger
	saved     bool // the last Save succeeded
}

// Save is pipeline.Snapshotter's: the position files are read now, as the feed loop has just
// written them for this state.
func (s *snapshots) Save(state []byte) {
	start := time.Now()
	b, err := encodeSnapshot(positionsDigest(s.dir, s.positions), state)
	path := filepath.Join(s.dir, ModelFile)
	if err == nil {
		err = atomicfile.Write(path, b, 0o600)
	}
	if err != nil {
		s.log.Warn().Err(err).Msg("cannot save the model; the next start will replay the journal instead")
		return
	}
	s.saved = true
	s.log.Info().Str("path", path).Int("state_bytes", len(state)).Int("file_bytes", len(b)).Float64("took_seconds", time.Since(start).Seconds()).
		Msg("model saved for the next start")
}

// positionsDigest identifies the position files' names, presence and contents: a snapshot is
// of use only while they are the same.
func positionsDigest(dir string, names []string) [sha256.Size]byte {
	h := sha256.New()
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, name))
		fmt.Fprintf(h, "%s %t %d\n", name, err == nil, len(b))
		h.Write(b)
	}
	return [sha256.Size]byte(h.Sum(nil))
}

func encodeSnapshot(positions [sha256.Size]byte, state []byte) ([]byte, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	return enc.EncodeAll(state, append(append([]byte(snapshotMagic), snapshotVersion), positions[:]...)), nil
}

// decodeSnapshot checks a snapshot file and returns its positions' digest and model state.
func decodeSnapshot(b []byte) (positions [sha256.Size]byte, state []byte, err error) {
	head := len(snapshotMagic) + 1 + sha256.Size
	if !bytes.HasPrefix(b, []byte(snapshotMagic)) || len(b) < head {
		return positions, nil, errors.New("the model snapshot is damaged: not a snapshot")
	}
	if v := b[len(snapshotMagic)]; v != snapshotVersion {
		return positions, nil, fmt.Errorf("the model snapshot is of format %d, this build reads %d", v, snapshotVersion)
	}
	copy(positions[:], b[len(snapshotMagic)+1:])
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxSnapshotBytes), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return positions, nil, err
	}
	defer dec.Close()
	if state, err = dec.DecodeAll(b[head:], nil); err != nil {
		return positions, nil, fmt.Errorf("the model snapshot is damaged: the model's state: %w", err)
	}
	return positions, state, nil
}

// restoreSnapshot loads the saved model into st when the position files are still those it was
// saved with (the last stop was clean), so that every source resumes exactly where that model
// stopped, and reports whether it did. A snapshot behind the positions (a crash, a kill) is not
// used: the entries between would be counted again. Anything else is logged, and the start
// falls back to the journal's replay.
func restoreSnapshot(dir string, positions []string, st *pipeline.State, log zerolog.Logger) bool {
	start := time.Now()
	path := filepath.Join(dir, ModelFile)
	b, err := readfile.Regular(path, maxSnapshotBytes)
	if errors.Is(err, fs.ErrNotExist) {
		log.Debug().Str("path", path).Msg("no model snapshot: a first start, or the last stop saved none")
		return false
	}
	var digest [sha256.Size]byte
	var state []byte
	if err == nil {
		digest, state, err = decodeSnapshot(b)
	}
	if err == nil && digest != positionsDigest(dir, positions) {
		err = errors.New("the positions moved on since it was saved (the last stop was not clean) or the sources changed")
	}
	if err == nil {
		err = st.LoadModel(state)
	}
	if err != nil {
		log.Warn().Err(err).Str("path", path).Msg("the model snapshot is not used; the journal's window before the cursor is replayed instead")
		return false
	}
	log.Info().Str("path", path).Int("bytes", len(b)).Int("state_bytes", len(state)).Float64("took_seconds", time.Since(start).Seconds()).
		Msg("model restored from the snapshot saved at the last stop; sources resume where it was saved")
	return true
}
