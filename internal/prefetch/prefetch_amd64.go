//go:build amd64 && !purego

package prefetch

import "unsafe"

// Lines starts loading n cache lines (64 bytes each) from p into every
// cache level. It never faults: p may point anywhere.
//
//go:noescape
func Lines(p unsafe.Pointer, n int)
