// Package persist holds HotKV's file formats: the snapshot (every key of
// every database, in checksummed blocks) and the append-only log (commands in
// checksummed records), with their encoders, decoders and checkers. It does
// no I/O scheduling: the server decides when to write and what to capture.
//
// Values are encoded by kind: each keyspace.Kind has one encoder/decoder
// pair (see RegisterKind), so a new value type is one pair away from being
// persisted. The formats are described in docs/persistence.md.
package persist

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/value/hash"
	"github.com/hotkv/hotkv/internal/value/list"
	"github.com/hotkv/hotkv/internal/value/set"
	"github.com/hotkv/hotkv/internal/value/zset"
)

// Enc appends encoded values to B.
type Enc struct{ B []byte }

// Uvarint appends v as an unsigned varint.
func (e *Enc) Uvarint(v uint64) { e.B = binary.AppendUvarint(e.B, v) }

// Varint appends v as a zig-zag varint.
func (e *Enc) Varint(v int64) { e.B = binary.AppendVarint(e.B, v) }

// Bytes appends b with its length.
func (e *Enc) Bytes(b []byte) {
	e.B = binary.AppendUvarint(e.B, uint64(len(b)))
	e.B = append(e.B, b...)
}

// String appends s with its length.
func (e *Enc) String(s string) {
	e.B = binary.AppendUvarint(e.B, uint64(len(s)))
	e.B = append(e.B, s...)
}

// Float64 appends f's IEEE bits, so every value (NaN payloads and -0
// included) comes back exactly.
func (e *Enc) Float64(f float64) { e.B = binary.LittleEndian.AppendUint64(e.B, math.Float64bits(f)) }

// ErrCorrupt is wrapped by every decoding error.
var ErrCorrupt = errors.New("corrupt data")

// Dec reads values from B. The first error sticks: later reads return zero
// values, so a decoder checks Err once at the end of what it reads.
type Dec struct {
	B   []byte
	Off int
	err error
}

func (d *Dec) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: bad %s at byte %d", ErrCorrupt, what, d.Off)
	}
	d.Off = len(d.B)
}

// Err is the first decoding error.
func (d *Dec) Err() error { return d.err }

// Left is the number of bytes not yet read.
func (d *Dec) Left() int { return len(d.B) - d.Off }

// Uvarint reads an unsigned varint.
func (d *Dec) Uvarint() uint64 {
	v, n := binary.Uvarint(d.B[d.Off:])
	if n <= 0 {
		d.fail("varint")
		return 0
	}
	d.Off += n
	return v
}

// Varint reads a zig-zag varint.
func (d *Dec) Varint() int64 {
	v, n := binary.Varint(d.B[d.Off:])
	if n <= 0 {
		d.fail("varint")
		return 0
	}
	d.Off += n
	return v
}

// Count reads a count of items that take at least min bytes each, refusing
// counts the remaining input cannot hold (so corrupt input never makes a
// decoder allocate for billions of items).
func (d *Dec) Count(min int) int {
	v := d.Uvarint()
	if v > uint64(d.Left()/min) {
		d.fail("count")
		return 0
	}
	return int(v)
}

// Bytes reads a length-prefixed byte string. The result aliases B.
func (d *Dec) Bytes() []byte {
	n := d.Uvarint()
	if n > uint64(d.Left()) {
		d.fail("length")
		return nil
	}
	b := d.B[d.Off : d.Off+int(n) : d.Off+int(n)]
	d.Off += int(n)
	return b
}

// Float64 reads a float written by Enc.Float64.
func (d *Dec) Float64() float64 { return math.Float64frombits(d.fixed64("float")) }

// fixed64 reads eight little-endian bytes (what names them if they are
// missing).
func (d *Dec) fixed64(what string) uint64 {
	if d.Left() < 8 {
		d.fail(what)
		return 0
	}
	v := binary.LittleEndian.Uint64(d.B[d.Off:])
	d.Off += 8
	return v
}

// Codec encodes and decodes the Obj of one kind of entry.
type Codec struct {
	Encode func(e *Enc, obj any)
	// Decode builds a fresh object; it must copy what it keeps from d.B and
	// return an error, never panic, on any input.
	Decode func(d *Dec) (any, error)
}

// codecs is indexed by keyspace.Kind, whose numbers are part of the file
// format: a kind keeps its number forever.
var codecs [256]*Codec

// RegisterKind makes entries of kind k persistable. Call it from an init.
func RegisterKind(k keyspace.Kind, c *Codec) { codecs[k] = c }

func init() {
	RegisterKind(keyspace.KindList, &Codec{Encode: encodeList, Decode: decodeList})
	RegisterKind(keyspace.KindHash, &Codec{Encode: encodeHash, Decode: decodeHash})
	RegisterKind(keyspace.KindSet, &Codec{Encode: encodeSet, Decode: decodeSet})
	RegisterKind(keyspace.KindZSet, &Codec{Encode: encodeZSet, Decode: decodeZSet})
}

// ErrUnknownKind is returned when an entry's kind has no codec.
var ErrUnknownKind = errors.New("no codec for value kind")

// EncodeEntry appends one key: kind, key, expiry, value.
func EncodeEntry(e *Enc, key string, en *keyspace.Entry) error {
	e.B = append(e.B, byte(en.Kind))
	e.String(key)
	e.Varint(en.Expire)
	return EncodeValue(e, en)
}

// EncodeValue appends en's value as EncodeEntry stores it. Strings (HLL and
// bitmaps are strings) are stored as their bytes.
func EncodeValue(e *Enc, en *keyspace.Entry) error {
	if en.Kind == keyspace.KindString {
		e.Bytes(en.Bytes())
		return nil
	}
	c := codecs[en.Kind]
	if c == nil {
		return fmt.Errorf("%w %s", ErrUnknownKind, en.Kind)
	}
	c.Encode(e, en.Obj)
	return nil
}

