// Package rdb serializes single values in Redis's RDB format, as DUMP and
// RESTORE exchange them: a type byte, the value, the RDB version (2 bytes,
// little endian) and a CRC64 of all that (8 bytes, little endian). A
// payload made by Redis 8.0's DUMP loads here and the other way round.
//
// Decoding validates everything before building a value, as Redis does
// with sanitize-dump-payload yes: malformed input is ErrBadData, never a
// panic or a half-built value.
package rdb

import (
	"encoding/binary"
	"errors"
	"math"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/intstr"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/value/hash"
	"github.com/hotkv/hotkv/internal/value/list"
	"github.com/hotkv/hotkv/internal/value/set"
	"github.com/hotkv/hotkv/internal/value/stream"
	"github.com/hotkv/hotkv/internal/value/zset"
)

// Version is the RDB version of Redis 8.0, written in payloads; RESTORE
// refuses newer ones, whose types it may not know.
const Version = 12

// RDB value types (Redis's rdb.h).
const (
	typeString          = 0
	typeList            = 1
	typeSet             = 2
	typeZSet            = 3
	typeHash            = 4
	typeZSet2           = 5
	typeHashZipmap      = 9
	typeListZiplist     = 10
	typeSetIntset       = 11
	typeZSetZiplist     = 12
	typeHashZiplist     = 13
	typeListQuicklist   = 14
	typeStreamListpacks = 15
	typeHashListpack    = 16
	typeZSetListpack    = 17
	typeListQuicklist2  = 18
	typeStream2         = 19
	typeSetListpack     = 20
	typeStream3         = 21
	typeHashMetadata    = 24
	typeHashListpackEx  = 25
)

// Quicklist node containers.
const (
	containerPlain  = 1
	containerPacked = 2
)

var (
	// ErrBadData is a payload whose value does not decode.
	ErrBadData = errors.New("Bad data format")
	// ErrExpired is a hash whose fields have all expired: RESTORE then
	// creates nothing, as Redis does.
	ErrExpired = errors.New("every field has expired")
	// ErrUnsupported is a value with no RDB form here (vector sets are a
	// module type in Redis).
	ErrUnsupported = errors.New("value type has no DUMP form")
)

// footer is the version and CRC after the value.
const footer = 10

// SkipChecksum is DEBUG SET-SKIP-CHECKSUM-VALIDATION's switch: while set,
// Verify checks a payload's version but not its CRC, as Redis's
// skip_checksum_validation does (its tests feed RESTORE corrupt payloads).
var SkipChecksum atomic.Bool

// ErrBadPayload is RESTORE's and FUNCTION RESTORE's reply to a payload that
// Verify refuses.
const ErrBadPayload = "ERR DUMP payload version or checksum are wrong"

// Verify checks a payload's version and checksum (verifyDumpPayload).
func Verify(p []byte) bool {
	if len(p) < footer {
		return false
	}
	if binary.LittleEndian.Uint16(p[len(p)-footer:]) > Version {
		return false
	}
	return SkipChecksum.Load() || binary.LittleEndian.Uint64(p[len(p)-8:]) == CRC64(0, p[:len(p)-8])
}

// Dump returns e's payload. Hash fields expired by now are left out;
// ErrExpired means none is left.
func Dump(e *keyspace.Entry, now int64) ([]byte, error) {
	w, err := encode(e, now)
	if err != nil {
		return nil, err
	}
	return Seal(w.b), nil
}

// SavedLen is the length of e's RDB serialization without its type byte,
// as Redis's rdbSavedObjectLen counts it (DEBUG OBJECT's serializedlength).
// Strings are never LZF-compressed here: the length is Redis's with
// rdbcompression no.
func SavedLen(e *keyspace.Entry, now int64) (int, error) {
	w, err := encode(e, now)
	if err != nil {
		return 0, err
	}
	n := len(w.b) - 1
	if t := w.b[0]; t == typeHashListpackEx || t == typeHashMetadata {
		n -= 8 // Redis does not count the earliest field expiry it writes first
	}
	return n, nil
}

// encode writes e's type byte and value.
func encode(e *keyspace.Entry, now int64) (*writer, error) {
	w := &writer{}
	var err error
	switch e.Kind {
	case keyspace.KindString:
		w.b = append(w.b, typeString)
		w.str(e.Bytes())
	case keyspace.KindList:
		dumpList(w, e.Obj.(*list.List))
	case keyspace.KindSet:
		dumpSet(w, e.Obj.(*set.Set))
	case keyspace.KindZSet:
		dumpZSet(w, e.Obj.(*zset.ZSet))
	case keyspace.KindHash:
		err = dumpHash(w, e.Obj.(*hash.Hash), now)
	case keyspace.KindStream:
		dumpStream(w, e.Obj.(*stream.Stream))
	default:
		err = ErrUnsupported
	}
	return w, err
}

