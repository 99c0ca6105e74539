//go:build linux

// Package testtmpfs gives tests a small filesystem of their own, so that they see the kernel's
// real EROFS and ENOSPC (a state directory remounted read-only, a full disk) without touching
// the host's mounts.
package testtmpfs

import (
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// Run calls f in a private mount namespace (on one locked OS thread) where dir is a fresh
// tmpfs mounted with opts ("size=16k"); remount changes the options ("ro", "rw"). Everything
// f does to dir must happen on f's goroutine: other threads do not see the mount. The
// namespace dies with the thread. Needs root; skips otherwise, or where mounting is refused.
func Run(t *testing.T, opts string, f func(dir string, remount func(opts string))) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for a private tmpfs")
	}
	dir := t.TempDir()
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread and its namespace end with us
		if err := syscall.Unshare(syscall.CLONE_NEWNS); err != nil {
			done <- err
			return
		}
		if err := syscall.Mount("none", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			done <- err
			return
		}
		if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, opts); err != nil {
			done <- err
			return
		}
		f(dir, func(o string) {
			if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT|flagsOf(o), o); err != nil {
				t.Errorf("remount %s: %v", o, err)
			}
		})
		done <- nil
	}()
	if err := <-done; err != nil {
		t.Skipf("cannot mount a private tmpfs here: %v", err)
	}
}

func flagsOf(o string) uintptr {
	if strings.Contains(","+o+",", ",ro,") {
		return syscall.MS_RDONLY
	}
	return 0
}
