// Package listpack computes the sizes Redis's listpack encoding gives its
// entries, which decide when Redis converts a list or closes a stream node
// (list-max-listpack-size, stream-node-max-bytes): HotKV stores its values
// in its own layouts and keeps these sizes to make the same decisions.
package listpack

import "github.com/hotkv/hotkv/internal/intstr"

// Header is the bytes of an empty listpack: its total bytes (4), entry
// count (2) and end marker (1).
const Header = 7

// EntrySize is the bytes v takes as a listpack entry: a string Redis would
// parse as an integer (intstr.Parse) is stored as one (IntSize), others
// with a 1, 2 or 5 byte header; every entry ends with its length in 1 to 5
// bytes.
func EntrySize(v []byte) int {
	if n, ok := intstr.Parse(v); ok {
		return IntSize(n)
	}
	var enc int
	switch {
	case len(v) < 64:
		enc = 1 + len(v)
	case len(v) < 4096:
		enc = 2 + len(v)
	default:
		enc = 5 + len(v)
	}
	return enc + backlen(enc)
}

// IntSize is the bytes integer v takes as a listpack entry.
func IntSize(v int64) int {
	switch {
	case v >= 0 && v <= 127:
		return 2
	case v >= -4096 && v <= 4095:
		return 3
	case v >= -32768 && v <= 32767:
		return 4
	case v >= -8388608 && v <= 8388607:
		return 5
	case v >= -2147483648 && v <= 2147483647:
		return 6
	}
	return 10
}

// backlen is the bytes an entry's trailing length takes for an entry of
// enc bytes.
func backlen(enc int) int {
	switch {
	case enc <= 127:
		return 1
	case enc < 16383:
		return 2
	case enc < 2097151:
		return 3
	case enc < 268435455:
		return 4
	}
	return 5
}