// Seal appends DUMP's footer to a payload: the RDB version and the CRC-64
// of everything before it.
func Seal(b []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, Version)
	return binary.LittleEndian.AppendUint64(b, CRC64(0, b))
}

// AppendString appends s as an RDB string (FUNCTION DUMP's library code).
func AppendString(b, s []byte) []byte {
	w := &writer{b: b}
	w.str(s)
	return w.b
}

// ReadString reads an RDB string (raw, integer or LZF-compressed) from the
// front of b and returns it with the bytes after it.
func ReadString(b []byte) (s, rest []byte, ok bool) {
	r := &reader{b: b}
	s = r.str()
	if r.bad {
		return nil, nil, false
	}
	return s, b[r.off:], true
}

// Load decodes a payload that passed Verify into a new entry without
// expiry. Hash fields whose time ran out before now are dropped, as Redis
// drops them. As in Redis, the value is read from the whole payload: bytes
// after it are ignored, and a value running into the footer reads it.
func Load(p []byte, now int64) (*keyspace.Entry, error) {
	r := &reader{b: p}
	typ := r.byte()
	var (
		kind keyspace.Kind
		obj  any
		err  error
	)
	switch typ {
	case typeString:
		b := r.str()
		if r.bad {
			return nil, ErrBadData
		}
		return keyspace.NewString(append([]byte{}, b...)), nil
	case typeList, typeListZiplist, typeListQuicklist, typeListQuicklist2:
		kind, obj = keyspace.KindList, orNil(loadList(r, typ))
	case typeSet, typeSetIntset, typeSetListpack:
		kind, obj = keyspace.KindSet, orNil(loadSet(r, typ))
	case typeZSet, typeZSet2, typeZSetZiplist, typeZSetListpack:
		kind, obj = keyspace.KindZSet, orNil(loadZSet(r, typ))
	case typeHash, typeHashZipmap, typeHashZiplist, typeHashListpack, typeHashMetadata, typeHashListpackEx:
		kind = keyspace.KindHash
		var h *hash.Hash
		h, err = loadHash(r, typ, now)
		obj = orNil(h)
	case typeStreamListpacks, typeStream2, typeStream3:
		kind, obj = keyspace.KindStream, orNil(loadStream(r, typ))
	default:
		return nil, ErrBadData
	}
	if err != nil {
		return nil, err
	}
	if r.bad || obj == nil {
		return nil, ErrBadData
	}
	return &keyspace.Entry{Kind: kind, Obj: obj}, nil
}

// orNil keeps a failed loader's nil pointer from becoming a non-nil any.
func orNil[T any](v *T) any {
	if v == nil {
		return nil
	}
	return v
}

// writer appends RDB primitives.
type writer struct{ b []byte }

// length appends n in the shortest RDB length form.
func (w *writer) length(n uint64) {
	switch {
	case n < 1<<6:
		w.b = append(w.b, byte(n))
	case n < 1<<14:
		w.b = append(w.b, 0x40|byte(n>>8), byte(n))
	case n <= math.MaxUint32:
		w.b = append(w.b, 0x80)
		w.b = binary.BigEndian.AppendUint32(w.b, uint32(n))
	default:
		w.b = append(w.b, 0x81)
		w.b = binary.BigEndian.AppendUint64(w.b, n)
	}
}

// str appends a string, as an integer when it is one that fits 32 bits, as
// rdbSaveRawString does. HotKV does not LZF-compress.
func (w *writer) str(s []byte) {
	if len(s) <= 11 {
		if v, ok := intstr.Parse(s); ok && v >= math.MinInt32 && v <= math.MaxInt32 {
			switch {
			case v >= math.MinInt8 && v <= math.MaxInt8:
				w.b = append(w.b, 0xc0, byte(v))
			case v >= math.MinInt16 && v <= math.MaxInt16:
				w.b = append(w.b, 0xc1)
				w.b = binary.LittleEndian.AppendUint16(w.b, uint16(v))
			default:
				w.b = append(w.b, 0xc2)
				w.b = binary.LittleEndian.AppendUint32(w.b, uint32(v))
			}
			return
		}
	}
	w.length(uint64(len(s)))
	w.b = append(w.b, s...)
}

// raw appends a blob (a listpack, an intset) with its length.
func (w *writer) raw(b []byte) {
	w.length(uint64(len(b)))
	w.b = append(w.b, b...)
}

func (w *writer) fixed64(v uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
