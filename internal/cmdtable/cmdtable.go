package cmdtable

import (
	"encoding/binary"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/hotkv/hotkv/internal/ai"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/notify"
	"github.com/hotkv/hotkv/internal/resp"
	"github.com/hotkv/hotkv/internal/vector/vindex"
)

// Flags describe how the dispatcher treats a command.
type Flags uint32

// Command flags. The lower ones mirror Redis's COMMAND INFO flags.
const (
	Write           Flags = 1 << iota // modifies data; touches WATCHed keys
	ReadOnly                          // reads data only
	Admin                             // administrative
	PubSub                            // pub/sub related
	NoScript                          // not allowed from scripts
	Fast                              // O(1) or O(log n)
	NoAuth                            // allowed before AUTH
	Loading                           // allowed while loading
	Stale                             // allowed on a stale replica
	NoMulti                           // not queued in MULTI: runs at once (or errors)
	AllowBusy                         // allowed while a script is busy
	DenyOOM                           // refused when out of memory
	NoMandatoryKeys                   // may name no key (EVAL with numkeys 0)

	LockDB  // needs every shard of the selected database
	LockAll // needs every shard of every database

	// SelfTouch: the handler touches (Shard.Touch) only the keys it really
	// modified, instead of the dispatcher touching every key argument of a
	// Write command; Redis signals WATCH only on real changes.
	SelfTouch

	// SelfLock: the dispatcher takes no lock; the handler locks what it
	// touches as it goes (Lua scripts, which cannot name their keys first).
	SelfLock

	// Protected: DEBUG and MODULE LOAD/LOADEX/UNLOAD run only where
	// enable-debug-command / enable-module-command allow (Redis's
	// CMD_PROTECTED, which COMMAND INFO does not show either).
	Protected

	// Flags only COMMAND INFO shows, for clients that read them (a cluster
	// client asks COMMAND GETKEYS for movablekeys commands).
	Blocking       // may block the client (also ACL category @blocking)
	SkipMonitor    // not fed to MONITOR as is (scripts)
	SkipSlowlog    // not logged by SLOWLOG as itself (EXEC)
	Asking         // RESTORE-ASKING
	NoAsyncLoading // refused during async loading (SAVE, BGSAVE, BGREWRITEAOF)
	MovableKeys    // keys not described by First/Last/Step; implied by a Keys function
)

var flagNames = []struct {
	f    Flags
	name string
}{
	{Write, "write"}, {ReadOnly, "readonly"}, {DenyOOM, "denyoom"}, {Admin, "admin"},
	{PubSub, "pubsub"}, {NoScript, "noscript"}, {Blocking, "blocking"}, {Loading, "loading"}, {Stale, "stale"},
	{SkipMonitor, "skip_monitor"}, {SkipSlowlog, "skip_slowlog"}, {Asking, "asking"},
	{Fast, "fast"}, {NoAuth, "no_auth"}, {NoMandatoryKeys, "no_mandatory_keys"}, {NoAsyncLoading, "no_async_loading"},
	{NoMulti, "no_multi"}, {MovableKeys, "movablekeys"}, {AllowBusy, "allow_busy"},
}

