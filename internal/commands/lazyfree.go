package commands

import (
	"math/rand/v2"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/lazyfree"
	"github.com/hotkv/hotkv/internal/value/hash"
	"github.com/hotkv/hotkv/internal/value/list"
	setval "github.com/hotkv/hotkv/internal/value/set"
	"github.com/hotkv/hotkv/internal/value/stream"
	"github.com/hotkv/hotkv/internal/value/zset"
)

// bigFree is the size from which a value deleted is worth telling the lazy
// free (which collects once such drops add up to enough); bulkFree the
// size from which all that one command deleted is.
const (
	bigFree  = 64 << 10
	bulkFree = 1 << 20
)

// A flush sizes every key of a database of up to exactKeys (so that a few
// large values among small ones count), and flushSamples keys of a larger
// one (a few milliseconds at most under the flush's locks).
const (
	exactKeys    = 100_000
	flushSamples = 16
)

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
// the bytes of the large ones, or of all when they come to much, reclaimed
// soon. Small values deleted a few at a time are left to the collector's
// pace: a stream of such deletions, matched by writes, is what Go's pacer
// collects well on its own.
type freeing struct {
	lazy           bool
	objects, bytes int64
	large          int64 // the bytes of values of bigFree or more
}

// add counts e, just deleted from under a key of klen bytes.
func (f *freeing) add(e *keyspace.Entry, klen int) {
	n := slotBytes + 56 + int64(klen+cap(e.Bytes()))
	if e.Kind != keyspace.KindString {
		if f.lazy && freeEffort(e) > lazyfree.Threshold {
			f.objects++
		}
		n = slotBytes + entryBytes(e, klen, 5)
	}
	f.bytes += n
	if n >= bigFree {
		f.large += n
	}
}

// done hands what was gathered to the lazy free: all of it when the
// command deleted bulkFree or more, else its large values.
func (f *freeing) done(x *cmdtable.Ctx) {
	if f.bytes >= bulkFree {
		x.KS.Lazy.Drop(f.objects, f.bytes)
	} else {
		x.KS.Lazy.Drop(f.objects, f.large)
	}
}

// DBBytes estimates the bytes of db's keys: each as MEMORY USAGE
// estimates a key, all of them up to exactKeys, else flushSamples of them
// (the first of shards taken from a random one on). Caller holds db's
// locks, or has it to itself (the data a DEBUG RELOAD or a replica's full
// sync replaced).
func DBBytes(db *keyspace.DB, now int64) int64 {
	keys := db.Size()
	if keys == 0 {
		return 0
	}
	var sum, seen int64
	if keys <= exactKeys {
		for i := range keyspace.ShardCount {
			db.Shard(i).Range(now, func(k string, e *keyspace.Entry) bool {
				sum += slotBytes + entryBytes(e, len(k), 5)
				return true
			})
		}
		return sum
	}
	first := rand.IntN(keyspace.ShardCount)
	for i := 0; i < keyspace.ShardCount && seen < flushSamples; i++ {
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
