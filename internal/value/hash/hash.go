// Package hash is the hash value type: fields mapped to values, each field
// optionally with its own expiry time.
//
// A small hash lives in one byte slice of length-prefixed field/value pairs,
// as Redis keeps small hashes in a listpack: a handful of fields then costs a
// few dozen bytes instead of a table plus two string allocations per field.
// A hash that outgrows it moves to a dict.Dict, whose reverse-binary cursor
// gives HSCAN its guarantee and whose dense entries give HRANDFIELD uniform
// picks. Field deadlines are kept apart (see deadlines) so that hashes
// without them pay nothing.
//
// Byte slices returned by a Hash are views into its storage: valid until the
// next modification, and never to be written to.
package hash

import (
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/hotkv/hotkv/internal/value/dict"
)

// Redis's defaults for hash-max-listpack-entries and hash-max-listpack-value:
// past either, Redis converts a hash to a hashtable for good, and OBJECT
// ENCODING reports what Redis would.
const (
	DefaultListpackEntries = 512
	DefaultListpackValue   = 64
)

// The thresholds in force: process-wide, as Redis's, read with atomic loads
// on every write (SetThresholds sets them). A hash crosses them when a write
// takes it past one, and stays a hashtable for good.
var maxListpackEntries, maxListpackValue atomic.Int64

func init() { SetThresholds(DefaultListpackEntries, DefaultListpackValue) }

// SetThresholds sets hash-max-listpack-entries and hash-max-listpack-value
// (each 0 to 2^63-1). Hashes already past a new threshold keep their
// encoding; they convert at their next write that crosses one.
func SetThresholds(entries, value int64) {
	maxListpackEntries.Store(entries)
	maxListpackValue.Store(value)
}

// compactEntries and compactValue bound the compact form, whatever the
// thresholds: past them it gives way to the dict. Compact lookups are
// linear scans (a one-byte tag per field skips most comparisons): at 32
// fields HGET's lookup costs about 70ns against the dict's 20ns, and the
// gap grows linearly past that (BenchmarkGet), while the compact form takes
// about a quarter of the table's memory. Redis scans its listpacks up to
// hash-max-listpack-entries; HotKV stops earlier and only reports the
// encoding Redis would (wide).
const (
	compactEntries = 32
	compactValue   = 64
)

// Hash is a hash value. The zero value is an empty hash.
type Hash struct {
	// Compact form: pairs of [len][tag][field][len][value], field and value
	// at most compactValue bytes so that a length fits in one byte; tag is
	// a one-byte hash of the field that lets lookups skip most pairs
	// without comparing them.
	blob []byte
	d    *dict.Dict[uint32] // table form, field -> value length (see pairString); blob is nil once d is set
	ttl  *deadlines         // field expiry times; nil while no field has one
	n    int32              // compact pairs (at most compactEntries): 48 bytes in all, a smaller size class than with an int
	wide bool               // Redis would hold it as a hashtable
	ex   bool               // an expiry command saw it while it was a listpack
}

// New returns an empty hash.
func New() *Hash { return &Hash{} }

