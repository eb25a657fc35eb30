package rdb

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/hotkv/hotkv/internal/keyspace"
)

// A Redis RDB file (what SAVE, BGSAVE and a full resynchronization write)
// is the magic "REDIS" and a four-digit version, then opcodes and keys, an
// EOF opcode and, from version 5, the CRC-64 of everything before it (0:
// not computed, as Redis writes with rdbchecksum no). ReadFile reads one
// from a stream, one value at a time: memory is that of the largest value,
// not of the file, so a replica can read its master's RDB from the socket.
//
// Each value is first skimmed: its structure is walked and its bytes kept,
// which finds where it ends without decoding it; then Load decodes those
// bytes exactly as RESTORE does, with the same validation.

// MinFileVersion and MaxFileVersion bound the RDB versions ReadFile reads:
// Redis 2.6 (version 6) to Redis 8.0 (12; Valkey 8 writes 11). Older ones
// have value encodings the decoder does not know (ziplist lists came in
// version 6 as today's).
const (
	MinFileVersion = 1
	MaxFileVersion = Version
)

// FileError is a file that cannot be read: what was wrong and the offset of
// the item (opcode or key) holding it.
type FileError struct {
	Offset int64
	Err    error
}

func (e *FileError) Error() string {
	return fmt.Sprintf("RDB file, item at offset %d: %v", e.Offset, e.Err)
}
func (e *FileError) Unwrap() error { return e.Err }

// ErrModule is a module value or module aux data: HotKV has no modules.
var ErrModule = errors.New("module data")

// Key is one key as read from the file.
type Key struct {
	DB    int
	Key   []byte // valid until the callback returns
	Entry *keyspace.Entry
	// Expire is the key's expiry (unix ms, 0: none), also set on Entry.
	Expire int64
	// Idle is the LRU idle time in seconds (-1: none in the file); Freq the
	// LFU counter (-1: none). Redis writes the one of its maxmemory policy.
	Idle int64
	Freq int
}

// FileHandler receives what ReadFile reads. A nil func skips that item; an
// error returned stops the read and is returned (with the offset).
type FileHandler struct {
	Aux      func(key, val []byte) error
	Function func(code []byte) error // a FUNCTION2 library's code
	// Key gets every key, expired ones too: whether to keep a key whose
	// time has passed is the caller's choice (a master drops them, a
	// replica keeps them until its master deletes them).
	Key func(k *Key) error
	// DB is called on SELECTDB, with RESIZEDB's sizes when they follow
	// (-1 otherwise): a hint to size tables.
	DB func(db int, keys, expires int64) error
}

// FileStats is what ReadFile saw.
type FileStats struct {
	Version   int
	Bytes     int64 // read, checksum included
	Keys      int   // given to Key
	EmptyKeys int   // hashes whose every field had expired: skipped, as Redis does
	Checksum  bool  // a checksum was there and matched (false: version < 5, or 0)
}

// ReadFile reads an RDB file from r to its EOF opcode and checksum, and no
// further when r is a *bufio.Reader; now (unix ms) drops hash fields whose
// time has passed, as Load does. A damaged, truncated or unsupported file
// is a *FileError; nothing panics.
func ReadFile(r io.Reader, now int64, h FileHandler) (FileStats, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 1<<16)
	}
	f := &fileReader{br: br, now: now, h: h}
	err := f.run()
	f.st.Bytes = f.off
	if err != nil {
		var fe *FileError
		if !errors.As(err, &fe) {
			err = &FileError{Offset: f.itemOff, Err: err}
		}
		return f.st, err
	}
	return f.st, nil
}

// IsFile reports whether b (a file's first bytes) starts like an RDB file.
func IsFile(b []byte) bool {
	if len(b) < 9 || string(b[:5]) != "REDIS" {
		return false
	}
	for _, c := range b[5:9] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// fileReader is ReadFile's state. buf holds the current item's bytes, as
// read: skimmed values are decoded from it.
type fileReader struct {
	br      *bufio.Reader
	now     int64
	h       FileHandler
	st      FileStats
	off     int64 // bytes consumed
	itemOff int64 // where the current item started
	crc     uint64
	buf     []byte
	err     error
}

// ErrTruncated is a file that ends before its EOF opcode and checksum.
var ErrTruncated = errors.New("unexpected end of file")

// maxChunk bounds how much a read grows buf ahead of the data: a corrupt
// length in a cut file fails at the end of the file, not on allocation.
const maxChunk = 1 << 20

// read appends n bytes to buf. The first error sticks.
func (f *fileReader) read(n uint64) {
	for n > 0 && f.err == nil {
		c := min(n, maxChunk)
		start := len(f.buf)
		f.buf = slices.Grow(f.buf, int(c))[:start+int(c)]
		got, err := io.ReadFull(f.br, f.buf[start:])
		f.crc = CRC64(f.crc, f.buf[start:start+got])
		f.off += int64(got)
		if err != nil {
			f.buf = f.buf[:start+got]
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				err = fmt.Errorf("%w at offset %d (truncated)", ErrTruncated, f.off)
			}
			f.err = err
			return
		}
		n -= c
	}
}

