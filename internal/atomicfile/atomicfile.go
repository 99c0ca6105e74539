// Package atomicfile replaces the small state files specwatch resumes from (the journal
// cursor, the file positions) so that a crash at any moment leaves either the old contents or
// the new under the name, never a mix, an empty file or a half-written one: a reader after a
// power cut must not resume from a plausible wrong position.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write replaces path with data and perm: a temporary file in path's directory (same
// filesystem, so the rename is atomic), written, fsynced and closed, renamed over path, and
// the directory fsynced so that the rename itself survives a crash. perm is set exactly
// (chmod), not through the umask.
//
// On an error, which names path and wraps the cause, the temporary file is removed; path
// holds its old contents, except when only the directory's fsync failed: then path holds data
// but the rename may not be durable yet, and the caller should write again.
func Write(path string, data []byte, perm os.FileMode) error {
	if err := write(path, data, perm); err != nil {
		return fmt.Errorf("replacing %s: %w", path, err)
	}
	return nil
}

func write(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			f.Close() // a second Close after a successful one only returns an error
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	renamed = true
	return SyncDir(dir)
}

// SyncDir fsyncs a directory, making the creations, renames and removals in it durable. The
// error is the *fs.PathError of the open or the fsync, which names dir.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
