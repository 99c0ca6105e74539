// Package privilege checks the packaged unit's privilege claims on the running daemon: the
// unit's sandbox rebuilt without systemd as PID 1 (TestPrivilegeSandboxedDaemon, root), its
// settings as `systemd-analyze security` reads them, and every system call the daemon makes
// against the unit's SystemCallFilter= (TestUnitSyscallFilterAllowsSpecwatch, strace). It has no
// code of its own.
package privilege