func (f *fileReader) byte() byte {
	f.read(1)
	if f.err != nil {
		return 0
	}
	return f.buf[len(f.buf)-1]
}

// length reads an RDB length; enc is the 11xxxxxx special-string form.
func (f *fileReader) length() (n uint64, enc bool) {
	c := f.byte()
	switch c >> 6 {
	case 0:
		return uint64(c & 0x3f), false
	case 1:
		return uint64(c&0x3f)<<8 | uint64(f.byte()), false
	case 3:
		return uint64(c & 0x3f), true
	}
	switch c {
	case 0x80:
		f.read(4)
		if f.err == nil {
			return uint64(binary.BigEndian.Uint32(f.buf[len(f.buf)-4:])), false
		}
	case 0x81:
		f.read(8)
		if f.err == nil {
			return binary.BigEndian.Uint64(f.buf[len(f.buf)-8:]), false
		}
	default:
		f.fail(fmt.Errorf("bad length byte 0x%02x", c))
	}
	return 0, false
}

func (f *fileReader) fail(err error) {
	if f.err == nil {
		f.err = err
	}
}

// plain reads a length that must not be a special encoding.
func (f *fileReader) plain() uint64 {
	n, enc := f.length()
	if enc {
		f.fail(errors.New("encoded string where a length belongs"))
	}
	return n
}

// skipStr reads a string's bytes: raw, integer or LZF.
func (f *fileReader) skipStr() {
	n, enc := f.length()
	if !enc {
		f.read(n)
		return
	}
	switch n {
	case 0:
		f.read(1)
	case 1:
		f.read(2)
	case 2:
		f.read(4)
	case 3:
		clen, _ := f.plain(), f.plain()
		f.read(clen)
	default:
		f.fail(fmt.Errorf("bad string encoding %d", n))
	}
}

// str reads a string and returns it decoded (valid until buf is reset).
func (f *fileReader) str() []byte {
	start := len(f.buf)
	f.skipStr()
	if f.err != nil {
		return nil
	}
	s, _, ok := ReadString(f.buf[start:])
	if !ok {
		f.fail(errors.New("bad string"))
	}
	return s
}

// uint reads a length as a number.
func (f *fileReader) uint() uint64 { return f.plain() }

// items skims n items with each, stopping at the first error.
func (f *fileReader) items(each func()) {
	n := f.plain()
	for i := uint64(0); i < n && f.err == nil; i++ {
		each()
	}
}

// skimValue reads the bytes of a value of type typ (after its type byte),
// following its structure as rdbLoadObject does.
func (f *fileReader) skimValue(typ byte) {
	switch typ {
	case typeString, typeHashZipmap, typeListZiplist, typeSetIntset, typeZSetZiplist,
		typeHashZiplist, typeHashListpack, typeZSetListpack, typeSetListpack:
		f.skipStr()
	case typeList, typeSet, typeListQuicklist:
		f.items(f.skipStr)
	case typeListQuicklist2:
		f.items(func() { f.plain(); f.skipStr() })
	case typeZSet:
		f.items(func() {
			f.skipStr()
			if n := f.byte(); n < 253 {
				f.read(uint64(n))
			}
		})
	case typeZSet2:
		f.items(func() { f.skipStr(); f.read(8) })
	case typeHash:
		f.items(func() { f.skipStr(); f.skipStr() })
	case typeHashMetadata:
		f.read(8)
		f.items(func() { f.plain(); f.skipStr(); f.skipStr() })
	case typeHashListpackEx:
		f.read(8)
		f.skipStr()
	case typeStreamListpacks, typeStream2, typeStream3:
		f.items(func() { f.skipStr(); f.skipStr() })
		f.plain()
		f.plain()
		f.plain() // length, last ID
		if typ != typeStreamListpacks {
			f.plain()
			f.plain() // first ID
			f.plain()
			f.plain() // max deleted ID
			f.plain() // entries added
		}
		f.items(func() {
			f.skipStr()
			f.plain()
			f.plain() // last delivered ID
			if typ != typeStreamListpacks {
				f.plain() // entries read
			}
			f.items(func() { f.read(16 + 8); f.plain() }) // PEL: ID, delivery time, count
			f.items(func() {
				f.skipStr()
				f.read(8) // seen time
				if typ == typeStream3 {
					f.read(8) // active time
				}
				f.items(func() { f.read(16) })
			})
		})
	case typeModulePreGA, typeModule2:
		id := f.plain()
		if name := ModuleName(id); name == "vectorset" {
			f.fail(fmt.Errorf("%w: a vector set (Redis 8's module type 'vectorset'), whose RDB form HotKV does not read: remove it (or move it with VADD) before the migration", ErrModule))
		} else {
			f.fail(fmt.Errorf("%w: a value of module type '%s', and HotKV has no modules", ErrModule, name))
		}
	case typeHashMetadataPreGA, typeHashListpackExPreGA:
		f.fail(fmt.Errorf("hash with field expiry in Redis 7.4's pre-release format (type %d), which is not supported", typ))
	default:
		f.fail(fmt.Errorf("unknown value type %d", typ))
	}
}

