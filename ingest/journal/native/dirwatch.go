//go:build linux

package native

import (
	"encoding/binary"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dirWatch is the native backend's waiting: inotify on the journal directories (files
// created, renamed, deleted) and on the files journald writes (IN_MODIFY, which journald raises
// through an ftruncate at most every 250 ms after appending), plus a timerfd for the wait's
// timeout. Both sit in an epoll set of our own, which sits in Go's netpoller. Why not a read
// deadline: every Go timer that expires wakes the scheduler's monitor thread (sysmon), which
// then polls for milliseconds; 50 polls a second made it a quarter of the daemon's CPU (perf).
// A nil *dirWatch (reading without following) ignores every call.
type dirWatch struct {
	ep    *os.File // the epoll set, in the netpoller
	conn  syscall.RawConn
	fd    int // inotify, non-blocking
	tfd   int // timerfd, non-blocking
	dirs  map[string]int32
	isDir map[int32]bool
	dirty bool
	buf   [4096]byte
}

func newDirWatch() (_ *dirWatch, err error) {
	w := &dirWatch{fd: -1, tfd: -1, dirs: map[string]int32{}, isDir: map[int32]bool{}}
	defer func() {
		if err != nil {
			w.close()
		}
	}()
	if w.fd, err = unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC); err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	if w.tfd, err = unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC); err != nil {
		return nil, fmt.Errorf("timerfd: %w", err)
	}
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll: %w", err)
	}
	if err := unix.SetNonblock(ep, true); err != nil { // so that the netpoller takes it
		unix.Close(ep)
		return nil, fmt.Errorf("epoll: %w", err)
	}
	w.ep = os.NewFile(uintptr(ep), "journal-wait")
	for _, fd := range []int{w.fd, w.tfd} {
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}); err != nil {
			return nil, fmt.Errorf("epoll: %w", err)
		}
	}
	if w.conn, err = w.ep.SyscallConn(); err != nil {
		return nil, fmt.Errorf("epoll: %w", err)
	}
	return w, nil
}

// addDir watches a directory once; one that does not exist (yet) is left unwatched, and the
// periodic rescan finds its files.
func (w *dirWatch) addDir(path string) {
	if w == nil {
		return
	}
	if _, ok := w.dirs[path]; ok {
		return
	}
	wd, err := syscall.InotifyAddWatch(w.fd, path, syscall.IN_CREATE|syscall.IN_MOVED_TO|syscall.IN_MOVED_FROM|syscall.IN_DELETE|syscall.IN_ONLYDIR)
	if err != nil {
		return
	}
	w.dirs[path], w.isDir[int32(wd)] = int32(wd), true
}

// addFile watches a file journald writes; -1 when it cannot (polling still finds appends).
func (w *dirWatch) addFile(path string) int32 {
	if w == nil {
		return -1
	}
	wd, err := syscall.InotifyAddWatch(w.fd, path, syscall.IN_MODIFY)
	if err != nil {
		return -1
	}
	return int32(wd)
}

func (w *dirWatch) rmFile(wd int32) {
	if w != nil && wd >= 0 && !w.isDir[wd] {
		syscall.InotifyRmWatch(w.fd, uint32(wd))
	}
}

// wait blocks until an event arrives or d passes. Only raw system calls: a normal one also
// wakes the monitor thread.
func (w *dirWatch) wait(d time.Duration) {
	w.arm(d)
	w.conn.Read(func(uintptr) bool {
		var ev [2]unix.EpollEvent
		n, _, _ := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(w.ep.Fd()), uintptr(unsafe.Pointer(&ev[0])), 2, 0, 0, 0)
		return int(n) > 0
	})
	w.arm(0)
	var t [8]byte
	unix.RawSyscall(unix.SYS_READ, uintptr(w.tfd), uintptr(unsafe.Pointer(&t[0])), 8) // clear an expiry
	for w.readRaw() == nil {
	}
}

// arm sets the timer to fire once after d; 0 disarms it.
func (w *dirWatch) arm(d time.Duration) {
	its := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(w.tfd), 0, uintptr(unsafe.Pointer(&its)), 0, 0, 0)
}

// drain reads the events queued without blocking and reports whether a directory changed
// since the last drain.
func (w *dirWatch) drain() bool {
	if w == nil {
		return false
	}
	for w.readRaw() == nil {
	}
	d := w.dirty
	w.dirty = false
	return d
}

// readRaw reads one buffer of events; EAGAIN when none are queued.
func (w *dirWatch) readRaw() error {
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(w.fd), uintptr(unsafe.Pointer(&w.buf[0])), uintptr(len(w.buf)))
	if e != 0 {
		return e
	}
	if int(n) <= 0 {
		return syscall.EAGAIN
	}
	w.parse(w.buf[:n])
	return nil
}

// parse notes directory events; a queue overflow counts as one, as anything may have changed.
func (w *dirWatch) parse(b []byte) {
	for len(b) >= syscall.SizeofInotifyEvent {
		wd := int32(binary.LittleEndian.Uint32(b))
		mask := binary.LittleEndian.Uint32(b[4:])
		if w.isDir[wd] || mask&syscall.IN_Q_OVERFLOW != 0 {
			w.dirty = true
		}
		b = b[min(len(b), syscall.SizeofInotifyEvent+int(binary.LittleEndian.Uint32(b[12:]))):]
	}
}

func (w *dirWatch) close() {
	if w.ep != nil {
		w.ep.Close()
	}
	for _, fd := range []int{w.fd, w.tfd} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}
