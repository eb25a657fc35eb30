//go:build !amd64 || purego

package prefetch

import "unsafe"

// Lines is a no-op where no prefetch instruction is wired up.
func Lines(p unsafe.Pointer, n int) {}
