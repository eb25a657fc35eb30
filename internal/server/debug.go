package server

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/hotkv/hotkv/internal/aof"
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/commands"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/glob"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/persist"
	"github.com/hotkv/hotkv/internal/rdb"
	"github.com/hotkv/hotkv/internal/repl"
	"github.com/hotkv/hotkv/internal/resp"
	"github.com/hotkv/hotkv/internal/value/hash"
	"github.com/hotkv/hotkv/internal/value/list"
	"github.com/hotkv/hotkv/internal/value/listpack"
	"github.com/hotkv/hotkv/internal/value/set"
	"github.com/hotkv/hotkv/internal/value/stream"
	"github.com/hotkv/hotkv/internal/value/vset"
	"github.com/hotkv/hotkv/internal/value/zset"
	"github.com/hotkv/hotkv/internal/vector/quant"
	"github.com/hotkv/hotkv/internal/vector/vstore"
)

// DEBUG: the subcommands Redis's own test suite and client libraries'
// suites rely on, with Redis 8.0.2's replies (docs/commands/keys.md lists
// them and where HotKV differs). The crash subcommands (SEGFAULT, PANIC,
// ASSERT, OOM, ...) and those of subsystems HotKV lacks (replication,
// cluster, jemalloc's MALLCTL) answer Redis's unknown-subcommand error.

// debugHelp is Redis's help for the subcommands HotKV has, in its order.
var debugHelp = []string{
	"CHANGE-REPL-ID",
	"    Change the replication IDs of the instance.",
	"    Dangerous: should be used only for testing the replication subsystem.",
	"DIGEST",
	"    Output a hex signature representing the current DB content.",
	"DIGEST-VALUE <key> [<key> ...]",
	"    Output a hex signature of the values of all the specified keys.",
	"ERROR <string>",
	"    Return a Redis protocol error with <string> as message. Useful for clients",
	"    unit tests to simulate Redis errors.",
	"LOG <message>",
	"    Write <message> to the server log.",
	"HTSTATS <dbid> [full]",
	"    Return hash table statistics of the specified Redis database.",
	"HTSTATS-KEY <key> [full]",
	"    Like HTSTATS but for the hash table stored at <key>'s value.",
	"LOADAOF",
	"    Flush the AOF buffers on disk and reload the AOF in memory.",
	"REPLICATE <string>",
	"    Replicates the provided string to replicas, allowing data divergence.",
	"OBJECT <key>",
	"    Show low level info about `key` and associated value.",
	"POPULATE <count> [<prefix>] [<size>]",
	"    Create <count> string keys named key:<num>. If <prefix> is specified then",
	"    it is used instead of the 'key' prefix. These are not propagated to",
	"    replicas. Cluster slots are not respected so keys not belonging to the",
	"    current node can be created in cluster mode.",
	"PROTOCOL <type>",
	"    Reply with a test value of the specified type. <type> can be: string,",
	"    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
	"    true, false.",
	"RELOAD [option ...]",
	"    Save the RDB on disk and reload it back to memory. Valid <option> values:",
	"    * MERGE: conflicting keys will be loaded from RDB.",
	"    * NOFLUSH: the existing database will not be removed before load, but",
	"      conflicting keys will generate an exception and kill the server.",
	"    * NOSAVE: the database will be loaded from an existing RDB file.",
	"    Examples:",
	"    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
	"      the database.",
	"    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
	"      existing RDB file.",
	"    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
	"      file to the database.",
	"SET-ACTIVE-EXPIRE <0|1>",
	"    Setting it to 0 disables expiring keys (and hash-fields) in background ",
	"    when they are not accessed (otherwise the Redis behavior). Setting it",
	"    to 1 reenables back the default.",
	"QUICKLIST-PACKED-THRESHOLD <size>",
	"    Sets the threshold for elements to be inserted as plain vs packed nodes",
	"    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
	"SET-SKIP-CHECKSUM-VALIDATION <0|1>",
	"    Enables or disables checksum checks for RDB files and RESTORE's payload.",
	"SLEEP <seconds>",
	"    Stop the server for <seconds>. Decimals allowed.",
	"STRINGMATCH-TEST",
	"    Run a fuzz tester against the stringmatchlen() function.",
	"LISTPACK <key>",
	"    Show low level info about the listpack encoding of <key>.",
	"QUICKLIST <key> [<0|1>]",
	"    Show low level info about the quicklist encoding of <key>.",
	"    The optional argument (0 by default) sets the level of detail",
	"PAUSE-CRON <0|1>",
	"    Stop periodic cron job processing.",
	"REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
	"    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
	"    In case NEVER is provided the last observed peak will never be reset",
	"    In case RESET is provided the peak reset time will be restored to the default value",
	"REPLYBUFFER RESIZING <0|1>",
	"    Enable or disable the reply buffer resize cron job",
	"DICT-RESIZING <0|1>",
	"    Enable or disable the main dict and expire dict resizing.",
}

