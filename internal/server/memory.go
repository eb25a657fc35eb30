package server

import (
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
)

// MEMORY STATS and MEMORY DOCTOR (MEMORY USAGE, PURGE and MALLOC-STATS are
// in internal/commands/memory.go), from the figures INFO memory reports.
// Redis's allocator is jemalloc; here it is Go's runtime, whose statistics
// stand in for jemalloc's (docs/protocol.md, "MEMORY STATS"). What HotKV has
// no counterpart for (cluster links, a replica's full-sync buffer) is
// reported as 0, so that tools reading every field still find it.

// memFigures are the figures INFO memory reports, read once.
type memFigures struct {
	ms      runtime.MemStats
	used    uint64 // used_memory: heap objects, garbage not yet collected included, and goroutine stacks
	rss     uint64
	peak    uint64 // used_memory_peak
	startup uint64 // used_memory_startup
}

// memoryFigures reads them, raising the peak.
func (s *Server) memoryFigures() *memFigures {
	m := &memFigures{rss: readRSS(), startup: s.stats.startMem}
	runtime.ReadMemStats(&m.ms)
	m.used = m.ms.HeapAlloc + m.ms.StackInuse
	for {
		p := s.stats.peakMem.Load()
		if m.used <= p || s.stats.peakMem.CompareAndSwap(p, m.used) {
			break
		}
	}
	m.peak = max(s.stats.peakMem.Load(), m.used)
	return m
}

// memOverhead is Redis's redisMemOverhead: where the memory goes.
type memOverhead struct {
	*memFigures
	clients   uint64 // clients.normal
	aofBuf    uint64
	functions uint64 // the libraries' code, INFO's used_memory_functions
	scripts   int    // scripts in EVAL's cache
	dbs       []dbOverhead
	lut       uint64 // the databases' key tables
	total     uint64 // overhead.total
	keys      uint64
	dataset   uint64
	// estimates of the script cache's entries (lua.caches) and of the Lua
	// state and compiled code of scripts and of functions (script.VMs)
	evalCache, evalVM, functionsVM uint64
	// the replication backlog and the replicas' output buffers
	replBacklog, replClients uint64
	// Go's runtime in jemalloc's terms: allocated is used_memory, active
	// the spans holding objects and stacks, resident what the runtime has
	// from the OS and has not given back.
	allocated, active, resident uint64
}

type dbOverhead struct {
	id            int
	main, expires uint64
}

// Estimates of what HotKV's structures cost per element.
const (
	tableSlotBytes = 16 // a key table's slot (keyspace/table.go)
	expiresBytes   = 32 // an entry of a shard's map of volatile keys
)

// clientBytes is a connection's fixed cost: its client and per-command
// counters (calls and time); its buffers are totalMem's.
func clientBytes() uint64 {
	return uint64(unsafe.Sizeof(client{})) + 16*uint64(cmdtable.Count())
}

// memoryOverhead gathers MEMORY STATS's figures. c is the client asking:
// inside EXEC or a script it holds every shard already (countsShards).
func (s *Server) memoryOverhead(c *client) *memOverhead {
	o := &memOverhead{memFigures: s.memoryFigures()}
	for _, c := range s.clientList() {
		if !c.isReplica() {
			o.clients += c.totalMem(c.queuedOutput())
		}
	}
	if a := s.aof.Load(); a != nil {
		o.aofBuf = uint64(a.BufferCap())
	}
	scripts, _, _, code := s.scripts.Counts()
	o.scripts, o.functions = scripts, uint64(code)
	cache, vm, fvm := s.scripts.Memory()
	o.evalCache, o.evalVM, o.functionsVM = uint64(cache), uint64(vm), uint64(fvm)
	o.replBacklog, o.replClients = s.repl.Memory()
	o.total = o.startup + o.clients + o.aofBuf + o.functions + o.evalCache + o.evalVM + o.functionsVM + o.replBacklog + o.replClients
	for i := range s.ks.DBs {
		st := s.dbStats(c, i)
		if st.keys == 0 {
			continue
		}
		lut := uint64(st.slots) * tableSlotBytes
		d := dbOverhead{id: i, main: lut + uint64(st.keys)*uint64(unsafe.Sizeof(keyspace.Entry{})), expires: uint64(st.volatile) * expiresBytes}
		o.dbs = append(o.dbs, d)
		o.lut += lut
		o.keys += uint64(st.keys)
		o.total += d.main + d.expires
	}
	o.dataset = o.used - min(o.used, o.total)
	ms := &o.ms
	o.allocated = o.used
	o.active = ms.HeapInuse + ms.StackInuse
	o.resident = ms.Sys - ms.HeapReleased
	return o
}