// view returns s's bytes without copying; callers must not write to them.
func view(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// transient returns b as a string without copying, for lookups only: the
// result must not be kept.
func transient(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// Len is the number of fields, expired ones not yet reclaimed included.
func (h *Hash) Len() int {
	if h.d != nil {
		return h.d.Len()
	}
	return int(h.n)
}

// pair decodes the compact pair at offset i.
func (h *Hash) pair(i int) (f, v []byte, next int) {
	b := h.blob
	fl := int(b[i])
	f = b[i+2 : i+2+fl]
	vl := int(b[i+2+fl])
	v = b[i+3+fl : i+3+fl+vl]
	return f, v, i + 3 + fl + vl
}

// tag is a one-byte FNV-1a hash of a field.
func tag(f []byte) byte {
	x := uint32(2166136261)
	for _, c := range f {
		x = (x ^ uint32(c)) * 16777619
	}
	return byte(x ^ x>>8 ^ x>>16 ^ x>>24)
}

// find returns the offset of field's compact pair, or -1.
func (h *Hash) find(f []byte) int {
	b := h.blob
	t := tag(f)
	for i := 0; i < len(b); {
		fl := int(b[i])
		if fl == len(f) && b[i+1] == t && string(b[i+2:i+2+fl]) == string(f) {
			return i
		}
		i += 3 + fl + int(b[i+2+fl])
	}
	return -1
}

// PrefetchMember is dict.Dict.Prefetch for field in a hash held as a table.
func (h *Hash) PrefetchMember(field []byte, step int, hash *uint32) bool {
	return h.d != nil && h.d.Prefetch(field, step, hash)
}

// Get returns field's value.
func (h *Hash) Get(f []byte) ([]byte, bool) {
	if h.d != nil {
		k, n := h.d.Lookup(transient(f))
		if n == nil {
			return nil, false
		}
		return value(k, *n), true
	}
	i := h.find(f)
	if i < 0 {
		return nil, false
	}
	_, v, _ := h.pair(i)
	return v, true
}

// Exists reports whether field is present.
func (h *Hash) Exists(f []byte) bool {
	if h.d != nil {
		_, ok := h.d.Get(transient(f))
		return ok
	}
	return h.find(f) >= 0
}

// Set stores value under field, dropping any expiry the field had (as HSET
// does), and reports whether the field is new.
func (h *Hash) Set(f, v []byte) bool {
	had := h.Expiry(f) != 0
	h.dropExpiry(f)
	isNew := h.set(f, v)
	if had && h.d == nil {
		h.reorder(f, 0)
	}
	return isNew
}

// SetKeepTTL stores value under field keeping the field's expiry (HINCRBY,
// HSETEX KEEPTTL), and reports whether the field is new.
func (h *Hash) SetKeepTTL(f, v []byte) bool { return h.set(f, v) }

func (h *Hash) set(f, v []byte) bool {
	if !h.wide {
		if limit := maxListpackValue.Load(); int64(len(f)) > limit || int64(len(v)) > limit {
			h.widen()
		}
	}
	if h.d == nil && (len(f) > compactValue || len(v) > compactValue) {
		h.toDict()
	}
	if h.d != nil {
		isNew := h.d.Put(pairString(f, v), uint32(len(v)))
		// As Redis, after an update too: a listpack left past a lowered
		// hash-max-listpack-entries converts at its next write.
		if !h.wide && int64(h.d.Len()) > maxListpackEntries.Load() {
			h.wide = true
		}
		return isNew
	}
	if i := h.find(f); i >= 0 {
		start := i + 3 + len(f)
		old := int(h.blob[start-1])
		if old == len(v) {
			copy(h.blob[start:], v)
		} else {
			h.blob[start-1] = byte(len(v))
			h.blob = slices.Replace(h.blob, start, start+old, v...)
		}
		if int64(h.n) > maxListpackEntries.Load() {
			h.widen()
		}
		return false
	}
	if h.n == compactEntries || int64(h.n) >= maxListpackEntries.Load() {
		h.toDict()
		h.d.Set(pairString(f, v), uint32(len(v)))
		if int64(h.d.Len()) > maxListpackEntries.Load() {
			h.wide = true
		}
		return true
	}
	h.blob = append(h.blob, byte(len(f)), tag(f))
	h.blob = append(h.blob, f...)
	h.blob = append(h.blob, byte(len(v)))
	h.blob = append(h.blob, v...)
	h.n++
	return true
}

// pairString copies field and value into one allocation and returns the
// field as a string over its start; the value follows it, and the dict keeps
// its length (value reads it back). One object per field, and an entry of
// 24 bytes instead of the 40 that two string headers would take.
func pairString(f, v []byte) string {
	if len(f)+len(v) == 0 {
		return ""
	}
	b := make([]byte, len(f)+len(v))
	copy(b, f)
	copy(b[len(f):], v)
	return unsafe.String(&b[0], len(f))
}

// value is the n bytes stored after field k by pairString.
func value(k string, n uint32) []byte {
	if n == 0 {
		return nil // also keeps the pointer arithmetic inside the allocation
	}
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(k)), len(k))), n)
}

// widen makes the hash what Redis calls a hashtable, for good.
func (h *Hash) widen() {
	h.wide = true
	if h.d == nil {
		h.toDict()
	}
}

// Reserve converts the hash to a hashtable when a command is about to set
// pairs fields and more than hash-max-listpack-entries, as Redis's
// hashTypeTryConversion does (whether or not the fields exist).
func (h *Hash) Reserve(pairs int) {
	if !h.wide && int64(pairs) > maxListpackEntries.Load() {
		h.widen()
	}
}

// FitCount picks the encoding of a hash loaded from a listpack payload
// (RESTORE): Redis checks only its field count, so a field or value longer
// than hash-max-listpack-value stays in the listpack.
func (h *Hash) FitCount() {
	h.wide = false
	if int64(h.Len()) > maxListpackEntries.Load() {
		h.widen()
	}
}

// toDict moves the compact pairs into a dict.
func (h *Hash) toDict() {
	d := dict.New[uint32](int(h.n) + 1)
	for i := 0; i < len(h.blob); {
		f, v, next := h.pair(i)
		d.Set(pairString(f, v), uint32(len(v)))
		i = next
	}
	h.d, h.blob, h.n = d, nil, 0
}

// reorder moves field's compact pair to where Redis's listpackex keeps it,
// so that small hashes iterate in Redis's order: fields by expiry time (at),
// a new time going before equal ones, then the fields without one.
func (h *Hash) reorder(f []byte, at int64) {
	i := h.find(f)
	if i < 0 {
		return
	}
	_, _, next := h.pair(i)
	var buf [3 + 2*compactValue]byte
	p := append(buf[:0], h.blob[i:next]...)
	h.blob = slices.Delete(h.blob, i, next)
	pos := len(h.blob)
	for j := 0; at != 0 && j < len(h.blob); {
		g, _, nj := h.pair(j)
		if t := h.Expiry(g); t == 0 || t >= at {
			pos = j
			break
		}
		j = nj
	}
	h.blob = slices.Insert(h.blob, pos, p...)
}