func debugCmd(x *cmdtable.Ctx) {
	c := cl(x)
	sub, n := x.Args[1], len(x.Args)
	is := func(name string, ok bool) bool { return ok && cmdtable.Is(sub, name) }
	switch {
	case is("help", n == 2):
		x.W.Array(len(debugHelp) + 3)
		x.W.Simple("DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
		for _, l := range debugHelp {
			x.W.Simple(l)
		}
		x.W.Simple("HELP")
		x.W.Simple("    Print this help.")
	case is("sleep", n == 3):
		f, _ := cmdtable.ParseFloat(x.Args[2]) // Redis's strtod: anything else sleeps 0
		time.Sleep(time.Duration(f * float64(time.Second)))
		x.W.OK()
	case is("set-active-expire", n == 3):
		c.s.debug.activeExpire.Store(atoi(x.Args[2]) != 0)
		x.W.OK()
	case is("log", n == 3):
		c.s.logf("warning", "DEBUG LOG: %s", cstr(x.Args[2], -1))
		x.W.OK()
	case is("reload", true):
		debugReload(x, c)
	case is("loadaof", true):
		debugLoadAOF(x, c)
	case is("object", n == 3):
		debugObject(x, c)
	case is("listpack", n == 3):
		debugListpack(x, c)
	case is("quicklist", n == 3 || n == 4):
		debugQuicklist(x, c)
	case is("populate", n >= 3 && n <= 5):
		debugPopulate(x, c)
	case is("digest", n == 2):
		release := c.lockAllForDebug()
		d := datasetDigest(c.s.ks)
		release()
		x.W.Simple(hex.EncodeToString(d[:]))
	case is("digest-value", true):
		x.W.Array(n - 2)
		for _, key := range x.Args[2:] {
			var d [20]byte
			release := c.lockForDebug(key)
			if e := x.DB.ShardFor(key).Get(key); e != nil { // logically expired keys too, as Redis
				objectDigest(&d, e)
			}
			release()
			x.W.Simple(hex.EncodeToString(d[:]))
		}
	case is("protocol", n == 3):
		debugProtocol(x)
	case is("quicklist-packed-threshold", n == 3):
		if sz, ok := config.Memtoull(string(x.Args[2])); !ok || !list.SetPackedThreshold(sz) {
			x.Error("ERR argument must be a memory value bigger than 1 and smaller than 4gb")
			return
		}
		x.W.OK()
	case is("set-skip-checksum-validation", n == 3):
		rdb.SkipChecksum.Store(atoi(x.Args[2]) != 0)
		x.W.OK()
	case is("error", n == 3):
		x.W.Error(string(x.Args[2]))
	case is("htstats", n >= 3):
		debugHTStats(x, c)
	case is("htstats-key", n >= 3):
		debugHTStatsKey(x, c)
	case is("replicate", n >= 3):
		// To the replicas only, not the log, as Redis's: for tests of
		// what a replica does with a command it cannot run.
		if c.s.feeding() {
			c.s.repl.Feed(c.ctx.DBID, x.Now, [][][]byte{x.Args[2:]})
		}
		x.W.OK()
	case is("change-repl-id", n == 2):
		c.s.logf("notice", "Changing replication IDs after receiving DEBUG change-repl-id")
		id := repl.NewID()
		c.s.replID.Store(&id)
		x.W.OK()
	case is("stringmatch-test", n == 2):
		globFuzz()
		x.W.Simple("Apparently Redis did not crash: test passed")
	case is("set-disable-deny-scripts", n == 3):
		c.s.debug.denyScriptsOff.Store(atoi(x.Args[2]) != 0)
		x.W.OK()
	case is("pause-cron", n == 3):
		c.s.debug.cronPaused.Store(atoi(x.Args[2]) != 0)
		x.W.OK()
	case is("replybuffer", n == 4):
		// HotKV's reply buffers have no peak tracking or resize cron to
		// tune: the arguments are checked as Redis checks them.
		switch a := x.Args[3]; {
		case cmdtable.Is(x.Args[2], "peak-reset-time"):
			if _, ok := cmdtable.ParseInt(a); !ok && !cmdtable.Is(a, "never") && !cmdtable.Is(a, "reset") {
				x.Error(cmdtable.ErrNotInt)
				return
			}
		case !cmdtable.Is(x.Args[2], "resizing"):
			x.Error(debugUnknown(sub))
			return
		}
		x.W.OK()
	case is("dict-resizing", n == 3):
		x.W.OK() // HotKV's key tables must grow as they fill (open addressing): nothing to switch
	default:
		x.Error(debugUnknown(sub))
	}
}

// debugUnknown is Redis's reply to a subcommand it does not know or got
// the wrong number of arguments.
func debugUnknown(sub []byte) string {
	return cmdtable.UnknownSubcommand(cstr(sub, 128), "DEBUG")
}

// lockForDebug locks key's shard for a DEBUG subcommand and returns the
// release. Inside EXEC or a script, which hold every shard for DEBUG
// (countsShards), there is nothing to take.
func (c *client) lockForDebug(key []byte) func() {
	if c.tx.inExec {
		return func() {}
	}
	sh := c.ctx.DB.ShardFor(key)
	sh.LockBy(c.id)
	return sh.Unlock
}

// lockAllForDebug is lockForDebug for every shard of every database.
func (c *client) lockAllForDebug() func() {
	if c.tx.inExec {
		return func() {}
	}
	g := c.s.gate.shared(c.id)
	c.s.ks.LockAllBy(c.id)
	return func() {
		c.s.ks.UnlockAll()
		g.RUnlock()
	}
}

// debugObject is DEBUG OBJECT key: Redis's line about the value. The
// address is the value's storage, which stays put while a command
// modifies it in place (INCR of a number of the same length) as Redis's
// object does; serializedlength is Redis's with rdbcompression no.
func debugObject(x *cmdtable.Ctx, c *client) {
	key := x.Args[2]
	defer c.lockForDebug(key)()
	e := x.DB.ShardFor(key).Get(key)
	if e == nil {
		x.Error(cmdtable.ErrNoSuchKey)
		return
	}
	var addr any = e.Obj
	if b := e.Bytes(); cap(b) > 0 {
		addr = unsafe.SliceData(b)
	} else if e.Obj == nil {
		addr = e // an empty string
	}
	refcount := 1
	if e.SharedInt() {
		refcount = 2147483647
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Value at:%p refcount:%d encoding:%s serializedlength:%d lru:%d lru_seconds_idle:%d",
		addr, refcount, e.Encoding(), savedLen(e, x.Now), e.Access(), e.IdleSeconds(keyspace.Clock.Load()))
	if l, ok := e.Obj.(*list.List); ok && l.Encoding() == "quicklist" {
		nodes, size := 0, 0
		l.EachNode(func(plain bool, vals [][]byte) {
			nodes++
			size += nodeSize(plain, vals)
		})
		fmt.Fprintf(&b, " ql_nodes:%d ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:0 ql_uncompressed_size:%d",
			nodes, float64(l.Len())/float64(nodes), l.Fill(), size)
	}
	x.W.Simple(b.String())
}

// savedLen is serializedlength: the value's RDB serialization, or for a
// vector set (a module value in Redis, with no RDB form here) HotKV's own
// snapshot encoding.
func savedLen(e *keyspace.Entry, now int64) int {
	n, err := rdb.SavedLen(e, now)
	if errors.Is(err, rdb.ErrUnsupported) {
		var enc persist.Enc
		if persist.EncodeValue(&enc, e) == nil {
			n = len(enc.B)
		}
	}
	return n
}

// nodeSize is a quicklist node's bytes as Redis counts them
// (quicklistNode.sz): a plain node's element, or its listpack's size.
func nodeSize(plain bool, vals [][]byte) int {
	if plain {
		return len(vals[0])
	}
	n := listpack.Header
	for _, v := range vals {
		n += listpack.EntrySize(v)
	}
	return n
}

// debugPopulate is DEBUG POPULATE count [prefix] [size]: string keys
// prefix:0 .. prefix:count-1 (key:N by default) holding value:N, cut or
// zero-padded to size when one is given; keys that exist are left alone.
// Like Redis's, the writes are not logged.
func debugPopulate(x *cmdtable.Ctx, c *client) {
	count, ok := cmdtable.ParseInt(x.Args[2])
	if !ok || count < 0 {
		x.Error(cmdtable.ErrNotPositive)
		return
	}
	prefix := []byte("key")
	if len(x.Args) >= 4 {
		prefix = cstr(x.Args[3], -1) // Redis formats it with %s
	}
	var size int64
	if len(x.Args) == 5 {
		if size, ok = cmdtable.ParseInt(x.Args[4]); !ok || size < 0 {
			x.Error(cmdtable.ErrNotPositive)
			return
		}
	}
	var key, val, padded []byte
	if size > 0 {
		padded = make([]byte, size)
	}
	for j := range count {
		key = strconv.AppendInt(append(append(key[:0], prefix...), ':'), j, 10)
		key = key[:min(len(key), 127)] // Redis prints it into a 128-byte buffer
		val = strconv.AppendInt(append(val[:0], "value:"...), j, 10)
		v := val
		if padded != nil {
			clear(padded)
			copy(padded, val)
			v = padded
		}
		sh := x.DB.ShardFor(key)
		release := c.lockForDebug(key)
		if j := c.s.persist.snap.Load(); j != nil { // a snapshot being taken sees the shard as it was
			j.capture(x.DBID, keyspace.ShardIndex(key), sh)
		}
		if sh.Lookup(key, x.Now) == nil {
			sh.SetString(key, v, 0, false)
			sh.Touch(key)
		}
		release()
	}
	x.W.OK()
}

// debugProtocol is DEBUG PROTOCOL type: a fixed reply of each RESP type,
// for client libraries' tests.
func debugProtocol(x *cmdtable.Ctx) {
	w := x.W
	switch t := x.Args[2]; {
	case cmdtable.Is(t, "string"):
		w.BulkString("Hello World")
	case cmdtable.Is(t, "integer"):
		w.Int(12345)
	case cmdtable.Is(t, "double"):
		w.Double(3.141)
	case cmdtable.Is(t, "bignum"):
		w.BigNum("1234567999999999999999999999999999999")
	case cmdtable.Is(t, "null"):
		w.Null()
	case cmdtable.Is(t, "array"):
		w.Array(3)
		for j := range int64(3) {
			w.Int(j)
		}
	case cmdtable.Is(t, "set"):
		w.Set(3)
		for j := range int64(3) {
			w.Int(j)
		}
	case cmdtable.Is(t, "map"):
		w.Map(3)
		for j := range int64(3) {
			w.Int(j)
			w.Bool(j == 1)
		}
	case cmdtable.Is(t, "attrib"):
		if w.Proto == 3 {
			w.Attribute(1)
			w.BulkString("key-popularity")
			w.Array(2)
			w.BulkString("key:123")
			w.Int(90)
		}
		w.BulkString("Some real reply following the attribute")
	case cmdtable.Is(t, "push"):
		if w.Proto != 3 {
			x.Error("ERR RESP2 is not supported by this command")
			return
		}
		// A push made while a command runs goes out after its reply, as
		// in Redis 8.
		w.BulkString("Some real reply following the push reply")
		w.Push(2)
		w.BulkString("server-cpu-usage")
		w.Int(42)
	case cmdtable.Is(t, "true"):
		w.Bool(true)
	case cmdtable.Is(t, "false"):
		w.Bool(false)
	case cmdtable.Is(t, "verbatim"):
		w.Verbatim("This is a verbatim\nstring")
	default:
		x.Error("ERR Wrong protocol type name. Please use one of the following: string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false")
	}
}

// The digests are Redis's (debug.c): SHA1 based, so that HotKV and Redis
// holding the same data answer the same DEBUG DIGEST. Unordered elements
// (keys, set members, hash fields) are xored in; ordered ones (list
// elements, stream entries) are mixed in, which chains them.

// xorDigest xors SHA1(b) into d.
func xorDigest(d *[20]byte, b []byte) {
	h := sha1.Sum(b)
	for i := range d {
		d[i] ^= h[i]
	}
}

// mixDigest makes d SHA1(d xor SHA1(b)).
func mixDigest(d *[20]byte, b []byte) {
	xorDigest(d, b)
	*d = sha1.Sum(d[:])
}

func mixString(d *[20]byte, s string) { mixDigest(d, unsafe.Slice(unsafe.StringData(s), len(s))) }

// Redis's type numbers, hashed with each value (a vector set is a module
// value there).
var digestTypes = [...]uint32{
	keyspace.KindString: 0, keyspace.KindList: 1, keyspace.KindSet: 2, keyspace.KindZSet: 3,
	keyspace.KindHash: 4, keyspace.KindVectorSet: 5, keyspace.KindStream: 6,
}

// datasetDigest is DEBUG DIGEST's (computeDatasetDigest): each database
// with keys mixes in its number, then xors in each key's digest. The
// caller holds every shard.
func datasetDigest(ks *keyspace.Keyspace) [20]byte {
	var final [20]byte
	for id, db := range ks.DBs {
		keys := 0
		for i := range keyspace.ShardCount {
			keys += db.Shard(i).Len()
		}
		if keys == 0 {
			continue
		}
		mixDigest(&final, binary.BigEndian.AppendUint32(nil, uint32(id)))
		for i := range keyspace.ShardCount {
			for k, e := range db.Shard(i).All() { // logically expired keys too, as Redis
				var d [20]byte
				mixString(&d, k)
				objectDigest(&d, e)
				xorDigest(&final, d[:])
			}
		}
	}
	return final
}

// objectDigest mixes e's type, its value and whether it expires into d
// (xorObjectDigest).
func objectDigest(d *[20]byte, e *keyspace.Entry) {
	mixDigest(d, binary.BigEndian.AppendUint32(nil, digestTypes[e.Kind]))
	switch o := e.Obj.(type) {
	case nil:
		mixDigest(d, e.Bytes())
	case *list.List:
		o.Range(0, o.Len()-1, func(v []byte) bool {
			mixDigest(d, v)
			return true
		})
	case *set.Set:
		o.Range(func(m []byte) bool {
			xorDigest(d, m)
			return true
		})
	case *zset.ZSet:
		var score []byte
		for it := o.At(0); it.Valid(); it.Next() {
			var ele [20]byte
			mixString(&ele, it.Member())
			score = resp.AppendDtoa(score[:0], it.Score())
			mixDigest(&ele, score)
			xorDigest(d, ele[:])
		}
	case *hash.Hash:
		o.Range(func(f, v []byte) bool {
			var ele [20]byte
			mixDigest(&ele, f)
			mixDigest(&ele, v)
			if o.Expiry(f) != 0 {
				xorDigest(&ele, []byte("!!hexpire!!"))
			}
			xorDigest(d, ele[:])
			return true
		})
	case *stream.Stream:
		var id []byte
		o.Range(stream.ID{}, stream.MaxID, false, func(en stream.Entry) bool {
			id = strconv.AppendUint(append(strconv.AppendUint(id[:0], en.ID.Ms, 10), '.'), en.ID.Seq, 10)
			mixDigest(d, id)
			en.Each(func(b []byte) { mixDigest(d, b) })
			return true
		})
	case *vset.Set:
		vsetDigest(d, o)
	}
	if e.Expire != 0 {
		xorDigest(d, []byte("!!expire!!"))
	}
}

// vsetDigest is what Redis's vector-set module adds (VectorSetDigest, fed
// through the module digest API): one sequence of the element count and
// dimension, then one per element of its stored vector (the bytes VEMB RAW
// shows; binary vectors in whole 64-bit words), name and attributes,
// each sequence's digest xored in.
func vsetDigest(d *[20]byte, s *vset.Set) {
	var x, o [20]byte
	end := func() { // RedisModule_DigestEndSequence
		xorDigest(&x, o[:])
		o = [20]byte{}
	}
	mixDigest(&o, strconv.AppendInt(nil, int64(s.Len()), 10))
	mixDigest(&o, strconv.AppendInt(nil, int64(s.Dim()), 10))
	end()
	idx := s.Index()
	f := idx.Format()
	s.Each(func(id uint32, el *vstore.Element) bool {
		v := f.Raw(idx.Code(id))
		if f.Kind() == quant.Bin {
			v = append(slices.Clip(v), make([]byte, (f.Dim()+63)/64*8-len(v))...)
		}
		mixDigest(&o, v)
		mixString(&o, el.Name)
		if el.Attrs != "" {
			mixString(&o, el.Attrs)
		}
		end()
		return true
	})
	xorDigest(d, x[:])
}

// globFuzz is DEBUG STRINGMATCH-TEST: random patterns against random
// strings, as Redis fuzzes stringmatchlen (10 million times; HotKV's
// fuzz tests cover the matcher, this is a smoke run), to show it neither
// crashes nor hangs.
func globFuzz() {
	var pat, str [32]byte
	for range 100_000 {
		p, s := pat[:rand.IntN(len(pat))], str[:rand.IntN(len(str))]
		for i := range p {
			p[i] = byte(rand.IntN(128))
		}
		for i := range s {
			s[i] = byte(rand.IntN(128))
		}
		glob.Match(p, s, false)
	}
}

// errReloadInTx refuses DEBUG RELOAD and LOADAOF where they would have to
// wait for locks their caller holds.
const errReloadInTx = "ERR DEBUG RELOAD and LOADAOF cannot run inside MULTI/EXEC or a script"

// errReloadFailed is DEBUG RELOAD's reply when the file cannot be loaded
// (or, with NOFLUSH, holds a key already in memory).
const errReloadFailed = "ERR Error trying to load the RDB dump, check server logs."

// debugReload is DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: the snapshot is
// saved (unless NOSAVE) and loaded back in place of the data (beside it
// with NOFLUSH, where a key in both is an error unless MERGE lets the
// snapshot's win). It all happens while every shard is held, so no write
// falls between the save and the load; the data is replaced only once the
// file has loaded whole. The registries (named vector indexes, AI layer,
// functions) are saved but stay as they are in memory.
func debugReload(x *cmdtable.Ctx, c *client) {
	flush, save, merge := true, true, false
	for _, o := range x.Args[2:] {
		switch {
		case cmdtable.Is(o, "merge"):
			merge = true
		case cmdtable.Is(o, "noflush"):
			flush = false
		case cmdtable.Is(o, "nosave"):
			save = false
		default:
			x.Error("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.")
			return
		}
	}
	if c.tx.inExec {
		x.Error(errReloadInTx)
		return
	}
	s := c.s
	mark := len(x.W.B)
	var start time.Time
	var base uint64
	if save {
		s.claimPersistence()
		defer s.persist.running.Store(false)
		start, base = time.Now(), s.dirty()
	}
	release := s.holdAll(c)
	defer release()
	path := s.snapshotPath()
	if save {
		keys, err := s.writeSnapshotHeld(path)
		if err != nil {
			s.logf("warning", "Error saving DB on disk: %v", err)
			x.Error("ERR")
			return
		}
		s.saved(base, keys, start)
	}
	staging := keyspace.New(len(s.ks.DBs))
	if _, _, err := s.loadSnapshot(path, staging, false); err != nil {
		s.logf("warning", "DEBUG RELOAD: loading %s: %v", path, err)
		x.Error(errReloadFailed)
		return
	}
	if !flush {
		if k, ok := mergeLive(s.ks, staging, merge); !ok {
			s.logf("warning", "DEBUG RELOAD NOFLUSH: key %q is both in memory and in %s (MERGE lets the file's win)", k, path)
			x.Error(errReloadFailed)
			return
		}
	}
	s.replaceData(c, staging, mark, flush) // NOFLUSH: the live keys merged in stay
	s.logf("notice", "DB reloaded by DEBUG RELOAD")
	x.W.OK()
}

// debugLoadAOF is DEBUG LOADAOF: the append-only log is written out and
// fsynced, then loaded in place of the data, everything held as for
// RELOAD. With appendonly off, the log on disk is loaded (one left by the
// log turned off, or by BGREWRITEAOF); with none, HotKV answers Redis's
// error but keeps the data (Redis has emptied it by then).
func debugLoadAOF(x *cmdtable.Ctx, c *client) {
	s := c.s
	if c.tx.inExec {
		x.Error(errReloadInTx)
		return
	}
	mark := len(x.W.B)
	s.claimPersistence() // a rewrite would switch files under the load
	defer s.persist.running.Store(false)
	release := s.holdAll(c)
	defer release()
	a := s.aof.Load()
	var err error
	var dir, base string
	var incrs []string
	switch {
	case a == nil: // off: the log on disk, if any (as Redis loads it)
		dir = s.aofDir()
		base, incrs, err = persist.ReadManifest(aof.ManifestPath(dir, s.Config().AppendFilename))
	case a.Pending(): // turned on, and the rewrite writing its first base failed
		err = errors.New("the log has no base yet")
	default:
		var werr error
		if dir, base, incrs, werr = a.Files(); werr != nil {
			err = errors.New("the log could not be written out")
		}
	}
	staging := keyspace.New(len(s.ks.DBs))
	if err == nil {
		_, _, _, err = s.readAOF(dir, base, incrs, staging, false)
	}
	if err != nil {
		s.logf("warning", "DEBUG LOADAOF: %v", err)
		x.Error("ERR Error trying to load the AOF files, check server logs.")
		return
	}
	s.replaceData(c, staging, mark, true)
	s.logf("notice", "Append Only File loaded by DEBUG LOADAOF")
	x.W.OK()
}

// claimPersistence waits for a running save or rewrite, then claims
// persist.running for the caller.
func (s *Server) claimPersistence() {
	for !s.persist.running.CompareAndSwap(false, true) {
		time.Sleep(10 * time.Millisecond)
	}
}

// holdAll takes every shard for c and regMu (which keyless writes, and the
// log records they append, hold shared), in the order a snapshot takes
// them, and returns the release.
func (s *Server) holdAll(c *client) func() {
	g := s.gate.shared(c.id)
	s.ks.LockAllBy(c.id)
	s.regMu.Lock()
	return func() {
		s.regMu.Unlock()
		s.ks.UnlockAll()
		g.RUnlock()
	}
}

// mergeLive adds the live keys to staging for RELOAD NOFLUSH: a key in
// both keeps staging's value with merge, else it is returned with false.
// The caller holds every live shard.
func mergeLive(live, staging *keyspace.Keyspace, merge bool) (string, bool) {
	now := time.Now().UnixMilli()
	for d, db := range live.DBs {
		for i := range keyspace.ShardCount {
			dst := staging.DBs[d].Shard(i) // a key's shard is the same in every keyspace
			for k, e := range db.Shard(i).All() {
				key := []byte(k)
				switch {
				case e.Expired(now):
				case dst.Get(key) == nil:
					dst.Put(key, e)
				case !merge:
					return k, false
				}
			}
		}
	}
	return "", true
}

// replaceData makes staging's databases the server's, as a flush and a
// load would: watched keys are touched, blocked clients served from the
// new data, tracking clients told to drop everything, and the data
// replaced handed to the lazy free when dropped (not when its keys were
// merged into staging). The caller holds every shard.
func (s *Server) replaceData(c *client, staging *keyspace.Keyspace, mark int, dropped bool) {
	if j := s.persist.snap.Load(); j != nil { // a BGSAVE running keeps what it saw
		for d, db := range s.ks.DBs {
			captureDB(j, d, db)
		}
	}
	now := time.Now().UnixMilli()
	var old int64
	for d, db := range s.ks.DBs {
		keyspace.Swap(db, staging.DBs[d], now)
		if dropped {
			old += commands.DBBytes(staging.DBs[d], now) // the data replaced, to reclaim
		}
		// The caller still holds staging: emptied, it keeps nothing of
		// the old data alive through the collection the drop may start.
		staging.DBs[d].Flush()
	}
	s.ks.Lazy.Drop(0, old)
	if s.track.InUse() {
		c.flushedTracking(mark)
	}
}

// debugHTStats is DEBUG HTSTATS dbid [full], in the shape of Redis's
// dictionary statistics: the key table (1024 shards' open-addressing
// tables, summed; full adds how far keys sit from their home slot) and
// the keys with an expiry (kept in Go maps, whose size is not known).
func debugHTStats(x *cmdtable.Ctx, c *client) {
	id, ok := cmdtable.ParseInt(x.Args[2])
	if !ok {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	if id < 0 || id >= int64(len(c.s.ks.DBs)) {
		x.Error("ERR Out of range database")
		return
	}
	full := len(x.Args) >= 4 && cmdtable.Is(x.Args[3], "full")
	db := c.s.ks.DBs[id]
	var slots, keys, volatile, maxProbe, totalProbe int
	var probes []int
	for i := range keyspace.ShardCount {
		sh := db.Shard(i)
		if !c.tx.inExec {
			sh.LockBy(c.id)
		}
		slots += sh.Probes(func(n int) {
			if full {
				if n >= len(probes) {
					probes = append(probes, make([]int, n+1-len(probes))...)
				}
				probes[n]++
				maxProbe, totalProbe = max(maxProbe, n), totalProbe+n
			}
		})
		keys += sh.Len()
		volatile += sh.Volatile()
		if !c.tx.inExec {
			sh.Unlock()
		}
	}
	var b strings.Builder
	b.WriteString("[Dictionary HT]\n")
	if keys > 0 {
		fmt.Fprintf(&b, "Hash table 0 stats (main hash table):\n table size: %d\n number of elements: %d\n", slots, keys)
		if full {
			fmt.Fprintf(&b, " max probe length: %d\n avg probe length: %.02f\n Probe length distribution:\n", maxProbe, float64(totalProbe)/float64(keys))
			for n, k := range probes {
				if k > 0 {
					fmt.Fprintf(&b, "   %d: %d (%.02f%%)\n", n, k, float64(k)/float64(keys)*100)
				}
			}
		}
	}
	b.WriteString("[Expires HT]\n")
	if volatile > 0 {
		fmt.Fprintf(&b, "Hash table 0 stats (main hash table):\n number of elements: %d\n", volatile)
	}
	x.W.Verbatim(b.String())
}

// debugHTStatsKey is DEBUG HTSTATS-KEY key [full]: Redis's statistics of
// the chained table behind a hashtable hash or set or a skiplist sorted
// set (HotKV's are chained as Redis's, and never rehashing).
func debugHTStatsKey(x *cmdtable.Ctx, c *client) {
	key := x.Args[2]
	full := len(x.Args) >= 4 && cmdtable.Is(x.Args[3], "full")
	defer c.lockForDebug(key)()
	e := x.DB.ShardFor(key).Peek(key, x.Now)
	if e == nil {
		x.Error(cmdtable.ErrNoSuchKey)
		return
	}
	var buckets, elements, used, maxChain int
	var chains []int
	count := func(n int) {
		buckets++
		elements += n
		if n > 0 {
			used++
		}
		maxChain = max(maxChain, n)
		if n >= len(chains) {
			chains = append(chains, make([]int, n+1-len(chains))...)
		}
		chains[n]++
	}
	t, ok := e.Obj.(interface{ Chains(func(n int)) bool })
	if !ok || !t.Chains(count) {
		x.Error("ERR The value stored at the specified key is not represented using an hash table")
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Hash table 0 stats (main hash table):\n table size: %d\n number of elements: %d\n", buckets, elements)
	if full {
		fmt.Fprintf(&b, " different slots: %d\n max chain length: %d\n avg chain length (counted): %.02f\n avg chain length (computed): %.02f\n Chain length distribution:\n",
			used, maxChain, float64(elements)/float64(used), float64(elements)/float64(used))
		for n, k := range chains {
			if k > 0 {
				fmt.Fprintf(&b, "   %d: %d (%.02f%%)\n", n, k, float64(k)/float64(buckets)*100)
			}
		}
	}
	x.W.Verbatim(b.String())
}

// debugListpack is DEBUG LISTPACK key: the entries of a listpack-encoded
// value, as Redis's listpack would hold them, go to the server log (Redis
// prints its listpack's bytes on its standard output).
func debugListpack(x *cmdtable.Ctx, c *client) {
	key := x.Args[2]
	defer c.lockForDebug(key)()
	e := x.DB.ShardFor(key).Peek(key, x.Now)
	if e == nil {
		x.Error(cmdtable.ErrNoSuchKey)
		return
	}
	enc := e.Encoding()
	if enc != "listpack" && enc != "listpackex" {
		x.Error("ERR Not a listpack encoded object.")
		return
	}
	var vals [][]byte
	switch o := e.Obj.(type) {
	case *list.List:
		o.EachNode(func(_ bool, v [][]byte) { vals = v })
	case *set.Set:
		o.Range(func(m []byte) bool {
			vals = append(vals, m)
			return true
		})
	case *zset.ZSet:
		for it := o.At(0); it.Valid(); it.Next() {
			vals = append(vals, []byte(it.Member()), resp.AppendFloat(nil, it.Score()))
		}
	case *hash.Hash:
		o.Range(func(f, v []byte) bool {
			vals = append(vals, f, v)
			if enc == "listpackex" { // each field's expiry follows its value, 0 for none
				vals = append(vals, strconv.AppendInt(nil, o.Expiry(f), 10))
			}
			return true
		})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "DEBUG LISTPACK %q: {total bytes %d} {num entries %d}\n", key, nodeSize(false, vals), len(vals))
	writeEntries(&b, vals, "  ")
	c.s.logf("warning", "%s", b.String())
	x.W.Simple("Listpack structure printed to the server log")
}

// debugQuicklist is DEBUG QUICKLIST key [0|1]: a quicklist's nodes, and
// with 1 their elements, go to the server log (Redis prints them on its
// standard output).
func debugQuicklist(x *cmdtable.Ctx, c *client) {
	key := x.Args[2]
	full := len(x.Args) == 4 && atoi(x.Args[3]) != 0
	defer c.lockForDebug(key)()
	e := x.DB.ShardFor(key).Peek(key, x.Now)
	if e == nil {
		x.Error(cmdtable.ErrNoSuchKey)
		return
	}
	l, ok := e.Obj.(*list.List)
	if !ok || l.Encoding() != "quicklist" {
		x.Error("ERR Not a quicklist encoded object.")
		return
	}
	var nodes strings.Builder
	i := 0
	l.EachNode(func(plain bool, vals [][]byte) {
		container := "PACKED"
		if plain {
			container = "PLAIN"
		}
		fmt.Fprintf(&nodes, "  {quicklist node(%d) {container : %s, size: %d, count: %d}}\n", i, container, nodeSize(plain, vals), len(vals))
		if full {
			writeEntries(&nodes, vals, "    ")
		}
		i++
	})
	c.s.logf("warning", "DEBUG QUICKLIST %q: {count : %d} {len : %d} {fill : %d} {compress : 0}\n%s", key, l.Len(), i, l.Fill(), nodes.String())
	x.W.Simple("Quicklist structure printed to the server log")
}

// writeEntries lists vals, each quoted, the first 40 bytes of longer ones
// (as Redis's lpRepr cuts them).
func writeEntries(b *strings.Builder, vals [][]byte, indent string) {
	for i, v := range vals {
		more := ""
		if len(v) > 40 {
			v, more = v[:40], "..."
		}
		fmt.Fprintf(b, "%s[%d] %q%s\n", indent, i, v, more)
	}
}

func init() {
	cmdtable.Register(&cmdtable.Cmd{Name: "debug", Arity: -2, Run: debugCmd, Group: "server", Since: "1.0.0",
		Flags:   cmdtable.Admin | cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale | cmdtable.Protected,
		Summary: "A container for debugging commands."})
}
