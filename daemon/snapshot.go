package daemon

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
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

// The file: snapshotMagic, the format version, the position files (name, present, content),
// the model's state (model.Set.AppendState) compressed with zstd, and a CRC-32C of all that.
const (
	snapshotMagic   = "specwatch-snapshot\n"
	snapshotVersion = 1
	// maxSnapshotBytes bounds what is read back: 256 series with full day plots take 24 MB
	// before compression.
	maxSnapshotBytes = 1 << 30
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// snapshots writes the model's state beside the sources' position files when the feed loop
// ends (pipeline.Snapshotter).
type snapshots struct {
	dir       string
	positions []string // the position files' names in dir
	log       zerolog.Logger
}

type snapshot struct {
	state []byte
	files []positionFile
}

type positionFile struct {
	name    string
	present bool
	data    []byte
}

// Save is pipeline.Snapshotter's: the position files are read now, as the feed loop has just
// written them for this state.
func (s *snapshots) Save(state []byte) {
	start := time.Now()
	b, err := encodeSnapshot(snapshot{state: state, files: s.readPositions()})
	path := filepath.Join(s.dir, ModelFile)
	if err == nil {
		err = atomicfile.Write(path, b, 0o600)
	}
	if err != nil {
		s.log.Warn().Err(err).Msg("cannot save the model; the next start will replay the journal instead")
		return
	}
	s.log.Info().Str("path", path).Int("state_bytes", len(state)).Int("file_bytes", len(b)).Dur("took", time.Since(start)).
		Msg("model saved for the next start")
}

func (s *snapshots) readPositions() []positionFile {
	out := make([]positionFile, 0, len(s.positions))
	for _, name := range s.positions {
		b, err := os.ReadFile(filepath.Join(s.dir, name))
		out = append(out, positionFile{name: name, present: err == nil, data: b})
	}
	return out
}

func encodeSnapshot(j snapshot) ([]byte, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	b := append([]byte(snapshotMagic), snapshotVersion)
	b = binary.AppendUvarint(b, uint64(len(j.files)))
	for _, f := range j.files {
		b = binary.AppendUvarint(b, uint64(len(f.name)))
		b = append(b, f.name...)
		b = append(b, boolByte(f.present))
		b = binary.AppendUvarint(b, uint64(len(f.data)))
		b = append(b, f.data...)
	}
	state := enc.EncodeAll(j.state, nil)
	b = binary.AppendUvarint(b, uint64(len(state)))
	b = append(b, state...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// decodeSnapshot checks and splits a snapshot file.
func decodeSnapshot(b []byte) (snapshot, error) {
	var j snapshot
	bad := func(what string) (snapshot, error) { return j, fmt.Errorf("the model snapshot is damaged: %s", what) }
	if !bytes.HasPrefix(b, []byte(snapshotMagic)) || len(b) < len(snapshotMagic)+5 {
		return bad("not a snapshot")
	}
	if v := b[len(snapshotMagic)]; v != snapshotVersion {
		return j, fmt.Errorf("the model snapshot is of format %d, this build reads %d", v, snapshotVersion)
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return bad("checksum mismatch")
	}
	r := body[len(snapshotMagic)+1:]
	field := func() []byte {
		n, k := binary.Uvarint(r)
		if k <= 0 || n > uint64(len(r)-k) {
			return nil
		}
		f := r[k : k+int(n)]
		r = r[k+int(n):]
		return f
	}
	n, k := binary.Uvarint(r)
	if k <= 0 || n > 16 {
		return bad("position files")
	}
	r = r[k:]
	for range n {
		name := field()
		if len(name) == 0 || len(r) == 0 || r[0] > 1 || filepath.Base(string(name)) != string(name) {
			return bad("a position file's name")
		}
		present := r[0] == 1
		r = r[1:]
		data := field()
		if data == nil && present && len(r) == 0 {
			return bad("a position file")
		}
		j.files = append(j.files, positionFile{name: string(name), present: present, data: data})
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxSnapshotBytes), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return j, err
	}
	defer dec.Close()
	if j.state, err = dec.DecodeAll(field(), nil); err != nil || len(r) != 0 {
		return bad(fmt.Sprintf("the model's state: %v", err))
	}
	return j, nil
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
	var j snapshot
	if err == nil {
		j, err = decodeSnapshot(b)
	}
	if err == nil && !samePositions(j.files, (&snapshots{dir: dir, positions: positions}).readPositions()) {
		err = errors.New("the positions moved on since it was saved (the last stop was not clean) or the sources changed")
	}
	if err == nil {
		err = st.LoadModel(j.state)
	}
	if err != nil {
		log.Warn().Err(err).Str("path", path).Msg("the model snapshot is not used; the journal's window before the cursor is replayed instead")
		return false
	}
	log.Info().Str("path", path).Int("bytes", len(b)).Int("state_bytes", len(j.state)).Dur("took", time.Since(start)).
		Msg("model restored from the snapshot saved at the last stop; sources resume where it was saved")
	return true
}

// samePositions reports whether two sets of position files are the same files with the same
// contents.
func samePositions(a, b []positionFile) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].name != b[i].name || a[i].present != b[i].present || !bytes.Equal(a[i].data, b[i].data) {
			return false
		}
	}
	return true
}
