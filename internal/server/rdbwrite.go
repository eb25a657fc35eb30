package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/persist"
	"github.com/hotkv/hotkv/internal/rdb"
)

// writeRDB writes the data as at one instant as a Redis RDB file.
// atInstant runs at the instant, every shard locked, and says what the AUX
// fields tell; before, if set, runs once that is known and before the
// first byte. fnOnly leaves the keys out (rdb-filter-only functions), noFns
// the function libraries.
func (s *Server) writeRDB(w io.Writer, atInstant func() (rdb.FileInfo, error), before func() error, fnOnly, noFns bool) (keys int, err error) {
	var info rdb.FileInfo
	var sizes []rdb.DBSize
	side := &hotkvOnly{}
	j := newSnapJob(s, func(dst []byte, db int, sh *keyspace.Shard, now int64) ([]byte, int, error) {
		return rdbShard(dst, db, sh, now, side)
	})
	if fnOnly {
		j.enc = func(dst []byte, _ int, _ *keyspace.Shard, _ int64) ([]byte, int, error) { return dst, 0, nil }
	}
	var fw *rdb.FileWriter
	err = s.captureInstant(j, func() error {
		sizes = make([]rdb.DBSize, len(s.ks.DBs))
		for d, db := range s.ks.DBs {
			for i := range keyspace.ShardCount {
				sh := db.Shard(i)
				sizes[d].Keys += sh.Len()
				sizes[d].Expires += sh.Volatile()
			}
		}
		info = rdb.FileInfo{ReplStreamDB: -1}
		if atInstant != nil {
			var err error
			info, err = atInstant()
			return err
		}
		return nil
	}, func(now int64) error {
		if before != nil {
			if err := before(); err != nil {
				return err
			}
		}
		info.RedisVer = RedisVersion
		info.Ctime = now / 1000
		info.UsedMem = int64(s.memoryFigures().used)
		fw = rdb.NewFileWriter(w, sizes)
		if err := fw.Header(info); err != nil {
			return err
		}
		if _, libs, _, _ := s.scripts.Counts(); libs > 0 && !noFns {
			fw.Functions(s.scripts.DumpFunctions())
		}
		if !fnOnly {
			var err error
			side.aux, side.nAux, err = s.encodeRegistries(now, false)
			return err
		}
		return nil
	}, func(b []byte, n int) error {
		keys += n
		return fw.Block(b)
	}, nil)
	if err == nil && (side.keys > 0 || side.nAux > 0) {
		// What RDB cannot hold, as a HotKV snapshot in an AUX field:
		// Redis skips it, a HotKV replica loads it (loadRDBAux).
		snap := persist.AppendHeader(nil, persist.SnapshotMagic)
		snap = append(snap, side.aux...)
		for _, b := range side.blocks {
			snap = append(snap, b...)
		}
		snap = persist.AppendEnd(snap, side.nAux+len(side.blocks), side.keys)
		fw.Aux(hotkvAux, snap)
		if side.keys > 0 {
			s.repl.Skipped.Add(int64(side.keys))
			s.logf("warning", "RDB file: %d keys with no RDB form (vector sets) are only in its %s AUX field, which Redis skips", side.keys, hotkvAux)
		}
	}
	if err == nil {
		err = fw.End()
	}
	return keys, err
}

// hotkvAux is the AUX field of an RDB file that holds, as a HotKV snapshot
// (docs/persistence.md's format), what RDB has no form for: vector sets,
// named vector indexes, the AI layer.
const hotkvAux = "hotkv-snapshot"

// hotkvOnly collects what an RDB file cannot hold while it is written.
type hotkvOnly struct {
	aux  []byte // registries' aux blocks (encodeRegistries)
	nAux int

	mu     sync.Mutex
	blocks [][]byte // HotKV keys blocks of the keys with no RDB form
	keys   int
}

// loadRDBAux loads an RDB file's AUX field into ks when it is HotKV's
// (hotkv-snapshot), reporting whether it was; with reg set, the named
// indexes and the AI layer it holds are loaded into reg, which must be
// empty.
func (s *Server) loadRDBAux(key string, val []byte, ks *keyspace.Keyspace, reg *registries) (bool, error) {
	if key != hotkvAux {
		return false, nil
	}
	_, _, err := s.readSnapshot(bytes.NewReader(val), ks, reg)
	return true, err
}

// rdbShard encodes sh's live keys as an RDB block of database db; keys
// without an RDB form go to side, in a HotKV keys block.
func rdbShard(dst []byte, db int, sh *keyspace.Shard, now int64, side *hotkvOnly) ([]byte, int, error) {
	start := len(dst)
	dst = rdb.AppendBlock(dst, db)
	n := 0
	var other *persist.KeysBlock
	defer func() {
		if other != nil && other.Keys > 0 {
			side.mu.Lock()
			side.blocks = append(side.blocks, other.Finish())
			side.keys += other.Keys
			side.mu.Unlock()
		}
	}()
	for k, e := range sh.All() {
		if e.Expired(now) {
			continue
		}
		var err error
		dst, err = rdb.AppendKey(dst, []byte(k), e, now)
		switch {
		case err == nil:
			n++
		case errors.Is(err, rdb.ErrExpired):
		case errors.Is(err, rdb.ErrUnsupported):
			if other == nil {
				other = persist.BeginKeys(nil, db)
			}
			if err := other.Add(k, e); err != nil {
				return dst[:start], 0, fmt.Errorf("key %q: %w", k, err)
			}
		default:
			return dst[:start], 0, fmt.Errorf("key %q: %w", k, err)
		}
	}
	if n == 0 {
		return dst[:start], 0, nil
	}
	return dst, n, nil
}