// Delete removes field and reports whether it was present.
func (h *Hash) Delete(f []byte) bool {
	h.dropExpiry(f)
	return h.del(f)
}

func (h *Hash) del(f []byte) bool {
	if h.d != nil {
		return h.d.Delete(transient(f))
	}
	i := h.find(f)
	if i < 0 {
		return false
	}
	_, _, next := h.pair(i)
	h.blob = slices.Delete(h.blob, i, next)
	h.n--
	if h.n == 0 {
		h.blob = nil
	}
	return true
}

// Range calls fn for each field until it returns false. fn must not modify h.
func (h *Hash) Range(fn func(f, v []byte) bool) {
	if h.d != nil {
		h.d.Range(func(k string, n uint32) bool { return fn(view(k), value(k, n)) })
		return
	}
	for i := 0; i < len(h.blob); {
		f, v, next := h.pair(i)
		if !fn(f, v) {
			return
		}
		i = next
	}
}

// Scan visits fields from cursor and returns the next cursor, 0 at the end.
// A hash Redis would keep as a listpack is returned whole in one call, as
// Redis does; a larger one follows the dict's cursor, visiting about count
// fields.
func (h *Hash) Scan(cursor uint64, count int, fn func(f, v []byte)) uint64 {
	if h.wide {
		return h.d.Scan(cursor, count, func(k string, n uint32) { fn(view(k), value(k, n)) })
	}
	h.Range(func(f, v []byte) bool { fn(f, v); return true })
	return 0
}

// Random calls fn for count random fields: independent picks when repeat
// is set, else count distinct fields (fewer when the hash is smaller).
func (h *Hash) Random(r *rand.Rand, count int, repeat bool, fn func(f, v []byte)) {
	n := h.Len()
	if n == 0 || count <= 0 {
		return
	}
	if !repeat && count >= n {
		h.Range(func(f, v []byte) bool { fn(f, v); return true })
		return
	}
	if h.d == nil {
		offs := make([]int, 0, h.n)
		for i := 0; i < len(h.blob); {
			offs = append(offs, i)
			_, _, i = h.pair(i)
		}
		pick := func(i int) { f, v, _ := h.pair(offs[i]); fn(f, v) }
		if repeat {
			for ; count > 0; count-- {
				pick(r.IntN(n))
			}
			return
		}
		for i := 0; i < count; i++ { // partial Fisher-Yates
			j := i + r.IntN(n-i)
			offs[i], offs[j] = offs[j], offs[i]
			pick(i)
		}
		return
	}
	if repeat {
		for ; count > 0; count-- {
			k, n, _ := h.d.Random(r)
			fn(view(k), value(k, n))
		}
		return
	}
	if count*3 > n {
		// Most of the hash is wanted: shuffle a copy rather than retry
		// random picks that hit fields already taken.
		type kv struct {
			k string
			n uint32
		}
		all := make([]kv, 0, n)
		h.d.Range(func(k string, vn uint32) bool { all = append(all, kv{k, vn}); return true })
		for i := 0; i < count; i++ {
			j := i + r.IntN(n-i)
			all[i], all[j] = all[j], all[i]
			fn(view(all[i].k), value(all[i].k, all[i].n))
		}
		return
	}
	seen := make(map[string]struct{}, count)
	for len(seen) < count {
		k, vn, _ := h.d.Random(r)
		if _, dup := seen[k]; dup {
			continue
		}
		seen[k] = struct{}{}
		fn(view(k), value(k, vn))
	}
}

// Encoding is what OBJECT ENCODING reports: what Redis would use for the
// same history of writes with the same thresholds.
func (h *Hash) Encoding() string {
	switch {
	case h.wide:
		return "hashtable"
	case h.ex:
		return "listpackex"
	}
	return "listpack"
}

// Chains calls fn with each bucket chain's length of the table behind a
// hash Redis holds as a hashtable (DEBUG HTSTATS-KEY), and reports false
// for a listpack, which Redis keeps in no table.
func (h *Hash) Chains(fn func(n int)) bool {
	if !h.wide || h.d == nil {
		return false
	}
	h.d.Chains(fn)
	return true
}

// MarkExpiry records that a field-expiry command ran on the hash, which
// makes Redis switch a listpack to listpackex.
func (h *Hash) MarkExpiry() { h.ex = true }

// Clone returns a deep copy (for COPY).
func (h *Hash) Clone() any {
	c := &Hash{n: h.n, wide: h.wide, ex: h.ex}
	if h.blob != nil {
		c.blob = slices.Clone(h.blob)
	}
	if h.d != nil {
		c.d = dict.New[uint32](h.d.Len())
		h.d.Range(func(k string, n uint32) bool { c.d.Set(k, n); return true }) // immutable: shared
	}
	if h.ttl != nil {
		c.ttl = h.ttl.clone()
	}
	return c
}
