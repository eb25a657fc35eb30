package commands

import (
	"math/rand/v2"

	"github.com/hotkv/hotkv/internal/command"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/lazyfree"
	"github.com/hotkv/hotkv/internal/value/hash"
	"github.com/hotkv/hotkv/internal/value/list"
	setval "github.com/hotkv/hotkv/internal/value/set"
	"github.com/hotkv/hotkv/internal/value/stream"
	"github.com/hotkv/hotkv/internal/value/zset"
)

// bigFree is the size from which what a command deleted is worth telling
// the lazy free (which collects once it adds up to enough).
const bigFree = 64 << 10

// flushSamples is how many keys a flush looks at to estimate the bytes of
// all of them.
const flushSamples = 16

// freeEffort is Redis's lazyfreeGetFreeEffort: the allocations freeing e's
// value takes, 1 for a string, a compact form or a vector set (a module
// type in Redis, which gives it no effort of its own).
func freeEffort(e *keyspace.Entry) int64 {
	switch o := e.Obj.(type) {
	case *list.List:
		if o.Encoding() == "quicklist" {
			return int64(o.Nodes())
		}
	case *hash.Hash:
		if o.Encoding() == "hashtable" {
			return int64(o.Len())
		}
	case *setval.Set:
		if o.Encoding() == "hashtable" {
			return int64(o.Len())
		}
	case *zset.ZSet:
		if o.Encoding() == "skiplist" {
			return int64(o.Len())
		}
	case *stream.Stream:
		n := int64(o.RaxNodes())
		if g := o.GroupCount(); g > 0 { // the first group's PEL stands for every group's
			n += int64(g) * (1 + int64(o.Groups()[0].PendingCount()))
		}
		return n
	}
	return 1
}

// freeing gathers what a command deletes for the keyspace's lazy free:
// the values counted as freed lazily (lazy: UNLINK, DEL with
// lazyfree-lazy-user-del, and an effort above Redis's threshold) and about
// the bytes of all of them, reclaimed soon when they come to much.
type freeing struct {
	lazy           bool
	objects, bytes int64
}

// add counts e, just deleted from under a key of klen bytes.
func (f *freeing) add(e *keyspace.Entry, klen int) {
	if e.Kind == keyspace.KindString {
		f.bytes += slotBytes + 56 + int64(klen+cap(e.Bytes()))
		return
	}
	if f.lazy && freeEffort(e) > lazyfree.Threshold {
		f.objects++
	}
	f.bytes += slotBytes + entryBytes(e, klen, 5)
}

// done hands what was gathered to the lazy free, when worth it.
func (f *freeing) done(x *command.Ctx) {
	if f.objects > 0 || f.bytes >= bigFree {
		x.KS.Lazy.Drop(f.objects, f.bytes)
	}
}

// DBBytes estimates the bytes of db's keys from up to flushSamples of
// them, each as MEMORY USAGE estimates it: the first of shards taken from a
// random one on. Caller holds db's locks, or has it to itself (the data a
// DEBUG RELOAD or a replica's full sync replaced).
func DBBytes(db *keyspace.DB, now int64) int64 {
	keys := db.Size()
	var sum, seen int64
	first := rand.IntN(keyspace.ShardCount)
	for i := 0; i < keyspace.ShardCount && seen < flushSamples && seen < int64(keys); i++ {
		db.Shard((first+i)%keyspace.ShardCount).Range(now, func(k string, e *keyspace.Entry) bool {
			sum += slotBytes + entryBytes(e, len(k), 5)
			seen++
			return false
		})
	}
	if seen == 0 {
		return 0
	}
	return sum / seen * int64(keys)
}
