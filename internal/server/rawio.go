package server

import (
	"syscall"
	"unsafe"
)

// sysRead and sysWrite are read(2) and write(2) on the connection's
// non-blocking socket, made without the runtime's entersyscall/exitsyscall.
// They never block (a full or empty socket answers EAGAIN), but on a virtual
// machine a socket write that delivers to a local peer takes 5-20 µs. Through
// the syscall package that is long enough for the runtime's monitor thread
// to find the P in a system call and hand it to another thread, waking a
// thread per request and keeping the monitor itself polling every 20 µs: at
// pipeline depth 1 it burnt 14% of the server's CPU on one core.
func sysRead(fd int, p []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	return int(n), e
}

func sysWrite(fd int, p []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	return int(n), e
}
