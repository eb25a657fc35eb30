package keyspace

import "unsafe"

// A string entry is created as one allocation holding the Entry, its key and
// the value: looking a key up then touches one object (the table compares
// the key, the handler reads the entry and its value) instead of three, and the collector has a third of the objects to track. The key
// bytes are never written after creation; the value occupies the rest of the
// buffer, so an overwrite or an append that fits stays in place.
//
// The buffer sizes make Entry+buffer fill a Go size class exactly (Entry is
// 56 bytes; classes 64, 80, 96, 112, 128, 160, 192, 256), so no rounding is
// wasted. Longer keys and values are allocated separately, as before.
type inline[B any] struct {
	Entry
	buf B
}

func newInline[B any]() (*Entry, []byte) {
	p := new(inline[B])
	return &p.Entry, unsafe.Slice((*byte)(unsafe.Pointer(&p.buf)), unsafe.Sizeof(p.buf))
}

// maxInline is the largest key+value stored with its entry.
const maxInline = 200

// newStringEntry makes a string entry for key and val, returning it with the
// key string to store it under (which may alias the entry's memory).
func newStringEntry(key, val []byte) (*Entry, string) {
	n := len(key) + len(val)
	if n > maxInline {
		n = len(key) // the key alone may still fit
	}
	var e *Entry
	var buf []byte
	switch {
	case n <= 8:
		e, buf = newInline[[8]byte]()
	case n <= 24:
		e, buf = newInline[[24]byte]()
	case n <= 40:
		e, buf = newInline[[40]byte]()
	case n <= 56:
		e, buf = newInline[[56]byte]()
	case n <= 72:
		e, buf = newInline[[72]byte]()
	case n <= 104:
		e, buf = newInline[[104]byte]()
	case n <= 136:
		e, buf = newInline[[136]byte]()
	case n <= maxInline:
		e, buf = newInline[[maxInline]byte]()
	default:
		return NewString(append(make([]byte, 0, len(val)), val...)), string(key)
	}
	copy(buf, key)
	k := unsafe.String(unsafe.SliceData(buf), len(key))
	e.Kind = KindString
	if rest := buf[len(key):]; len(val) <= len(rest) {
		e.SetBytes(append(rest[:0:len(rest)], val...))
	} else {
		e.SetBytes(append(make([]byte, 0, len(val)), val...))
	}
	return e, k
}