// datasetPerc is the dataset's share of the memory used beyond start-up.
func (o *memOverhead) datasetPerc() float64 {
	net := uint64(1)
	if o.used > o.startup {
		net = o.used - o.startup
	}
	return float64(float32(float64(o.dataset) * 100 / float64(net)))
}

func (o *memOverhead) peakPerc() float64 {
	return float64(float32(float64(o.used) * 100 / float64(max(o.peak, 1))))
}

// memRatio is a/b as Redis computes its ratios, in single precision.
func memRatio(a, b uint64) float64 { return float64(float32(float64(a) / float64(max(b, 1)))) }

func memDiff(a, b uint64) int64 { return int64(a) - int64(b) }

// memoryStats is MEMORY STATS: Redis's fields, in its order.
func memoryStats(x *cmdtable.Ctx) {
	c := cl(x)
	o := c.s.memoryOverhead(c)
	w := x.W
	n := func(k string, v int64) {
		w.BulkString(k)
		w.Int(v)
	}
	f := func(k string, v float64) {
		w.BulkString(k)
		w.Double(v)
	}
	w.Map(33 + len(o.dbs))
	n("peak.allocated", int64(o.peak))
	n("total.allocated", int64(o.used))
	n("startup.allocated", int64(o.startup))
	n("replication.backlog", int64(o.replBacklog))
	n("replica.fullsync.buffer", 0)
	n("clients.slaves", int64(o.replClients))
	n("clients.normal", int64(o.clients))
	n("cluster.links", 0)
	n("aof.buffer", int64(o.aofBuf))
	n("lua.caches", int64(o.evalCache))
	n("functions.caches", int64(o.functions))
	n("script.VMs", int64(o.evalVM+o.functionsVM))
	for _, d := range o.dbs {
		w.BulkString("db." + strconv.Itoa(d.id))
		w.Map(2)
		n("overhead.hashtable.main", int64(d.main))
		n("overhead.hashtable.expires", int64(d.expires))
	}
	n("overhead.db.hashtable.lut", int64(o.lut))
	n("overhead.db.hashtable.rehashing", 0) // tables grow at once, never rehash incrementally
	n("overhead.total", int64(o.total))
	n("db.dict.rehashing.count", 0)
	n("keys.count", int64(o.keys))
	perKey := uint64(0)
	if o.keys > 0 {
		perKey = o.dataset / o.keys
	}
	n("keys.bytes-per-key", int64(perKey))
	n("dataset.bytes", int64(o.dataset))
	f("dataset.percentage", o.datasetPerc())
	f("peak.percentage", o.peakPerc())
	n("allocator.allocated", int64(o.allocated))
	n("allocator.active", int64(o.active))
	n("allocator.resident", int64(o.resident))
	n("allocator.muzzy", 0)
	f("allocator-fragmentation.ratio", memRatio(o.active, o.allocated))
	n("allocator-fragmentation.bytes", memDiff(o.active, o.allocated))
	f("allocator-rss.ratio", memRatio(o.resident, o.active))
	n("allocator-rss.bytes", memDiff(o.resident, o.active))
	f("rss-overhead.ratio", memRatio(o.rss, o.resident))
	n("rss-overhead.bytes", memDiff(o.rss, o.resident))
	f("fragmentation", memRatio(o.rss, o.used)) // INFO's mem_fragmentation_ratio
	n("fragmentation.bytes", memDiff(o.rss, o.used))
}

