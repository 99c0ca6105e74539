//go:build !unix

package file

import "os"

// devIno has no inode to read here: files are told apart by their fingerprint alone.
func devIno(os.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

// linked cannot tell a renamed file from a deleted one here.
func linked(*os.File) (has, known bool) { return false, false }