// FlagNames lists the Redis flag names of c, in Redis's order.
func (c *Cmd) FlagNames() []string {
	f := c.Flags
	if c.Keys != nil {
		f |= MovableKeys
	}
	var out []string
	for _, n := range flagNames {
		if f&n.f != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// Ctx is what a handler works with. The dispatcher has locked every shard the
// command's keys live in (or every shard, for LockDB/LockAll commands) before
// calling Run, so handlers access shards without locking.
type Ctx struct {
	Args [][]byte
	W    *resp.Writer
	KS   *keyspace.Keyspace
	DB   *keyspace.DB
	DBID int
	Now  int64 // unix milliseconds, fixed for the command
	Conn any   // the server's client, for connection-level commands

	// Indexes and AI are the server-wide registries beside the keyspace:
	// the named vector indexes (VSIM.CREATEINDEX) and the AI layer's prompt
	// caches, semantic caches and agent memories.
	Indexes *vindex.Registry
	AI      *ai.Registry

	// keyspace_hits/misses counted by LookupRead. The connection owns the
	// context and publishes these to INFO in batches, so they are plain ints.
	Hits, Misses int64

	// The key argument the dispatcher hashed to lock its shard, so that
	// Shard need not hash it again (see SetKeyShard).
	keyData   *byte
	keyLen    int
	keyDB     *keyspace.DB
	keyShard  *keyspace.Shard
	keyHash   uint64 // its table hash, when keyHashed
	keyHashed bool
	// LookupReadMany's scratch space.
	manyShards []*keyspace.Shard
	manyHashes []uint64

	// InScript is set while the command runs from a script's redis.call
	// (Redis's CLIENT_SCRIPT): SORT ... BY nosort then sorts a set.
	InScript bool

	// Blocker parks the client for blocking commands (BLPOP...); nil where a
	// command must not block (inside MULTI), which then answers as on timeout.
	Blocker Blocker

	// After, when a handler sets it, runs once the shard locks are released
	// (at once, still locked, inside MULTI/EXEC): a read that has pinned its
	// object under the lock does its slow part there, reply included, so it
	// neither blocks the shard nor is serialised with readers of the same
	// key (VSIM). The dispatcher clears it.
	After func()

	// Master is set on a replica for the commands of its master's stream
	// (Redis's CLIENT_MASTER): a cache's own size limits then evict
	// nothing, as the master sends what they evicted there as deletions.
	Master bool

	// Logged is set when the server logs writes (appendonly yes): without
	// it, a handler on a hot path may skip building what it would Propagate.
	Logged bool

	// effects, once a handler calls Propagate, replace Args in the
	// append-only log: a command whose outcome depends on the clock or on
	// the server's choice (XADD *, XREADGROUP) logs what it did, so that a
	// replay does the same.
	effects    [][][]byte
	propagated bool
	noChange   bool // NoEffects: it changed nothing (not only logged nothing)
}

// Propagate records a command to log in place of the one running: once a
// handler calls it (or Rewrite, or NoEffects), the log gets exactly the
// commands it propagated. The args are kept until logged: pass slices that outlive the
// command, not ones aliasing Args.
func (c *Ctx) Propagate(args ...[]byte) {
	c.effects = append(c.effects, args)
	c.propagated = true
}

// NoEffects records that the running command changed nothing: nothing is
// logged, and Redis's dirty counter would not move.
func (c *Ctx) NoEffects() { c.propagated, c.noChange = true, true }

// Rewrite records that the running command logs only what it Propagates,
// which may be nothing when it skips building that (Logged unset): unlike
// NoEffects, it says nothing of whether the command changed anything.
func (c *Ctx) Rewrite() { c.propagated = true }

// TakeEffects returns what the handler propagated, whether it chose to
// (otherwise the command logs itself), and whether it said it changed
// nothing (NoEffects), and resets them for the next command.
func (c *Ctx) TakeEffects() (effects [][][]byte, rewritten, noChange bool) {
	e, ok, nc := c.effects, c.propagated, c.noChange
	c.effects, c.propagated, c.noChange = nil, false, false
	return e, ok, nc
}

// Blocker is the server side of blocking commands. A handler that finds
// nothing to serve calls Block with the keys to wait on instead of replying;
// the server re-runs the command when one of them is written, or answers the
// null reply (a null array, or a null bulk when nullBulk) at the timeout
// (0 = never).
type Blocker interface {
	Block(keys [][]byte, timeout time.Duration, nullBulk bool)
}

// SetKeyShard records, for the command about to run, that the argument key
// lives in shard sh of the current database; a nil sh forgets it. The
// dispatcher sets or clears it around every command, because the argument's
// memory is reused by the next one.
func (c *Ctx) SetKeyShard(key []byte, sh *keyspace.Shard) {
	c.keyData, c.keyLen, c.keyDB, c.keyShard = unsafe.SliceData(key), len(key), c.DB, sh
	c.keyHashed = false
}

// SetKeyHash records the table hash (keyspace.Shard.Prefetch) of the key
// SetKeyShard named, when prefetching has computed it already.
func (c *Ctx) SetKeyHash(h uint64) { c.keyHash, c.keyHashed = h, true }

// isKey reports whether key is the very argument SetKeyShard recorded.
func (c *Ctx) isKey(key []byte) bool {
	return c.keyShard != nil && unsafe.SliceData(key) == c.keyData && len(key) == c.keyLen && c.DB == c.keyDB
}

// Shard returns the (locked) shard holding key.
func (c *Ctx) Shard(key []byte) *keyspace.Shard {
	if c.isKey(key) {
		return c.keyShard // the very argument the dispatcher hashed
	}
	return c.DB.ShardFor(key)
}

// Lookup returns key's live entry, or nil.
func (c *Ctx) Lookup(key []byte) *keyspace.Entry {
	if c.keyHashed && c.isKey(key) {
		return c.keyShard.LookupHashed(key, c.keyHash, c.Now)
	}
	return c.Shard(key).Lookup(key, c.Now)
}

// LookupRead is Lookup for a read command: it counts a keyspace hit or miss.
func (c *Ctx) LookupRead(key []byte) *keyspace.Entry {
	e := c.Lookup(key)
	if e != nil {
		c.Hits++
	} else {
		c.Misses++
		c.DB.Notify(notify.KeyMiss, "keymiss", key)
	}
	return e
}

// Notify publishes a keyspace notification for key in the selected
// database, when class cl is enabled (notify-keyspace-events). Handlers call
// it after each real change, with Redis's event name.
func (c *Ctx) Notify(cl notify.Class, event string, key []byte) { c.DB.Notify(cl, event, key) }

// NotifyCommand is Notify with the command's name as the event, as the
// STORE commands (sinterstore, zunionstore...) publish.
func (c *Ctx) NotifyCommand(cl notify.Class, key []byte) {
	if c.DB.Notifying(cl) {
		c.DB.Notify(cl, strings.ToLower(string(c.Args[0])), key)
	}
}

// PrefetchKeys starts loading what writing keys (all in locked shards)
// will read, so that the cache misses of different keys overlap (see
// LookupReadMany).
func (c *Ctx) PrefetchKeys(keys [][]byte) { c.release(c.prefetch(keys)) }

// LookupReadMany is LookupRead for each of keys (all in locked shards),
// appended to out in order. The keys' table slots, then their entries, are
// prefetched together first, so that their cache misses overlap: MGET of
// ten random keys waited for twenty misses one after the other.
func (c *Ctx) LookupReadMany(keys [][]byte, out []*keyspace.Entry) []*keyspace.Entry {
	shards, hashes := c.prefetch(keys)
	for i, k := range keys {
		e := shards[i].LookupHashed(k, hashes[i], c.Now)
		if e != nil {
			c.Hits++
		} else {
			c.Misses++
			c.DB.Notify(notify.KeyMiss, "keymiss", k)
		}
		out = append(out, e)
	}
	c.release(shards, hashes)
	return out
}

// prefetch starts loading every key's table slot, then every entry, and
// returns the keys' shards and hashes in c's scratch space.
func (c *Ctx) prefetch(keys [][]byte) ([]*keyspace.Shard, []uint64) {
	shards, hashes := c.manyShards[:0], c.manyHashes[:0]
	for _, k := range keys {
		sh := c.Shard(k)
		shards = append(shards, sh)
		hashes = append(hashes, sh.Prefetch(k))
	}
	for i, sh := range shards {
		sh.PrefetchEntry(hashes[i])
	}
	return shards, hashes
}

// release hands prefetch's results back as scratch space, keeping no shard
// alive through it.
func (c *Ctx) release(shards []*keyspace.Shard, hashes []uint64) {
	clear(shards)
	c.manyShards, c.manyHashes = shards[:0], hashes[:0]
}

// Touch signals that key was modified (WATCH, blocked clients): handlers of
// SelfTouch commands call it for each key they really change.
func (c *Ctx) Touch(key []byte) { c.Shard(key).Touch(key) }

// Error writes an error reply.
func (c *Ctx) Error(msg string) { c.W.Error(msg) }

// Cmd describes one command.
type Cmd struct {
	Name    string // lower case
	Arity   int    // as Redis: n exact, -n at least n (the name counts)
	Flags   Flags
	First   int // first key argument (1-based; 0 = no keys)
	Last    int // last key argument, negative counts from the end
	Step    int
	Member  int                                  // argument of the first member or field looked up in the key's collection (0: none), prefetched when pipelined; ZADD's is where its plain form has it (options before it only waste the prefetch)
	Keys    func(args [][]byte, dst []int) []int // positions of keys, for numkeys-style commands
	OtherDB func(args [][]byte, db int) int      // another database whose shards of the keys the command needs, db selected (MOVE), or -1
	Run     func(*Ctx)
	Group   string // documentation group: string, generic, connection, ...
	Summary string
	Since   string
	Args    string   // argument syntax for docs, e.g. "key value [NX | XX]"
	ACL     []string // ACL categories without '@'
	Subs    []*Cmd   // subcommands (container commands such as CONFIG)
	ID      int      // dense index for per-command statistics
	Parent  *Cmd     // the container of a subcommand

	// ReplForm, when set, gives the command replicas run to do what args
	// (this command, as logged) did at env.Now: relative times made
	// absolute, a blocking form without its timeout (see doc.go). nil from
	// it: nothing to send. Unset: args are sent as logged.
	ReplForm func(args [][]byte, env ReplEnv) [][]byte
	// Effects is how a Write command's effects reach the log and replicas;
	// every Write command declares it (see doc.go).
	Effects Effects
}

// Effects says where the log learns what a write command did.
type Effects uint8

// Of sets c's Effects to e, for a command a family's helper builds.
func (e Effects) Of(c *Cmd) *Cmd {
	c.Effects = e
	return c
}

const (
	// Undeclared: a Write command left so fails the command table's test.
	Undeclared Effects = iota
	// AsSent: the command as sent, replayed at the time it ran on the data
	// it found, does again what it did (INCR, LPUSH, EXPIRE with its
	// ReplForm). The handler still says when it changed nothing
	// (Ctx.NoEffects), and then nothing is logged.
	AsSent
	// Recorded: what it did depends on chance, the clock or what it found
	// (SPOP, XADD *, BLPOP), so the handler records what to log instead
	// (Ctx.Propagate, Ctx.Rewrite).
	Recorded
)

// ReplEnv is what a ReplForm reads besides the command: when it ran, and
// how the master sends the deletions it makes itself (lazyfree-lazy-expire,
// lazyfree-lazy-server-del: UNLINK rather than DEL, as Redis sends them).
type ReplEnv struct {
	Now                       int64 // unix milliseconds
	LazyExpire, LazyServerDel bool
}

// KeyPositions appends the indexes of args that are keys.
func (c *Cmd) KeyPositions(args [][]byte, dst []int) []int {
	if c.Keys != nil {
		return c.Keys(args, dst)
	}
	if c.First == 0 || len(args) <= c.First {
		return dst
	}
	last := c.Last
	if last < 0 {
		last = len(args) + last
	}
	if last >= len(args) {
		last = len(args) - 1
	}
	step := c.Step
	if step <= 0 {
		step = 1
	}
	for i := c.First; i <= last; i += step {
		dst = append(dst, i)
	}
	return dst
}

// CheckArity reports whether n arguments (name included) fit the arity.
func (c *Cmd) CheckArity(n int) bool {
	if c.Arity >= 0 {
		return n == c.Arity
	}
	return n >= -c.Arity
}

var (
	table = map[string]*Cmd{}
	byID  []*Cmd
	index []slot // open addressing by nameKey, for Lookup
)

// A slot holds a command under its name's key.
type slot struct {
	lo, hi uint64
	n      int
	cmd    *Cmd
}

// nameKey packs a name's bytes, lower-cased, into two words: the first and
// last eight bytes, or four, or for three bytes or fewer the first, middle
// and last. With the length, this is the name itself up to 16 bytes;
// a longer one shares its key with other names of its length.
func nameKey(b []byte) (lo, hi uint64) {
	switch n := len(b); {
	case n >= 8:
		lo, hi = binary.LittleEndian.Uint64(b), lowerASCII(binary.LittleEndian.Uint64(b[n-8:]))
	case n >= 4:
		lo = uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[n-4:]))<<32
	case n > 0:
		lo = uint64(b[0]) | uint64(b[n/2])<<8 | uint64(b[n-1])<<16
	}
	return lowerASCII(lo), hi
}