// DecodeEntry reads one key written by EncodeEntry. The key aliases d.B.
func DecodeEntry(d *Dec) (key []byte, en *keyspace.Entry, err error) {
	if d.Left() < 1 {
		return nil, nil, fmt.Errorf("%w: missing entry", ErrCorrupt)
	}
	kind := keyspace.Kind(d.B[d.Off])
	d.Off++
	key = d.Bytes()
	exp := d.Varint()
	if d.err != nil {
		return nil, nil, d.err
	}
	if exp < 0 {
		return nil, nil, fmt.Errorf("%w: negative expiry", ErrCorrupt)
	}
	en = &keyspace.Entry{Kind: kind, Expire: exp}
	if kind == keyspace.KindString {
		en.SetBytes(slices.Clone(d.Bytes()))
		if en.Bytes() == nil {
			en.SetBytes([]byte{})
		}
		return key, en, d.err
	}
	c := codecs[kind]
	if c == nil {
		return nil, nil, fmt.Errorf("%w: %w %d", ErrCorrupt, ErrUnknownKind, kind)
	}
	if en.Obj, err = c.Decode(d); err == nil {
		err = d.err
	}
	if err != nil {
		return nil, nil, err
	}
	return key, en, nil
}

func encodeList(e *Enc, obj any) {
	l := obj.(*list.List)
	e.Uvarint(uint64(l.Len()))
	l.Range(0, l.Len()-1, func(v []byte) bool { e.Bytes(v); return true })
}

func decodeList(d *Dec) (any, error) {
	n := d.Count(1)
	if n == 0 {
		return nil, emptyErr(d)
	}
	l := list.New()
	for range n {
		l.PushBack(slices.Clone(d.Bytes()))
	}
	return l, d.err
}

// emptyErr: no key holds an empty collection, so a zero count is corrupt.
func emptyErr(d *Dec) error {
	if d.err != nil {
		return d.err
	}
	return fmt.Errorf("%w: empty collection at byte %d", ErrCorrupt, d.Off)
}

// Hashes store each field with its expiry (0: none).
func encodeHash(e *Enc, obj any) {
	h := obj.(*hash.Hash)
	e.Uvarint(uint64(h.Len()))
	h.Range(func(f, v []byte) bool {
		e.Bytes(f)
		e.Bytes(v)
		e.Varint(h.Expiry(f))
		return true
	})
}

func decodeHash(d *Dec) (any, error) {
	n := d.Count(3)
	if n == 0 {
		return nil, emptyErr(d)
	}
	h := hash.New()
	for range n {
		f, v, at := d.Bytes(), d.Bytes(), d.Varint()
		if d.err != nil {
			return nil, d.err
		}
		if !h.Set(f, v) || at < 0 {
			return nil, fmt.Errorf("%w: duplicate field or bad field expiry at byte %d", ErrCorrupt, d.Off)
		}
		if at > 0 {
			h.SetExpiry(f, at)
		}
	}
	if h.Volatile() {
		h.MarkExpiry() // Redis loads a small hash with field TTLs as listpackex
	}
	return h, nil
}

func encodeSet(e *Enc, obj any) {
	s := obj.(*set.Set)
	e.Uvarint(uint64(s.Len()))
	s.Range(func(m []byte) bool { e.Bytes(m); return true })
}

func decodeSet(d *Dec) (any, error) {
	n := d.Count(1)
	if n == 0 {
		return nil, emptyErr(d)
	}
	var s *set.Set
	for i := range n {
		m := d.Bytes()
		if d.err != nil {
			return nil, d.err
		}
		if i == 0 {
			s = set.New(m, n)
		}
		if !s.Add(m) {
			return nil, fmt.Errorf("%w: duplicate set member at byte %d", ErrCorrupt, d.Off)
		}
	}
	return s, nil
}

// Sorted sets are written in (score, member) order, which lets the loader
// build the tree in one pass.
func encodeZSet(e *Enc, obj any) {
	z := obj.(*zset.ZSet)
	e.Uvarint(uint64(z.Len()))
	for it := z.At(0); it.Valid(); it.Next() {
		e.String(it.Member())
		e.Float64(it.Score())
	}
}

func decodeZSet(d *Dec) (any, error) {
	n := d.Count(9)
	if n == 0 {
		return nil, emptyErr(d)
	}
	members, scores := make([]string, n), make([]float64, n)
	sorted := true
	for i := range n {
		members[i], scores[i] = string(d.Bytes()), d.Float64()
		if d.err != nil {
			return nil, d.err
		}
		if math.IsNaN(scores[i]) {
			return nil, fmt.Errorf("%w: NaN score at byte %d", ErrCorrupt, d.Off)
		}
		if i > 0 && !(scores[i-1] < scores[i] || scores[i-1] == scores[i] && members[i-1] < members[i]) {
			sorted = false
		}
	}
	if sorted {
		if z := zset.FromSorted(members, scores); z.Len() == n {
			return z, nil
		}
		return nil, fmt.Errorf("%w: duplicate sorted set member", ErrCorrupt)
	}
	// Not the order this package writes: build it member by member, which
	// also catches duplicates.
	maxLen := 0
	for _, m := range members {
		maxLen = max(maxLen, len(m))
	}
	z := zset.New(n, maxLen)
	for i, m := range members {
		if !z.Set(m, scores[i]) {
			return nil, fmt.Errorf("%w: duplicate sorted set member", ErrCorrupt)
		}
	}
	return z, nil
}
