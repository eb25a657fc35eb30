//go:build !amd64

package tick

import "time"

const counter = false

var base = time.Now()

// Now returns monotonic nanoseconds since the process started.
func Now() int64 { return int64(time.Since(base)) }