// lowerASCII lower-cases the bytes 'A' to 'Z' of x, eight at a time, as Is
// does one at a time.
func lowerASCII(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	low7 := x &^ highs
	geA := low7 + (0x80-'A')*ones   // high bit set where low7 >= 'A'
	gtZ := low7 + (0x80-'Z'-1)*ones // high bit set where low7 > 'Z'
	upper := geA &^ gtZ &^ x & highs
	return x | upper>>2
}

// slotOf is where a probe for a name of length n and key lo, hi starts.
func slotOf(lo, hi uint64, n int, mask int) int {
	h := (lo ^ hi*0x9e3779b97f4a7c15 ^ uint64(n)) * 0xff51afd7ed558ccd
	return int(h>>32) & mask
}

// reindex rebuilds index at most half full, so a lookup nearly always
// compares one entry. A name with an upper-case letter is left out: Lookup
// never found one.
func reindex() {
	size := 16
	for size < 2*len(table) {
		size *= 2
	}
	index = make([]slot, size)
	for name, c := range table {
		if strings.ToLower(name) != name {
			continue
		}
		lo, hi := nameKey([]byte(name))
		i := slotOf(lo, hi, len(name), size-1)
		for index[i].cmd != nil {
			i = (i + 1) & (size - 1)
		}
		index[i] = slot{lo, hi, len(name), c}
	}
}

