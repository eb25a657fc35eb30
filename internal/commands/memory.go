package commands

import (
	"runtime/debug"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/value/hash"
	"github.com/hotkv/hotkv/internal/value/list"
	setval "github.com/hotkv/hotkv/internal/value/set"
	"github.com/hotkv/hotkv/internal/value/stream"
	"github.com/hotkv/hotkv/internal/value/vset"
	"github.com/hotkv/hotkv/internal/value/zset"
)

// MEMORY USAGE key [SAMPLES count]: the bytes a key and its value take, as
// Redis estimates them: exact for a string, and for a collection its length
// times the average size of up to count elements (default 5, 0 for all)
// plus each representation's per-element overhead. The overheads are
// HotKV's own, measured for 1M-element collections (docs/bench/history-2026-12-01.md,
// "Memory per element"): what an element costs beyond its bytes.
const (
	slotBytes        = 16 // the key's slot in its shard's table
	compactPerElem   = 4  // listpack and intset forms, and list chunks
	hashTablePerElem = 38
	setTablePerElem  = 32
	zsetPerElem      = 70
	objectBytes      = 64 // a collection's header
)

func memoryUsage(x *cmdtable.Ctx) {
	samples := 5
	for i := 3; i < len(x.Args); i += 2 {
		if !cmdtable.Is(x.Args[i], "samples") || i+1 == len(x.Args) {
			x.Error(cmdtable.ErrSyntax)
			return
		}
		n, ok := cmdtable.ParseInt(x.Args[i+1])
		if !ok {
			x.Error(cmdtable.ErrNotInt)
			return
		}
		if n < 0 {
			x.Error(cmdtable.ErrSyntax)
			return
		}
		samples = int(min(n, 1<<31))
		if n == 0 {
			samples = -1 // all
		}
	}
	e := x.Shard(x.Args[2]).Peek(x.Args[2], x.Now) // not counted as a keyspace hit or miss, as in Redis
	if e == nil {
		x.W.Null()
		return
	}
	x.W.Int(slotBytes + entryBytes(e, len(x.Args[2]), samples))
}

// entryBytes estimates the memory of the entry of a key of klen bytes and
// its value; samples < 0 looks at every element.
func entryBytes(e *keyspace.Entry, klen, samples int) int64 {
	if e.Kind == keyspace.KindString { // key and value stored with the entry (keyspace/entry.go)
		return int64(sizeClass(56 + klen + cap(e.Bytes())))
	}
	klen = sizeClass(klen)
	var n, seen, bytes int64
	var per int64 = compactPerElem
	look := func(parts ...[]byte) bool {
		for _, p := range parts {
			bytes += int64(len(p))
		}
		seen++
		return samples < 0 || seen < int64(samples)
	}
	switch o := e.Obj.(type) {
	case *list.List:
		n = int64(o.Len())
		o.Range(0, o.Len()-1, func(v []byte) bool { return look(v) })
	case *hash.Hash:
		n = int64(o.Len())
		if o.Encoding() == "hashtable" {
			per = hashTablePerElem
		}
		o.Range(func(f, v []byte) bool { return look(f, v) })
	case *setval.Set:
		n = int64(o.Len())
		if o.Encoding() == "hashtable" {
			per = setTablePerElem
		}
		o.Range(func(m []byte) bool { return look(m) })
	case *zset.ZSet:
		n, per = int64(o.Len()), zsetPerElem
		for it := o.At(0); it.Valid() && look([]byte(it.Member())); it.Next() {
		}
	case *vset.Set:
		return int64(sizeClass(56)+klen) + objectBytes + o.Bytes()
	case *stream.Stream:
		return int64(sizeClass(56)+klen) + objectBytes + o.MemoryUsage()
	}
	avg := int64(0)
	if seen > 0 {
		avg = bytes / seen
	}
	return int64(sizeClass(56)+klen) + objectBytes + n*(avg+per)
}

// sizeClass rounds an allocation up to the Go allocator's size class.
func sizeClass(n int) int {
	for _, c := range [...]int{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
		288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792,
		2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240,
		10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768} {
		if n <= c {
			return c
		}
	}
	return (n + 8191) &^ 8191 // large objects take whole pages
}

// memoryHelp lists MEMORY's subcommands, those the server adds (STATS and
// DOCTOR, internal/server/memory.go) included.
var memoryHelp = []string{
	"DOCTOR",
	"    Return memory problems reports.",
	"MALLOC-STATS",
	"    Return internal statistics report from the memory allocator.",
	"PURGE",
	"    Attempt to purge dirty pages for reclamation by the allocator.",
	"STATS",
	"    Return information about the memory usage of the server.",
	"USAGE <key> [SAMPLES <count>]",
	"    Return memory in bytes used by <key> and its value. Nested values are",
	"    sampled up to <count> times (default: 5, 0 means sample all).",
}

func init() {
	const g = "server"
	cmdtable.Register(&cmdtable.Cmd{Name: "memory", Arity: -2, Group: g, Since: "4.0.0", Summary: "A container for memory diagnostics commands.",
		Subs: []*cmdtable.Cmd{
			{Name: "memory|usage", Arity: -3, Flags: cmdtable.ReadOnly, First: 2, Last: 2, Step: 1, Run: memoryUsage, Group: g,
				Since: "4.0.0", Summary: "Estimates the memory usage of a key.", Args: "key [SAMPLES count]"},
			{Name: "memory|purge", Arity: 2, Group: g, Since: "4.0.0", Summary: "Asks the allocator to release memory.",
				Run: func(x *cmdtable.Ctx) { debug.FreeOSMemory(); x.W.OK() }},
			{Name: "memory|malloc-stats", Arity: 2, Group: g, Since: "4.0.0", Summary: "Returns the allocator statistics.",
				Run: func(x *cmdtable.Ctx) { x.W.BulkString("Stats not supported for the current allocator") }},
			cmdtable.HelpCmd("memory", g, "4.0.0", memoryHelp),
		}})
}