// ModuleName is the nine-character name a module type ID carries
// (moduleTypeNameByID).
func ModuleName(id uint64) string {
	const cset = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var name [9]byte
	id >>= 10
	for j := 8; j >= 0; j-- {
		name[j] = cset[id&63]
		id >>= 6
	}
	return string(name[:])
}

// header reads and checks the magic and version.
func (f *fileReader) header() error {
	f.read(9)
	if f.err != nil {
		return f.err
	}
	if !IsFile(f.buf) {
		return fmt.Errorf("not an RDB file (magic %q)", f.buf)
	}
	v, _ := strconv.Atoi(string(f.buf[5:9]))
	if v < MinFileVersion || v > MaxFileVersion {
		return fmt.Errorf("can't handle RDB format version %d (this build reads %d to %d)", v, MinFileVersion, MaxFileVersion)
	}
	f.st.Version = v
	return nil
}

func (f *fileReader) run() error {
	if err := f.header(); err != nil {
		return err
	}
	db := 0
	expire := int64(-1) // none
	idle, freq := int64(-1), -1
	call := func(err error) error {
		if err != nil && f.err == nil {
			f.err = err
		}
		return f.err
	}
	for {
		f.buf = f.buf[:0]
		f.itemOff = f.off
		if cap(f.buf) > 4*maxChunk { // a huge value's buffer is not kept
			f.buf = nil
		}
		op := f.byte()
		if f.err != nil {
			return f.err
		}
		switch op {
		case opEOF:
			return f.trailer()
		case opSelectDB:
			d := f.plain()
			if f.err == nil && d > 1<<20 {
				return fmt.Errorf("database number %d out of range", d)
			}
			db = int(d)
			keys, expires := int64(-1), int64(-1)
			if f.err == nil && f.h.DB != nil {
				if next, err := f.br.Peek(1); err == nil && next[0] == opResizeDB {
					f.byte()
					keys, expires = int64(f.plain()), int64(f.plain())
				}
				if call(f.h.DB(db, keys, expires)) != nil {
					return f.err
				}
			}
		case opResizeDB:
			f.plain()
			f.plain()
		case opSlotInfo:
			f.plain()
			f.plain()
			f.plain() // slot, its size, its keys with an expiry
		case opExpireTime:
			f.read(4)
			if f.err == nil {
				expire = int64(int32(binary.LittleEndian.Uint32(f.buf[len(f.buf)-4:]))) * 1000
			}
			continue
		case opExpireTimeMS:
			f.read(8)
			if f.err == nil {
				expire = int64(binary.LittleEndian.Uint64(f.buf[len(f.buf)-8:]))
			}
			continue
		case opIdle:
			idle = int64(f.plain())
			continue
		case opFreq:
			freq = int(f.byte())
			continue
		case opAux:
			k := append([]byte(nil), f.str()...)
			v := f.str()
			if f.err == nil && f.h.Aux != nil {
				call(f.h.Aux(k, v))
			}
		case opModuleAux:
			id := f.plain()
			f.fail(fmt.Errorf("%w: auxiliary data of module type '%s', and HotKV has no modules", ErrModule, ModuleName(id)))
		case opFunctionPreGA:
			f.fail(errors.New("function library in Redis 7.0's pre-release format, which is not supported"))
		case opFunction2:
			code := f.str()
			if f.err == nil && f.h.Function != nil {
				call(f.h.Function(code))
			}
		default:
			f.key(op, db, expire, idle, freq)
			expire, idle, freq = -1, -1, -1
		}
		if f.err != nil {
			return f.err
		}
	}
}

// key reads a key of value type typ and hands it over.
func (f *fileReader) key(typ byte, db int, expire, idle int64, freq int) {
	k := append([]byte(nil), f.str()...)
	if f.err != nil {
		return
	}
	start := len(f.buf)
	f.buf = append(f.buf, typ)
	f.skimValue(typ)
	if f.err != nil {
		return
	}
	e, err := Load(f.buf[start:], f.now)
	switch {
	case errors.Is(err, ErrExpired):
		f.st.EmptyKeys++
		return
	case err != nil:
		f.fail(fmt.Errorf("key %q: bad value of type %d", k, typ))
		return
	}
	switch {
	case expire == -1:
		expire = 0
	case expire < 1:
		expire = 1 // before 1970: long expired
	}
	e.Expire = expire
	f.st.Keys++
	if f.h.Key != nil {
		f.fail(f.h.Key(&Key{DB: db, Key: k, Entry: e, Expire: expire, Idle: idle, Freq: freq}))
	}
}

// trailer checks the checksum after the EOF opcode.
func (f *fileReader) trailer() error {
	if f.st.Version < 5 {
		return nil
	}
	want := f.crc
	f.itemOff = f.off
	f.buf = f.buf[:0]
	f.read(8)
	if f.err != nil {
		return f.err
	}
	got := binary.LittleEndian.Uint64(f.buf)
	if got == 0 {
		return nil // written with rdbchecksum no
	}
	if got != want {
		return fmt.Errorf("wrong RDB checksum: file says %016x, data gives %016x", got, want)
	}
	f.st.Checksum = true
	return nil
}