// Register adds commands to the table; a duplicate name is a programming error.
func Register(cmds ...*Cmd) {
	for _, c := range cmds {
		if _, dup := table[c.Name]; dup {
			panic("command: duplicate registration of " + c.Name)
		}
		table[c.Name] = c
		c.ID = len(byID)
		byID = append(byID, c)
		for _, sc := range c.Subs {
			sc.Parent = c
			sc.ID = len(byID)
			byID = append(byID, sc)
		}
	}
	reindex()
}

// AddSubs adds subcommands to the registered container parent, from a
// package above the one that registered it (the server's MEMORY STATS). They
// take the next IDs, leaving those of the commands registered before alone.
func AddSubs(parent string, subs ...*Cmd) {
	c := table[parent]
	if c == nil || c.Subs == nil {
		panic("command: no container " + parent)
	}
	for _, sc := range subs {
		sc.Parent = c
		sc.ID = len(byID)
		byID = append(byID, sc)
		c.Subs = append(c.Subs, sc)
	}
}

// Count is the number of commands and subcommands (the range of Cmd.ID).
func Count() int { return len(byID) }

// ByID returns the command or subcommand with the given ID.
func ByID(id int) *Cmd { return byID[id] }

// Lookup finds a command by name, case-insensitively, without allocating:
// the name's key (nameKey) usually matches the first entry probed, and
// only a name of more than 16 bytes is compared byte by byte.
func Lookup(name []byte) *Cmd {
	mask := len(index) - 1
	if mask < 0 {
		return nil
	}
	lo, hi := nameKey(name)
	for i := slotOf(lo, hi, len(name), mask); index[i].cmd != nil; i = (i + 1) & mask {
		if s := &index[i]; s.lo == lo && s.hi == hi && s.n == len(name) && (s.n <= 16 || Is(name, s.cmd.Name)) {
			return s.cmd
		}
	}
	return nil
}

// All returns every command sorted by name.
func All() []*Cmd {
	out := make([]*Cmd, 0, len(table))
	for _, c := range table {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Sub finds a subcommand of c by name, case-insensitively.
func (c *Cmd) Sub(name []byte) *Cmd {
	for _, s := range c.Subs {
		if strings.EqualFold(s.Name[len(c.Name)+1:], string(name)) {
			return s
		}
	}
	return nil
}
