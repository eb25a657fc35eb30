package rdb

import (
	"encoding/binary"
	"io"
	"strconv"

	"github.com/hotkv/hotkv/internal/keyspace"
)

// A whole dataset as a Redis RDB file (rdbSaveRio): the magic and version
// ("REDIS0012", what Redis 8.0 writes), AUX fields, the function
// libraries (FUNCTION2), then each database's keys after SELECTDB and
// RESIZEDB, each key as an optional EXPIRETIME_MS, its type byte, its name
// and its value in the DUMP encoding, and finally EOF and the CRC-64 of
// everything before it.
//
// Keys come in blocks (AppendBlock), each headed by the SELECTDB of its
// database, so that blocks encoded in any order, as the copy-on-write
// capture of a snapshot produces them, make one valid file: FileWriter
// drops a block's SELECTDB when that database is already selected.

// FileInfo is what the AUX fields at the head of a file say.
type FileInfo struct {
	RedisVer   string // redis-ver
	Ctime      int64  // ctime, unix seconds
	UsedMem    int64  // used-mem
	ReplID     string // repl-id, with ReplOffset and ReplStreamDB; "" leaves the three out
	ReplOffset int64
	// ReplStreamDB is the database the replication stream has selected,
	// as Redis saves it for a replica (repl-stream-db); -1: none.
	ReplStreamDB int
}

// DBSize is a database's key and volatile-key counts (RESIZEDB's hint).
type DBSize struct{ Keys, Expires int }

// FileWriter writes an RDB file to w, keeping its CRC-64.
type FileWriter struct {
	w       io.Writer
	crc     uint64
	n       int64
	err     error
	db      int      // the selected database, -1 before any
	sizes   []DBSize // RESIZEDB hints by database
	resized []bool   // RESIZEDB written for the database
	scratch []byte
}

// NewFileWriter starts a file on w. sizes, by database, are written as
// each database's RESIZEDB hint.
func NewFileWriter(w io.Writer, sizes []DBSize) *FileWriter {
	return &FileWriter{w: w, db: -1, sizes: sizes, resized: make([]bool, len(sizes))}
}

// Write writes b as it is (records AppendKey made, without a block head).
func (f *FileWriter) Write(b []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	f.crc = CRC64(f.crc, b)
	n, err := f.w.Write(b)
	f.n += int64(n)
	f.err = err
	return n, err
}

// Len is the number of bytes written so far.
func (f *FileWriter) Len() int64 { return f.n }

// Header writes the magic, the version and the AUX fields Redis 8.0.2
// writes (rdbSaveInfoAuxFields).
func (f *FileWriter) Header(info FileInfo) error {
	f.Write([]byte("REDIS00" + strconv.Itoa(Version)))
	f.Aux("redis-ver", []byte(info.RedisVer))
	f.Aux("redis-bits", []byte("64"))
	f.Aux("ctime", strconv.AppendInt(nil, info.Ctime, 10))
	f.Aux("used-mem", strconv.AppendInt(nil, info.UsedMem, 10))
	if info.ReplID != "" {
		f.Aux("repl-stream-db", strconv.AppendInt(nil, int64(info.ReplStreamDB), 10))
		f.Aux("repl-id", []byte(info.ReplID))
		f.Aux("repl-offset", strconv.AppendInt(nil, info.ReplOffset, 10))
	}
	f.Aux("aof-base", []byte("0"))
	return f.err
}

// Aux writes an AUX field. Redis skips fields whose name it does not know.
func (f *FileWriter) Aux(key string, val []byte) {
	w := writer{b: append(f.scratch[:0], opAux)}
	w.str([]byte(key))
	w.str(val)
	f.scratch = w.b
	f.Write(w.b)
}

// Functions writes the libraries of a FUNCTION DUMP payload (FUNCTION2
// records, which the payload holds before its footer).
func (f *FileWriter) Functions(payload []byte) {
	if len(payload) > footer {
		f.Write(payload[:len(payload)-footer])
	}
}

// Block writes a block AppendBlock made: its SELECTDB unless that
// database is selected already, the database's RESIZEDB the first time,
// then its keys.
func (f *FileWriter) Block(b []byte) error {
	r := &reader{b: b}
	if r.byte() != opSelectDB {
		panic("rdb: block without SELECTDB")
	}
	db := int(r.length())
	if db != f.db {
		f.Write(b[:r.off])
		f.db = db
		if db < len(f.resized) && !f.resized[db] {
			f.resized[db] = true
			w := writer{b: append(f.scratch[:0], opResizeDB)}
			w.length(uint64(f.sizes[db].Keys))
			w.length(uint64(f.sizes[db].Expires))
			f.scratch = w.b
			f.Write(w.b)
		}
	}
	f.Write(b[r.off:])
	return f.err
}

// End writes EOF and the checksum.
func (f *FileWriter) End() error {
	f.Write([]byte{opEOF})
	if f.err != nil {
		return f.err
	}
	n, err := f.w.Write(binary.LittleEndian.AppendUint64(nil, f.crc))
	f.n += int64(n)
	return err
}

// AppendBlock starts a block of keys of database db.
func AppendBlock(dst []byte, db int) []byte {
	w := writer{b: append(dst, opSelectDB)}
	w.length(uint64(db))
	return w.b
}

// AppendKey appends key's record: EXPIRETIME_MS when it has a TTL, then
// its type, name and value. Hash fields expired by now are left out;
// ErrExpired means none is left, ErrUnsupported that the value has no RDB
// form (vector sets): dst is returned unchanged with either.
func AppendKey(dst, key []byte, e *keyspace.Entry, now int64) ([]byte, error) {
	v, err := encode(e, now)
	if err != nil {
		return dst, err
	}
	w := writer{b: dst}
	if e.Expire != 0 {
		w.b = append(w.b, opExpireTimeMS)
		w.fixed64(uint64(e.Expire))
	}
	w.b = append(w.b, v.b[0])
	w.str(key)
	w.b = append(w.b, v.b[1:]...)
	return w.b, nil
}