// memoryDoctor is MEMORY DOCTOR: Redis's report, with the checks that mean
// something for Go's allocator.
func memoryDoctor(x *cmdtable.Ctx) {
	c := cl(x)
	x.W.Verbatim(memoryDoctorReport(c.s.memoryOverhead(c)))
}

// The checks, as Redis makes them. Redis's fragmentation checks (total RSS
// over 1.4 times the allocations, allocator fragmentation, RSS outside the
// allocator) are left out: their remedies are jemalloc and active
// defragmentation, and a garbage-collected heap is expected to sit well
// above its live size. Client buffers are not measured (clientBytes), and
// there are no replicas.
func memoryDoctorReport(o *memOverhead) string {
	const mb = 1 << 20
	var bigPeak, allocRSS, manyScripts bool
	// Redis's "empty" is under 5 MB allocated; HotKV's own structures (16
	// databases of 1024 shards) take about 4 MB at start, so it is 5 MB
	// beyond the start-up memory.
	if o.used < o.startup+5*mb {
		return "Hi Sam, this instance is empty or is using very little memory, " +
			"my issues detector can't be used in these conditions. " +
			"Please, leave for your mission on Earth and fill it with some data. " +
			"The new Sam and I will be back to our programming as soon as I " +
			"finished rebooting.\n"
	}
	// Peak over 150% of the memory in use. In use is measured against the
	// heap goal, which garbage grows towards between collections, so that
	// the ordinary swing of a collected heap is not a peak.
	bigPeak = float32(o.peak)/float32(max(o.used, o.ms.NextGC)) > 1.5
	// Memory the runtime holds from the OS beyond its spans in use:
	// MEMORY PURGE returns it.
	allocRSS = memRatio(o.resident, o.active) > 1.1 && memDiff(o.resident, o.active) > 10*mb
	manyScripts = o.scripts > 1000
	if !bigPeak && !allocRSS && !manyScripts {
		return "Hi Sam, I can't find any memory issue in your instance. " +
			"I can only account for what occurs on this base.\n"
	}
	var b strings.Builder
	b.WriteString("Sam, I detected a few issues in this Redis instance memory implants:\n\n")
	if bigPeak {
		b.WriteString(" * Peak memory: In the past this instance used more than 150% the memory that is currently using. The allocator is normally not able to release memory after a peak, so you can expect to see a big fragmentation ratio, however this is actually harmless and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is currently bigger than expected, the memory will be used as soon as you fill the Redis instance with more data. If the memory peak was only occasional and you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is to shutdown and restart the instance.\n\n")
	}
	if allocRSS {
		b.WriteString(" * High allocator RSS overhead: This instance has an RSS memory overhead is greater than 1.1 (this means that the Resident Set Size of the allocator is much larger than the sum what the allocator actually holds). This problem is usually due to a large peak memory (check if there is a peak memory entry above in the report), you can try the MEMORY PURGE command to reclaim it.\n\n")
	}
	if manyScripts {
		b.WriteString(" * Many scripts: There seem to be many cached scripts in this instance (more than 1000). This may be because scripts are generated and `EVAL`ed, instead of being parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT FLUSH` is called periodically, the scripts' caches may end up consuming most of your memory.\n\n")
	}
	b.WriteString("I'm here to keep you safe, Sam. I want to help you.\n")
	return b.String()
}

// countsShards reports whether cmd visits every shard of every database,
// one lock at a time (INFO's keyspace, MEMORY STATS), or may lock any
// (DEBUG): inside EXEC or a script, which could only take them out of
// order, it runs with all of them held.
func countsShards(cmd *cmdtable.Cmd) bool {
	switch cmd.Name {
	case "info", "memory|stats", "memory|doctor", "debug":
		return true
	}
	return false
}

func init() {
	const g = "server"
	cmdtable.AddSubs("memory",
		&cmdtable.Cmd{Name: "memory|stats", Arity: 2, Run: memoryStats, Group: g, Since: "4.0.0",
			Summary: "Returns details about memory usage."},
		&cmdtable.Cmd{Name: "memory|doctor", Arity: 2, Run: memoryDoctor, Group: g, Since: "4.0.0",
			Summary: "Outputs a memory problems report."})
}
