package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/persist"
	"github.com/hotkv/hotkv/internal/rdb"
	"github.com/hotkv/hotkv/internal/script"
)

// Loading Redis RDB files (docs/persistence.md, "Migrating from Redis"):
// a file at dir/dbfilename that starts with Redis's magic is read with
// rdb.ReadFile instead of HotKV's snapshot reader, at start-up, by DEBUG
// RELOAD and as a replica's full resynchronization (replica.go).

// rdbLoad says what a Redis RDB load does besides filling a keyspace.
type rdbLoad struct {
	funcs       bool // replace the function libraries with the file's
	keepExpired bool // keep keys whose time has passed (a replica: its master deletes them)
	// reg, when set, receives the named vector indexes and the AI layer a
	// HotKV master put in its hotkv-snapshot AUX field (the server's at
	// start-up, a replica's staging ones; DEBUG RELOAD keeps the server's;
	// its keys are always loaded).
	reg *registries
}

// rdbResult is what a Redis RDB load read.
type rdbResult struct {
	rdb.FileStats
	expired int // keys skipped as expired
	aux     map[string]string
	funcs   []byte // the file's function libraries, as a FUNCTION DUMP payload
}

// loadRDB fills the empty keyspace ks from a Redis RDB stream. The
// function libraries, if opt.funcs, replace the server's once the whole
// file has read well; else they are left in res.funcs.
func (s *Server) loadRDB(r io.Reader, ks *keyspace.Keyspace, now int64, opt rdbLoad) (res rdbResult, err error) {
	res.aux = map[string]string{}
	var funcs []byte
	defer func() { res.funcs = rdb.Seal(funcs) }()
	st, err := rdb.ReadFile(r, now, rdb.FileHandler{
		Aux: func(k, v []byte) error {
			if ok, err := s.loadRDBAux(string(k), v, ks, opt.reg); ok {
				return err
			}
			res.aux[string(k)] = string(v)
			return nil
		},
		Function: func(code []byte) error {
			funcs = append(funcs, 245) // FUNCTION2, as FUNCTION DUMP writes it
			funcs = rdb.AppendString(funcs, code)
			return nil
		},
		DB: func(db int, keys, _ int64) error {
			if db >= len(ks.DBs) {
				return fmt.Errorf("the file has database %d, and HotKV is configured with databases %d (raise it)", db, len(ks.DBs))
			}
			return nil
		},
		Key: func(k *rdb.Key) error {
			s.keyLoaded()
			if k.DB >= len(ks.DBs) {
				return fmt.Errorf("the file has database %d, and HotKV is configured with databases %d (raise it)", k.DB, len(ks.DBs))
			}
			if !opt.keepExpired && k.Entry.Expired(now) {
				res.expired++
				return nil
			}
			sh := ks.DBs[k.DB].ShardFor(k.Key)
			sh.Lock()
			defer sh.Unlock()
			if sh.Get(k.Key) != nil {
				return fmt.Errorf("duplicate key %q in database %d", k.Key, k.DB)
			}
			sh.Put(k.Key, k.Entry)
			if k.Idle >= 0 {
				k.Entry.SetIdle(k.Idle)
			}
			if k.Freq >= 0 {
				k.Entry.SetFreq(uint8(k.Freq))
			}
			return nil
		},
	})
	res.FileStats = st
	if err != nil {
		return res, err
	}
	if opt.funcs {
		if err := s.scripts.RestoreFunctions(rdb.Seal(funcs), script.RestoreFlush); err != nil {
			return res, fmt.Errorf("loading the file's function libraries: %v", err)
		}
	}
	return res, nil
}

// isRDBFile reports whether the file at path starts with Redis's magic.
func isRDBFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [9]byte
	n, _ := io.ReadFull(f, b[:])
	return rdb.IsFile(b[:n])
}

// loadRDBFile is loadSnapshot for a Redis RDB file.
func (s *Server) loadRDBFile(f io.Reader, ks *keyspace.Keyspace, now int64, startup bool) (persist.LoadStats, int, error) {
	res, err := s.loadRDB(bufio.NewReaderSize(f, 1<<20), ks, now, rdbLoad{funcs: startup, reg: s.startupRegistries(startup)})
	st := persist.LoadStats{Keys: res.Keys, Bytes: res.Bytes}
	if err != nil {
		return st, 0, err
	}
	if startup {
		s.persist.redisFile.Store(true)
		by := "Redis"
		if v := res.aux["redis-ver"]; v != "" {
			by += " " + v
		}
		if v := res.aux["valkey-ver"]; v != "" {
			by = "Valkey " + v
		}
		s.logf("notice", "Loading a Redis RDB file (RDB version %d, written by %s): %d keys read, %d expired, %d hashes with every field expired skipped", res.Version, by, res.Keys, res.expired, res.EmptyKeys)
		s.logf("notice", "The next save writes HotKV's own snapshot format to %s; the Redis file will be kept as %s%s", s.snapshotPath(), s.snapshotPath(), redisBackupSuffix)
	}
	return st, res.expired, nil
}

// redisBackupSuffix names where the first save after loading a Redis RDB
// file moves that file, so that HotKV's own format never silently replaces
// the only copy of a Redis user's data.
const redisBackupSuffix = ".redis"

// keepRedisFile moves a Redis RDB file at path aside before a snapshot
// replaces it (once: an existing backup is never overwritten, and a file
// that is already HotKV's is left to be replaced).
func (s *Server) keepRedisFile(path string) {
	if !s.persist.redisFile.Load() || path != s.snapshotPath() {
		return
	}
	if !isRDBFile(path) {
		s.persist.redisFile.Store(false)
		return
	}
	backup := path + redisBackupSuffix
	if _, err := os.Stat(backup); err == nil {
		s.logf("warning", "%s is a Redis RDB file and %s exists already: the snapshot replaces %s", path, backup, path)
	} else if err := os.Link(path, backup); err != nil {
		s.logf("warning", "Keeping the Redis RDB file %s as %s: %v", path, backup, err)
	} else {
		s.logf("notice", "The Redis RDB file %s loaded at start-up is kept as %s; %s now holds HotKV's snapshot format", path, backup, path)
	}
	s.persist.redisFile.Store(false)
}

// rdbLoadError wraps a Redis RDB read error for the start-up message.
func rdbLoadError(path string, err error) error {
	var fe *rdb.FileError
	if errors.As(err, &fe) {
		return fmt.Errorf("bad Redis RDB file %s: %v", path, err)
	}
	return fmt.Errorf("loading the Redis RDB file %s: %v", path, err)
}
