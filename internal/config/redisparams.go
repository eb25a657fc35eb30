package config

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hotkv/hotkv/internal/resp"
)

// Redis 8.0.2's configuration surface beyond config.go's Params: every
// other Redis parameter, with its alias, type, default, range or values,
// mutability and error texts, as Redis's config.c standardConfig table
// declares them (checked against a live Redis 8.0.2, see
// tests/admin/configredis_test.go). So a stock redis.conf starts HotKV, and
// CONFIG GET/SET/REWRITE answer for these names as Redis does.
//
// Each parameter says what it does in HotKV (Effect, and Why for the
// documentation, docs/configuration.md#redis-directives):
//
//   - Honoured: HotKV does what Redis does with it.
//   - NoEffect: accepted and stored, nothing in HotKV depends on it: a Redis
//     internal with no HotKV counterpart, or a setting of a feature HotKV
//     lacks, which is off (the switch of that feature is Refused).
//   - NotHonoured: accepted and stored; Redis would change its behaviour
//     with it and HotKV does not yet (its Why says what HotKV does).
//   - Refused: accepted at the values where the feature it belongs to is
//     off; a value that would turn on a feature HotKV lacks is an error
//     naming the directive ("HotKV does not support ..."), since silently
//     ignoring it would mislead or endanger.
//
// A parameter that config.go's Params also has is the server layer's own
// implementation: it replaces the entry here (see superseded).

// Effect is what a Redis parameter does in HotKV.
type Effect uint8

// The effects, see above.
const (
	NoEffect Effect = iota
	Honoured
	NotHonoured
	Refused
)

func (e Effect) String() string {
	return [...]string{"no effect", "honoured", "not honoured yet", "refused when on"}[e]
}

type kind uint8

const (
	kBool    kind = iota
	kEnum         // one of enum, case-insensitive
	kInt          // strict decimal in [min, max]
	kMem          // memory value (1kb...) in [min, max], or any uint64 if unsigned
	kPercent      // memory value or N% (stored as Redis stores it: -N)
	kString       // any bytes, then check
	kMulti        // several arguments: set and words
)

// redisSpec is one parameter of Redis's standardConfig table.
type redisSpec struct {
	name, alias string
	kind        kind
	def         string // as CONFIG GET shows it
	min, max    int64
	unsigned    bool     // kMem: 0..2^64-1 (Redis's unsigned long long)
	enum        []string // kEnum: the values, in Redis's order (its error lists them so)
	immutable   bool
	hidden      bool // left out of CONFIG GET patterns, as Redis's HIDDEN_CONFIG
	emptyNull   bool // kString: "" is Redis's NULL, CONFIG REWRITE drops its line
	// check is Redis's own validation of a well-formed value (name is the
	// parameter as named), or HotKV's refusal of a value it cannot honour.
	check func(c *Config, name, v string) error
	// kMulti: set parses the arguments; words lists the current value as
	// arguments that set reads back; lines are its CONFIG REWRITE lines.
	set   func(c *Config, name string, v []string) error
	words func(c *Config) []string
	lines func(c *Config) []rewriteLine

	effect  Effect
	why     string
	accepts string // Refused: the values accepted, ", "-separated, for the documentation

	slot int // index in Config.redis
}

// rewriteLine is one line CONFIG REWRITE writes; force appends it when the
// file has no line to reuse.
type rewriteLine struct {
	text  string
	force bool
}

// redisCount is the number of Redis parameters below (aliases aside); the
// assertion after redisSpecs keeps them equal.
const redisCount = 142

// redisValues holds the parameters' values as CONFIG GET shows them, by
// slot. An array, so that copying a Config copies them.
type redisValues [redisCount]string

// Why texts shared by several parameters.
const (
	whyAllocator   = "Redis's allocator (jemalloc) and its defragmentation: HotKV's memory is Go's heap, managed by its garbage collector"
	whyProcess     = "process cosmetics of Redis's own that HotKV does not have"
	whyCPUList     = "Redis pins its threads to CPUs; HotKV leaves its goroutines to the Go scheduler on every core"
	whyThreads     = "Redis's event loop: HotKV serves each connection in its own goroutine on every core, with no I/O threads and no accept batches"
	whyLazyfree    = "HotKV frees memory through Go's garbage collector, which runs beside the server: deleting a big key never blocks as in Redis, lazy or not; as in Redis, yes makes the replication stream say UNLINK for such deletions (docs/replication.md)"
	whyLazyUser    = "as in Redis, yes makes DEL count in INFO lazyfreed_objects as UNLINK does (user-del), and FLUSHALL, FLUSHDB, SCRIPT FLUSH and FUNCTION FLUSH without SYNC or ASYNC run as with ASYNC (user-flush): a flush then replies at once instead of once its memory is reclaimed (docs/commands/keys.md, Freeing memory)"
	whyOOM         = "HotKV does not change its Linux OOM score (and has no child processes to rank)"
	whyReplication = "not read by HotKV's replication (docs/replication.md)"
	whyReplica     = "read by HotKV as a replica (docs/replication.md)"
	whyAnnounce    = "the address a replica gives its master (REPLCONF listening-port, and ip-address when set; 0 or empty: its own port, the address it connects from), which the master shows in INFO replication and ROLE and Sentinel connects to, as in Redis; a change applies at the next sync"
	whyCluster     = "HotKV has no cluster mode (cluster-enabled yes is refused), so nothing reads this"
	whyTLSUsed     = "read by the TLS listener (docs/configuration.md#tls); CONFIG SET applies to the next connection, or is refused if the new settings do not load"
	whyTLSClient   = "the certificate Redis presents when it connects out (replication, cluster); HotKV makes no TLS connections of its own"
	whyTLSTickets  = "Go resumes TLS sessions with tickets, which keep no server-side cache to size or expire"
	whySyslog      = "HotKV does not log to syslog (syslog-enabled yes is refused), so nothing reads this"
	whyEncoding    = "as in Redis, a collection converts to its larger encoding at the write that takes it past this (RESTORE checks a listpack's count only), and never back because this changed: OBJECT ENCODING, the replies and cursors of HSCAN, SSCAN and ZSCAN, DUMP and MEMORY USAGE follow"
	whyStreamNode  = "as in Redis, XADD opens a new stream node when the last one's listpack plus the new entry's field and value bytes would reach stream-node-max-bytes, or it holds stream-node-max-entries entries, deleted ones included (0: no limit): XINFO STREAM's radix-tree-keys and radix-tree-nodes, and trimming with ~ (whose default LIMIT is 100 times stream-node-max-entries) follow"
	whyDebug       = "a hidden Redis debugging or test knob with no HotKV counterpart"
	whyShutdown    = "what the signal does, as in Redis: default shuts down as SHUTDOWN without arguments does (saving when save points are set), save, nosave, now and force as SHUTDOWN's options do, several of them together (nosave force); a failed final save or log flush keeps the server running unless force is given (docs/persistence.md#safety-and-failure-behaviour)"
)

var redisSpecs = [...]redisSpec{
	{name: "active-defrag-cycle-max", kind: kInt, def: "25", min: 1, max: 99, why: whyAllocator},
	{name: "active-defrag-cycle-min", kind: kInt, def: "1", min: 1, max: 99, why: whyAllocator},
	{name: "active-defrag-ignore-bytes", kind: kMem, def: "104857600", min: 1, max: math.MaxInt64, why: whyAllocator},
	{name: "active-defrag-max-scan-fields", kind: kInt, def: "1000", min: 1, max: math.MaxInt64, why: whyAllocator},
	{name: "active-defrag-threshold-lower", kind: kInt, def: "10", min: 0, max: 1000, why: whyAllocator},
	{name: "active-defrag-threshold-upper", kind: kInt, def: "100", min: 0, max: 1000, why: whyAllocator},
	{name: "active-expire-effort", kind: kInt, def: "1", min: 1, max: 10, effect: Honoured,
		why: "as in Redis's active expiry cycle: each round samples 15+5×effort keys with a TTL and is repeated while more than 11-effort percent of them had expired, within 23+2×effort percent of each hz tick (HotKV has no second, fast cycle between event loop iterations)"},
	{name: "activedefrag", kind: kBool, def: "no", why: whyAllocator},
	{name: "activerehashing", kind: kBool, def: "yes", why: "Redis's incremental rehashing of its main dictionaries: HotKV's sharded tables have no rehash step to schedule"},
	{name: "always-show-logo", kind: kBool, def: "no", immutable: true, why: whyProcess},
	{name: "aof-disable-auto-gc", kind: kBool, def: "no", hidden: true, why: "HotKV always deletes the log files a rewrite made obsolete"},
	{name: "aof-rewrite-cpulist", alias: "aof_rewrite_cpulist", kind: kString, def: "", immutable: true, emptyNull: true, why: whyCPUList},
	{name: "aof-rewrite-incremental-fsync", kind: kBool, def: "yes", why: "HotKV fsyncs a rewritten log once, when it is complete"},
	{name: "aof-timestamp-enabled", kind: kBool, def: "no", why: "every record of HotKV's log carries its millisecond timestamp anyway (docs/persistence.md)"},
	{name: "aof-use-rdb-preamble", kind: kBool, def: "yes", why: "the base of HotKV's log is always a HotKV snapshot"},
	{name: "bgsave-cpulist", alias: "bgsave_cpulist", kind: kString, def: "", immutable: true, emptyNull: true, why: whyCPUList},
	{name: "bind-source-addr", accepts: `""`, kind: kString, def: "", emptyNull: true, effect: Refused,
		check: refuseUnless("choosing the source address of outgoing connections", "empty", ""),
		why:   "HotKV does not choose the source address of its outgoing connections (Redis's: replication, cluster bus, MIGRATE)"},
	{name: "bio-cpulist", alias: "bio_cpulist", kind: kString, def: "", immutable: true, emptyNull: true, why: whyCPUList},
	{name: "busy-reply-threshold", alias: "lua-time-limit", kind: kInt, def: "5000", min: 0, max: math.MaxInt64, effect: Honoured,
		why: "once a script has run this many milliseconds, other clients' commands get BUSY, as in Redis (but for MULTI, SCRIPT KILL, FUNCTION KILL and the other commands Redis allows while busy); before, those on keys it holds wait for it and the others run; SCRIPT KILL and FUNCTION KILL work at any time"},
	{name: "client-output-buffer-limit", kind: kMulti, def: "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
		set: setOutputLimits, words: outputLimitWords, lines: outputLimitLines, effect: Honoured,
		why: "the normal and pubsub classes are honoured, hard and soft limits, as in Redis; the pubsub hard limit is pubsub-output-buffer-limit (0 is no limit; 1 to 1023 bytes are refused); " +
			"the replica class closes a replica whose unsent stream passes it, as Redis does (docs/replication.md)"},
	{name: "cluster-allow-pubsubshard-when-down", kind: kBool, def: "yes", why: whyCluster},
	{name: "cluster-allow-reads-when-down", kind: kBool, def: "no", why: whyCluster},
	{name: "cluster-allow-replica-migration", kind: kBool, def: "yes", why: whyCluster},
	{name: "cluster-announce-bus-port", kind: kInt, def: "0", min: 0, max: 65535, why: whyCluster},
	{name: "cluster-announce-hostname", kind: kString, def: "", emptyNull: true, check: checkHostname, why: whyCluster},
	{name: "cluster-announce-human-nodename", kind: kString, def: "", emptyNull: true, check: checkNodename, why: whyCluster},
	{name: "cluster-announce-ip", kind: kString, def: "", emptyNull: true, why: whyCluster},
	{name: "cluster-announce-port", kind: kInt, def: "0", min: 0, max: 65535, why: whyCluster},
	{name: "cluster-announce-tls-port", kind: kInt, def: "0", min: 0, max: 65535, why: whyCluster},
	{name: "cluster-compatibility-sample-ratio", kind: kInt, def: "0", min: 0, max: 100, why: whyCluster},
	{name: "cluster-config-file", kind: kString, def: "nodes.conf", immutable: true, why: whyCluster},
	{name: "cluster-enabled", accepts: "no", kind: kBool, def: "no", immutable: true, effect: Refused,
		check: refuseUnless("cluster mode", "no", "no"), why: "HotKV has no cluster mode"},
	{name: "cluster-link-sendbuf-limit", kind: kMem, def: "0", unsigned: true, why: whyCluster},
	{name: "cluster-migration-barrier", kind: kInt, def: "1", min: 0, max: math.MaxInt32, why: whyCluster},
	{name: "cluster-node-timeout", kind: kInt, def: "15000", min: 0, max: math.MaxInt64, why: whyCluster},
	{name: "cluster-ping-interval", kind: kInt, def: "0", min: 0, max: math.MaxInt64, hidden: true, why: whyCluster},
	{name: "cluster-port", kind: kInt, def: "0", min: 0, max: 65535, immutable: true, why: whyCluster},
	{name: "cluster-preferred-endpoint-type", kind: kEnum, def: "ip", enum: []string{"ip", "hostname", "unknown-endpoint"}, why: whyCluster},
	{name: "cluster-replica-no-failover", alias: "cluster-slave-no-failover", kind: kBool, def: "no", why: whyCluster},
	{name: "cluster-replica-validity-factor", alias: "cluster-slave-validity-factor", kind: kInt, def: "10", min: 0, max: math.MaxInt32, why: whyCluster},
	{name: "cluster-require-full-coverage", kind: kBool, def: "yes", why: whyCluster},
	{name: "crash-log-enabled", kind: kBool, def: "yes", why: "Redis's crash report: a panic in HotKV is logged with its Go stack whatever this says"},
	{name: "crash-memcheck-enabled", kind: kBool, def: "yes", why: "Redis's memory test after a crash: HotKV has none"},
	{name: "disable-thp", kind: kBool, def: "yes", immutable: true, why: whyAllocator},
	{name: "dynamic-hz", kind: kBool, def: "yes", why: "HotKV's background tasks run at hz whatever the number of clients, as Redis's with dynamic-hz no"},
	{name: "hash-max-listpack-entries", alias: "hash-max-ziplist-entries", kind: kInt, def: "512", min: 0, max: math.MaxInt64, effect: Honoured, why: whyEncoding},
	{name: "hash-max-listpack-value", alias: "hash-max-ziplist-value", kind: kMem, def: "64", min: 0, max: math.MaxInt64, effect: Honoured, why: whyEncoding},
	{name: "hide-user-data-from-log", kind: kBool, def: "no", why: "HotKV's log lines never hold keys, values or command arguments, as if this were yes"},
	{name: "hll-sparse-max-bytes", kind: kMem, def: "3000", min: 0, max: math.MaxInt64, effect: Honoured,
		why: "the size past which a sparse HyperLogLog becomes dense, as in Redis"},
	{name: "ignore-warnings", kind: kString, def: "", why: "Redis's start-up warnings about kernel bugs: HotKV prints none"},
	{name: "io-threads", kind: kInt, def: "1", min: 1, max: 128, immutable: true, why: whyThreads},
	{name: "jemalloc-bg-thread", kind: kBool, def: "yes", why: whyAllocator},
	{name: "key-load-delay", kind: kInt, def: "0", min: math.MinInt32, max: math.MaxInt32, hidden: true, effect: Honoured,
		why: "a test knob, as in Redis: loading at start-up sleeps this many microseconds after each key (a negative -N: one microsecond, once in N keys), so that a test can watch the LOADING state; a change applies to the key being loaded. A HotKV snapshot decodes its blocks on every core at once, each worker sleeping, so it loads faster than the delay times its keys"},
	{name: "lazyfree-lazy-eviction", kind: kBool, def: "no", why: whyLazyfree},
	{name: "lazyfree-lazy-expire", kind: kBool, def: "no", why: whyLazyfree},
	{name: "lazyfree-lazy-server-del", kind: kBool, def: "no", why: whyLazyfree},
	{name: "lazyfree-lazy-user-del", kind: kBool, def: "no", effect: Honoured, why: whyLazyUser},
	{name: "lazyfree-lazy-user-flush", kind: kBool, def: "no", effect: Honoured, why: whyLazyUser},
	{name: "list-compress-depth", kind: kInt, def: "0", min: 0, max: math.MaxInt32, why: "Redis's LZF compression of inner quicklist nodes: HotKV's lists are not compressed, and nothing a client sees depends on it"},
	{name: "list-max-listpack-size", alias: "list-max-ziplist-size", kind: kInt, def: "-2", min: math.MinInt32, max: math.MaxInt32, effect: Honoured,
		why: "the size of a list's listpack and of its quicklist nodes, as in Redis: -1 to -5 bound them to 4, 8, 16, 32 or 64 KB (lower values to 64 KB), a positive value to that many elements within 8 KB; a list converts to a quicklist at the write that takes it past this, and back to a listpack when it shrinks to one node within half of it (OBJECT ENCODING and DUMP follow); a quicklist keeps the node size it was created with"},
	{name: "loading-process-events-interval-bytes", kind: kInt, def: "524288", min: 1024, max: math.MaxInt32, hidden: true,
		why: "how often Redis's single thread stops loading to answer clients: HotKV's connections are answered throughout a load"},
	{name: "locale-collate", accepts: `"", C, POSIX`, kind: kString, def: "", effect: Refused, check: checkLocale,
		why: "HotKV compares strings (SORT ALPHA, Lua) byte by byte, as the C locale does"},
	{name: "lua-enable-deprecated-api", kind: kBool, def: "no", immutable: true, hidden: true, effect: NotHonoured,
		why: "scripts get Redis's default Lua library set whatever this says"},
	{name: "masterauth", kind: kString, def: "", emptyNull: true, effect: Honoured, why: whyReplica},
	{name: "masteruser", kind: kString, def: "", emptyNull: true, effect: Honoured, why: whyReplica},
	{name: "max-new-connections-per-cycle", kind: kInt, def: "10", min: 1, max: 1000, why: whyThreads},
	{name: "max-new-tls-connections-per-cycle", kind: kInt, def: "1", min: 1, max: 1000, why: whyThreads},
	{name: "maxmemory-clients", accepts: "0, 0%", kind: kPercent, def: "0", min: -100, max: math.MaxInt64, effect: Refused,
		check: refuseUnless("client eviction", "0", "0"), why: "HotKV has no client eviction"},
	{name: "maxmemory-eviction-tenacity", kind: kInt, def: "10", min: 0, max: 100,
		why: "Redis's time budget for one eviction round: HotKV evicts one key before each write that may add data, and in the background, while over the limit"},
	{name: "min-replicas-max-lag", alias: "min-slaves-max-lag", kind: kInt, def: "10", min: 0, max: math.MaxInt32, effect: Honoured,
		why: "the most seconds since a replica's last REPLCONF ACK for it to count towards min-replicas-to-write, as in Redis (0: the check is off)"},
	{name: "min-replicas-to-write", alias: "min-slaves-to-write", kind: kInt, def: "0", min: 0, max: math.MaxInt32, effect: Honoured,
		why: "writes are refused with NOREPLICAS while fewer online replicas than this have acknowledged within min-replicas-max-lag seconds, as in Redis (0: off)"},
	{name: "no-appendfsync-on-rewrite", kind: kBool, def: "no", why: "HotKV keeps fsyncing its log during a rewrite, as Redis's with no"},
	{name: "oom-score-adj", kind: kEnum, def: "no", enum: []string{"no", "yes", "relative", "absolute"}, why: whyOOM},
	{name: "oom-score-adj-values", kind: kMulti, def: "0 200 800", set: setOOMValues, words: oomWords, lines: oomLines, why: whyOOM},
	{name: "proc-title-template", kind: kString, def: "{title} {listen-addr} {server-mode}", check: checkProcTitle, why: whyProcess},
	{name: "propagation-error-behavior", kind: kEnum, def: "ignore", enum: []string{"ignore", "panic", "panic-on-replicas"}, effect: Honoured,
		why: "an error applying the master's stream or replaying the append-only log is logged as critical and counted (unexpected_error_replies); with panic-on-replicas a read-only replica then exits, with panic a server loading its append-only log too, as Redis panics (docs/replication.md)"},
	{name: "rdb-del-sync-files", kind: kBool, def: "no", why: whyReplication},
	{name: "rdb-key-save-delay", kind: kInt, def: "0", min: math.MinInt32, max: math.MaxInt32, hidden: true, why: whyDebug},
	{name: "rdb-save-incremental-fsync", kind: kBool, def: "yes", why: "HotKV fsyncs a snapshot once, when it is complete"},
	{name: "rdbchecksum", kind: kBool, def: "yes", immutable: true, why: "HotKV's snapshot is its own format, not RDB, and always carries CRC-32C checksums"},
	{name: "rdbcompression", kind: kBool, def: "yes", why: "HotKV's snapshot is its own format, not RDB, and is not compressed"},
	{name: "repl-backlog-size", kind: kMem, def: "1048576", min: 1, max: math.MaxInt64, effect: Honoured,
		why: "the size of the backlog a replica continues from with PSYNC (+CONTINUE); made when the first replica connects, as in Redis (docs/replication.md)"},
	{name: "repl-backlog-ttl", kind: kInt, def: "3600", min: 0, max: math.MaxInt64, effect: Honoured,
		why: "seconds without replicas after which the backlog is freed and writes stop feeding it (0: never), as in Redis"},
	{name: "repl-disable-tcp-nodelay", kind: kBool, def: "no", why: whyReplication},
	{name: "repl-diskless-load", kind: kEnum, def: "disabled", enum: []string{"disabled", "on-empty-db", "swapdb"}, why: whyReplication},
	{name: "repl-diskless-sync", kind: kBool, def: "yes", why: whyReplication},
	{name: "repl-diskless-sync-delay", kind: kInt, def: "5", min: 0, max: math.MaxInt32, why: whyReplication},
	{name: "repl-diskless-sync-max-replicas", kind: kInt, def: "0", min: 0, max: math.MaxInt32, why: whyReplication},
	{name: "repl-ping-replica-period", alias: "repl-ping-slave-period", kind: kInt, def: "10", min: 1, max: math.MaxInt32, effect: Honoured,
		why: "a master sends its replicas PING in the stream this often, as Redis does"},
	{name: "repl-rdb-channel", kind: kBool, def: "yes", hidden: true, why: whyReplication},
	{name: "repl-timeout", kind: kInt, def: "60", min: 1, max: math.MaxInt32, effect: Honoured,
		why: "a replica drops a silent link after this long, and a master closes an online replica that has sent no REPLCONF ACK for this long, as Redis does"},
	{name: "replica-announce-ip", alias: "slave-announce-ip", kind: kString, def: "", emptyNull: true, effect: Honoured, why: whyAnnounce},
	{name: "replica-announce-port", alias: "slave-announce-port", kind: kInt, def: "0", min: 0, max: 65535, effect: Honoured, why: whyAnnounce},
	{name: "replica-announced", kind: kBool, def: "yes", why: whyReplication},
	{name: "replica-full-sync-buffer-limit", kind: kMem, def: "0", min: 0, max: math.MaxInt64, why: whyReplication},
	{name: "replica-ignore-disk-write-errors", kind: kBool, def: "no", why: whyReplication},
	{name: "replica-ignore-maxmemory", alias: "slave-ignore-maxmemory", kind: kBool, def: "yes", effect: Honoured,
		why: "as in Redis, yes: a replica neither evicts keys or cache entries nor refuses writes for memory, however far over maxmemory it is, and holds what its master holds (the master's deletions of what it evicts keep it in step); no: a replica evicts, and refuses its clients' writes with OOM, as a master does; unlike Redis, HotKV never refuses its master's stream with OOM (docs/replication.md)"},
	{name: "replica-lazy-flush", alias: "slave-lazy-flush", kind: kBool, def: "no", why: whyReplication},
	{name: "replica-priority", alias: "slave-priority", kind: kInt, def: "100", min: 0, max: math.MaxInt32, why: whyReplication},
	{name: "replica-read-only", alias: "slave-read-only", kind: kBool, def: "yes", effect: Honoured, why: whyReplica},
	{name: "replica-serve-stale-data", alias: "slave-serve-stale-data", kind: kBool, def: "yes", effect: Honoured, why: whyReplica},
	{name: "replicaof", alias: "slaveof", kind: kMulti, def: "", immutable: true, effect: Honoured,
		set: setReplicaOf, words: replicaOfWords, lines: replicaOfLines,
		why: "the master to replicate at start-up (docs/replication.md); REPLICAOF changes it at run time"},
	{name: "sanitize-dump-payload", kind: kEnum, def: "no", enum: []string{"no", "yes", "clients"},
		why: "RESTORE always validates the whole payload, as Redis's with yes (docs/commands/keys.md)"},
	{name: "server-cpulist", alias: "server_cpulist", kind: kString, def: "", immutable: true, emptyNull: true, why: whyCPUList},
	{name: "set-max-intset-entries", kind: kInt, def: "512", min: 0, max: math.MaxInt64, effect: Honoured, why: whyEncoding},
	{name: "set-max-listpack-entries", kind: kInt, def: "128", min: 0, max: math.MaxInt64, effect: Honoured, why: whyEncoding},
	{name: "set-max-listpack-value", kind: kInt, def: "64", min: 0, max: math.MaxInt64, effect: Honoured, why: whyEncoding},
	{name: "set-proc-title", kind: kBool, def: "yes", immutable: true, why: whyProcess},
	{name: "shutdown-on-sigint", kind: kMulti, def: "default", set: setShutdownOn,
		words: shutdownOnWords("shutdown-on-sigint"), lines: shutdownOnLines("shutdown-on-sigint"),
		effect: Honoured, why: whyShutdown},
	{name: "shutdown-on-sigterm", kind: kMulti, def: "default", set: setShutdownOn,
		words: shutdownOnWords("shutdown-on-sigterm"), lines: shutdownOnLines("shutdown-on-sigterm"),
		effect: Honoured, why: whyShutdown},
	{name: "shutdown-timeout", kind: kInt, def: "10", min: 0, max: math.MaxInt32, why: "how long SHUTDOWN waits for replicas to catch up: " + whyReplication},
	{name: "socket-mark-id", accepts: "0", kind: kInt, def: "0", min: 0, max: math.MaxUint32, immutable: true, effect: Refused,
		check: refuseUnless("socket marks", "0", "0"), why: "HotKV does not mark its sockets (SO_MARK) for routing and firewalls"},
	{name: "stream-node-max-bytes", kind: kMem, def: "4096", min: 0, max: math.MaxInt64, effect: Honoured, why: whyStreamNode},
	{name: "stream-node-max-entries", kind: kInt, def: "100", min: 0, max: math.MaxInt64, effect: Honoured, why: whyStreamNode},
	{name: "syslog-enabled", accepts: "no", kind: kBool, def: "no", immutable: true, effect: Refused,
		check: refuseUnless("logging to syslog", "no", "no"), why: "HotKV does not log to syslog"},
	{name: "syslog-facility", kind: kEnum, def: "local0", immutable: true,
		enum: []string{"user", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"}, why: whySyslog},
	{name: "syslog-ident", kind: kString, def: "redis", immutable: true, why: whySyslog},
	{name: "tcp-backlog", kind: kInt, def: "511", min: 0, max: math.MaxInt32, immutable: true, why: "Go's listeners take the kernel's somaxconn as their backlog"},
	{name: "tls-auth-clients", kind: kEnum, def: "yes", enum: []string{"no", "yes", "optional"}, effect: Honoured, why: whyTLSUsed},
	{name: "tls-ca-cert-dir", kind: kString, def: "", emptyNull: true, effect: Honoured, why: whyTLSUsed},
	{name: "tls-ca-cert-file", kind: kString, def: "", emptyNull: true, effect: Honoured, why: whyTLSUsed},
	{name: "tls-cert-file", kind: kString, def: "", emptyNull: true, effect: Honoured, why: whyTLSUsed},
	{name: "tls-ciphers", kind: kString, def: "", emptyNull: true, effect: Honoured,
		why: "the TLS 1.2 cipher suites, by OpenSSL or IANA name, colon-separated; OpenSSL cipher expressions (DEFAULT, HIGH, !aNULL) are refused at start-up"},
	{name: "tls-ciphersuites", kind: kString, def: "", emptyNull: true, effect: Honoured,
		why: "Go's TLS 1.3 suites are fixed: only the full list of the three (TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256) or none is accepted"},
	{name: "tls-client-cert-file", kind: kString, def: "", emptyNull: true, why: whyTLSClient},
	{name: "tls-client-key-file", kind: kString, def: "", emptyNull: true, why: whyTLSClient},
	{name: "tls-client-key-file-pass", kind: kString, def: "", emptyNull: true, why: whyTLSClient},
	{name: "tls-cluster", accepts: "no", kind: kBool, def: "no", effect: Refused, check: refuseUnless("TLS on the cluster bus", "no", "no"), why: "HotKV has no cluster bus"},
	{name: "tls-dh-params-file", kind: kString, def: "", emptyNull: true, why: "Go offers no finite-field Diffie-Hellman suites (ECDHE only), so there are no DH parameters to load"},
	{name: "tls-key-file", kind: kString, def: "", emptyNull: true, effect: Honoured, why: whyTLSUsed},
	{name: "tls-key-file-pass", kind: kString, def: "", emptyNull: true, effect: Honoured, why: "decrypts a key in the legacy encrypted PEM form (Proc-Type: 4,ENCRYPTED); PKCS#8 encrypted keys are refused"},
	{name: "tls-port", kind: kInt, def: "0", min: 0, max: 65535, immutable: true, effect: Honoured,
		why: "a TLS listener at every bind address; it cannot change at run time (`CONFIG SET bind` moves it to the new addresses)"},
	{name: "tls-prefer-server-ciphers", kind: kBool, def: "no", why: "Go's server chooses the suite itself (by the client's order and its hardware) and has no switch for it"},
	{name: "tls-protocols", kind: kString, def: "", emptyNull: true, effect: Honoured, why: whyTLSUsed},
	{name: "tls-replication", accepts: "no", kind: kBool, def: "no", effect: Refused, check: refuseUnless("TLS for replication", "no", "no"), why: "HotKV has no replication"},
	{name: "tls-session-cache-size", kind: kInt, def: "20480", min: 0, max: math.MaxInt32, why: whyTLSTickets},
	{name: "tls-session-cache-timeout", kind: kInt, def: "300", min: 0, max: math.MaxInt32, why: whyTLSTickets},
	{name: "tls-session-caching", kind: kBool, def: "yes", effect: Honoured, why: "no turns off session resumption (Go's session tickets)"},
	{name: "use-exit-on-panic", kind: kBool, def: "no", hidden: true, why: whyDebug},
	{name: "watchdog-period", kind: kInt, def: "0", min: 0, max: math.MaxInt32, hidden: true, why: whyDebug},
	{name: "zset-max-listpack-entries", alias: "zset-max-ziplist-entries", kind: kInt, def: "128", min: 0, max: math.MaxInt64, effect: Honoured, why: whyEncoding},
	{name: "zset-max-listpack-value", alias: "zset-max-ziplist-value", kind: kMem, def: "64", min: 0, max: math.MaxInt64, effect: Honoured, why: whyEncoding},
}

// redisCount must be the table's length.
var _ [redisCount]redisSpec = redisSpecs

// ShutdownFlags are SHUTDOWN's options, and what shutdown-on-sigint and
// shutdown-on-sigterm say a signal does, with Redis's values (0: default).
type ShutdownFlags uint8

// The flags, as Redis's SHUTDOWN_* (and its enum's order).
const (
	ShutdownSave ShutdownFlags = 1 << iota
	ShutdownNoSave
	ShutdownNow
	ShutdownForce
)

var shutdownNames = []string{"save", "nosave", "now", "force"}

// setShutdownOn is Redis's bit-flag enum set (configEnumGetValue) and
// isValidShutdownOnSigFlags: any of the names, together, but not save
// with nosave; default alone or with others adds nothing.
func setShutdownOn(c *Config, name string, v []string) error {
	if len(v) == 0 {
		return errShutdownNames
	}
	var f ShutdownFlags
	for _, w := range v {
		switch i := slices.IndexFunc(shutdownNames, func(n string) bool { return strings.EqualFold(n, w) }); {
		case i >= 0:
			f |= 1 << i
		case !strings.EqualFold(w, "default"):
			return errShutdownNames
		}
	}
	if f&ShutdownSave != 0 && f&ShutdownNoSave != 0 {
		return errors.New("shutdown options SAVE and NOSAVE can't be used simultaneously")
	}
	c.redis[specOf[redisByName[name]].slot] = strings.Join(shutdownWords(f), " ")
	return nil
}

var errShutdownNames = errors.New("argument(s) must be one of the following: default, save, nosave, now, force")

// shutdownWords names the flags as Redis's configEnumGetName does, in the
// enum's order ("default" for none).
func shutdownWords(f ShutdownFlags) []string {
	if f == 0 {
		return []string{"default"}
	}
	var w []string
	for i, n := range shutdownNames {
		if f&(1<<i) != 0 {
			w = append(w, n)
		}
	}
	return w
}

func shutdownOnWords(name string) func(c *Config) []string {
	return func(c *Config) []string { return strings.Fields(c.redisValue(name)) }
}

// shutdownOnLines is the CONFIG REWRITE line, appended when not default.
func shutdownOnLines(name string) func(c *Config) []rewriteLine {
	return func(c *Config) []rewriteLine {
		v := c.redisValue(name)
		return []rewriteLine{{name + " " + v, v != "default"}}
	}
}

// ShutdownOn is what the signal (SIGINT if sigint, else SIGTERM) does:
// shutdown-on-sigint or shutdown-on-sigterm.
func (c *Config) ShutdownOn(sigint bool) ShutdownFlags {
	name := "shutdown-on-sigterm"
	if sigint {
		name = "shutdown-on-sigint"
	}
	var f ShutdownFlags
	for _, w := range strings.Fields(c.redisValue(name)) {
		if i := slices.Index(shutdownNames, w); i >= 0 {
			f |= 1 << i
		}
	}
	return f
}

// KeyLoadDelay is key-load-delay: microseconds to sleep after each key
// loaded at start-up (negative -N: one microsecond once in N keys).
func (c *Config) KeyLoadDelay() int64 {
	n, _ := strconv.ParseInt(c.redisValue("key-load-delay"), 10, 64)
	return n
}

// deprecatedDirectives are read from a configuration file and ignored, as
// Redis 8.0.2 does (with exactly one argument); CONFIG GET/SET do not know
// them and CONFIG REWRITE comments them out.
var deprecatedDirectives = []string{"list-max-ziplist-entries", "list-max-ziplist-value", "lua-replicate-commands"}

var (
	redisParams []*Param              // every name, aliases included, sorted
	redisByName map[string]*Param     // name or alias -> its Param
	specOf      map[*Param]*redisSpec // Param -> its parameter
	canonical   []*Param              // one Param per parameter (no aliases), sorted
)

// superseded reports whether config.go's Params has s (its name or
// alias): the server layer's own implementation replaces the entry here,
// whose slot then stays at its default, unused. So a Redis feature moves
// from this table to a real implementation in one step; its entry here
// should then be deleted.
func superseded(s *redisSpec) bool {
	for _, p := range Params {
		if p.Name == s.name || p.Name == s.alias {
			return true
		}
	}
	return false
}

func init() {
	redisByName = map[string]*Param{}
	specOf = map[*Param]*redisSpec{}
	for i := range redisSpecs {
		s := &redisSpecs[i]
		s.slot = i
		if superseded(s) {
			continue
		}
		p := s.param(s.name)
		canonical = append(canonical, p)
		names := []*Param{p}
		if s.alias != "" {
			names = append(names, s.param(s.alias))
		}
		for _, p := range names {
			redisParams = append(redisParams, p)
			redisByName[p.Name] = p
			specOf[p] = s
		}
	}
	slices.SortFunc(redisParams, func(a, b *Param) int { return strings.Compare(a.Name, b.Name) })
}

// redisDefaults is the Redis parameters' defaults, for Default (which may
// run before init).
func redisDefaults() redisValues {
	var v redisValues
	for i := range redisSpecs {
		v[i] = redisSpecs[i].def
		if redisSpecs[i].name == "client-output-buffer-limit" {
			v[i] = defaultOutputLimits
		}
	}
	return v
}

// param builds the Param of s under name (its own or its alias).
func (s *redisSpec) param(name string) *Param {
	p := &Param{
		Name:      name,
		Immutable: s.immutable,
		Multi:     s.kind == kMulti,
		Memory:    s.kind == kMem || s.kind == kPercent,
		Quoted:    s.kind == kString,
		Get:       func(c *Config) string { return c.redis[s.slot] },
	}
	if s.kind == kMulti {
		p.Values = s.words
		if s.name == "client-output-buffer-limit" {
			p.Get = func(c *Config) string { return strings.Join(outputLimitWords(c), " ") }
		}
		if s.name == "replicaof" { // Redis's getReplicaOfOption: "" without a master
			p.Get = func(c *Config) string {
				if c.ReplicaOfHost == "" {
					return ""
				}
				return c.ReplicaOfHost + " " + strconv.Itoa(c.ReplicaOfPort)
			}
		}
		p.Set = func(c *Config, v []string) error {
			// Redis splits a single argument as a configuration line
			// ("--replicaof 'no one'", "client-output-buffer-limit 'pubsub 1mb 0 0'").
			if len(v) == 1 && v[0] != "" {
				if w, ok := resp.SplitArgs([]byte(v[0]), nil); ok {
					v = make([]string, len(w))
					for i, a := range w {
						v[i] = string(a)
					}
				}
			}
			return s.set(c, name, v)
		}
		return p
	}
	p.Set = func(c *Config, v []string) error {
		val, err := s.parse(v[0])
		if err != nil {
			return err
		}
		if s.check != nil {
			if err := s.check(c, name, val); err != nil {
				return err
			}
		}
		c.redis[s.slot] = val
		return nil
	}
	return p
}

// parse checks a value as Redis does for s's type and returns it as
// CONFIG GET shows it.
func (s *redisSpec) parse(v string) (string, error) {
	switch s.kind {
	case kBool:
		switch {
		case strings.EqualFold(v, "yes"):
			return "yes", nil
		case strings.EqualFold(v, "no"):
			return "no", nil
		}
		return "", errNotBool
	case kEnum:
		for _, e := range s.enum {
			if strings.EqualFold(e, v) {
				if e == "relative" { // oom-score-adj: the value of yes, which CONFIG GET names
					e = "yes"
				}
				return e, nil
			}
		}
		return "", errNotOneOf(s.enum)
	case kInt:
		n, ok := parseStrictInt(v)
		if !ok {
			return "", errNotInt
		}
		if n < s.min || n > s.max {
			return "", errRange(s.min, s.max)
		}
		return strconv.FormatInt(n, 10), nil
	case kMem:
		u, ok := Memtoull(v)
		if !ok {
			return "", errNotMemory
		}
		if !s.unsigned && (u > math.MaxInt64 || int64(u) < s.min || int64(u) > s.max) {
			return "", errRange(s.min, s.max)
		}
		return strconv.FormatUint(u, 10), nil
	case kPercent: // Redis's numericParseString and numericBoundaryCheck for a PERCENT_CONFIG
		var n int64
		if u, ok := Memtoull(v); ok {
			n = int64(u) // 2^63 and more turn negative, into percentages, as in Redis
		} else if p, ok := parseStrictInt(strings.TrimSuffix(v, "%")); ok && len(v) > 1 && strings.HasSuffix(v, "%") && p >= 0 {
			n = -p
		} else {
			return "", errors.New("argument must be a memory or percent value")
		}
		if n < 0 {
			if n < s.min {
				return "", fmt.Errorf("percentage argument must be less or equal to %d", -s.min)
			}
			return strconv.FormatInt(-n, 10) + "%", nil
		}
		return strconv.FormatInt(n, 10), nil
	}
	return v, nil // kString
}

// refuseUnless is the check of a parameter that turns on a feature HotKV
// lacks: only the value off is accepted (must says it in the error).
func refuseUnless(feature, must, off string) func(*Config, string, string) error {
	return func(_ *Config, name, v string) error {
		if v == off {
			return nil
		}
		return unsupported(feature, name, must)
	}
}

func unsupported(feature, name, must string) error {
	return fmt.Errorf("HotKV does not support %s: %s must be %s", feature, name, must)
}

// checkLocale accepts the locales whose collation is HotKV's byte order.
func checkLocale(_ *Config, name, v string) error {
	switch v {
	case "", "C", "POSIX":
		return nil
	}
	return unsupported("collation locales (it compares bytes, as the C locale)", name, `"", C or POSIX`)
}

// checkHostname is Redis's isValidAnnouncedHostname.
func checkHostname(_ *Config, _, v string) error {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '.') {
			return errors.New("Hostnames may only contain alphanumeric characters, hyphens or dots")
		}
	}
	return nil
}

// checkNodename is Redis's isValidAnnouncedNodename (isValidAuxString).
func checkNodename(_ *Config, _, v string) error {
	for i := 0; i < len(v); i++ {
		if v[i] == 0 || strings.IndexByte("!#$%&()*+:;<>?@[]^{|}~", v[i]) >= 0 {
			return errors.New("Announced human node name contained invalid character")
		}
	}
	return nil
}

// checkProcTitle is Redis's validateProcTitleTemplate: the template's
// variables must be known and it must not expand to blanks only.
func checkProcTitle(c *Config, _, v string) error {
	bad := errors.New("template format is invalid or contains unknown variables")
	if i := strings.IndexByte(v, 0); i >= 0 { // a C string
		v = v[:i]
	}
	var out strings.Builder
	for v != "" {
		i := strings.IndexByte(v, '{')
		if i < 0 {
			out.WriteString(v)
			break
		}
		out.WriteString(v[:i])
		v = v[i+1:]
		if v == "" {
			return bad
		}
		if v[0] == '{' {
			out.WriteByte('{')
			v = v[1:]
			continue
		}
		j := strings.IndexByte(v, '}')
		if j < 0 {
			return bad
		}
		switch v[:j] {
		case "title", "server-mode", "unixsocket": // empty when validated (no title, no cluster; the socket is not looked at)
		case "listen-addr", "port", "tls-port":
			out.WriteString("x") // never empty
		case "config-file":
			out.WriteString(c.File)
		default:
			return bad
		}
		v = v[j+1:]
	}
	if strings.Trim(out.String(), " ") == "" {
		return bad
	}
	return nil
}

// Memtoull is Redis's memtoull: digits (leading zeros allowed, no sign)
// and an optional unit (b, k, kb, m, mb, g, gb, case-insensitive), read up
// to a NUL byte as C does; a number past 2^64-1 saturates and the
// multiplication by the unit wraps, both as in Redis.
func Memtoull(s string) (uint64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	var mul uint64
	switch strings.ToLower(s[i:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1 << 10
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1 << 20
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1 << 30
	default:
		return 0, false
	}
	if i >= 128 { // Redis copies the digits into a 128-byte buffer
		return 0, false
	}
	var n uint64
	for _, c := range []byte(s[:i]) {
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			n = math.MaxUint64
			break
		}
		n = n*10 + d
	}
	return n * mul, true
}

// strtoll is C's strtoll(s, &end, 10) on s up to its first NUL: the value
// (saturated) and whether end reached the end of the string.
func strtoll(s string) (int64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var n uint64
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if n <= 1<<63 {
			n = n*10 + uint64(s[i]-'0')
		}
	}
	if i == start { // no digits: end is s itself
		return 0, s == ""
	}
	switch {
	case neg && n >= 1<<63:
		return math.MinInt64, i == len(s)
	case neg:
		return -int64(n), i == len(s)
	case n > math.MaxInt64:
		return math.MaxInt64, i == len(s)
	}
	return int64(n), i == len(s)
}

// setReplicaOf is Redis's setConfigReplicaOfOption, then HotKV's refusal
// of a master.
func setReplicaOf(c *Config, name string, v []string) error {
	if len(v) != 2 {
		return errArgCount
	}
	if strings.EqualFold(v[0], "no") && strings.EqualFold(v[1], "one") {
		c.ReplicaOfHost, c.ReplicaOfPort = "", 0
		return nil
	}
	port, end := strtoll(v[1])
	if p := int32(port); !end || p < 0 || p > 65535 { // Redis keeps it in an int
		return errors.New("Invalid master port")
	}
	c.ReplicaOfHost, c.ReplicaOfPort = v[0], int(port)
	return nil
}

// replicaOfWords is replicaof's value as CONFIG GET shows it.
func replicaOfWords(c *Config) []string {
	if c.ReplicaOfHost == "" {
		return []string{"no", "one"}
	}
	return []string{c.ReplicaOfHost, strconv.Itoa(c.ReplicaOfPort)}
}

// replicaOfLines is replicaof's CONFIG REWRITE line: none without a master.
func replicaOfLines(c *Config) []rewriteLine {
	if c.ReplicaOfHost == "" {
		return nil
	}
	return []rewriteLine{{fmt.Sprintf("replicaof %s %d", quoteIfNeeded(c.ReplicaOfHost), c.ReplicaOfPort), true}}
}

// MasterAuth is masteruser and masterauth: the credentials a replica
// authenticates to its master with ("" user: AUTH with the password only).
func (c *Config) MasterAuth() (user, pass string) {
	return c.redisValue("masteruser"), c.redisValue("masterauth")
}

// ReplicaReadOnly is replica-read-only.
func (c *Config) ReplicaReadOnly() bool { return c.redisValue("replica-read-only") == "yes" }

// ReplicaIgnoreMaxMemory is replica-ignore-maxmemory.
func (c *Config) ReplicaIgnoreMaxMemory() bool {
	return c.redisValue("replica-ignore-maxmemory") == "yes"
}

// ReplicaServeStale is replica-serve-stale-data.
func (c *Config) ReplicaServeStale() bool { return c.redisValue("replica-serve-stale-data") == "yes" }

// ReplTimeout is repl-timeout: how long a replica waits for its master.
func (c *Config) ReplTimeout() time.Duration {
	n, _ := strconv.ParseInt(c.redisValue("repl-timeout"), 10, 64)
	return time.Duration(max(n, 1)) * time.Second
}

// setOOMValues is Redis's setConfigOOMScoreAdjValuesOption.
func setOOMValues(c *Config, _ string, v []string) error {
	if len(v) != 3 {
		return errArgCount
	}
	vals := make([]string, 3)
	for i, w := range v {
		n, end := strtoll(w)
		if !end || n < -2000 || n > 2000 {
			return errors.New("Invalid oom-score-adj-values, elements must be between -2000 and 2000.")
		}
		vals[i] = strconv.FormatInt(n, 10)
	}
	c.redis[oomSlot()] = strings.Join(vals, " ")
	return nil
}

func oomWords(c *Config) []string { return strings.Fields(c.redis[oomSlot()]) }

func oomLines(c *Config) []rewriteLine {
	v := c.redis[oomSlot()]
	return []rewriteLine{{"oom-score-adj-values " + v, v != "0 200 800"}}
}

func oomSlot() int         { return specOf[redisByName["oom-score-adj-values"]].slot }
func outputLimitSlot() int { return specOf[redisByName["client-output-buffer-limit"]].slot }

// client-output-buffer-limit keeps the normal and replica classes and the
// pubsub soft limit in its slot, as "hard soft seconds" for normal and
// replica then "soft seconds" for pubsub; the pubsub hard limit is
// PubSubOutputLimit (math.MaxInt64: none, Redis's 0).
const defaultOutputLimits = "0 0 0 268435456 67108864 60 8388608 60"

type outputLimit struct {
	hard, soft uint64
	secs       int64
}

var outputClasses = []string{"normal", "slave", "pubsub"}

var defaultOutputLimitsByClass = [3]outputLimit{{0, 0, 0}, {256 << 20, 64 << 20, 60}, {32 << 20, 8 << 20, 60}}

func outputLimits(c *Config) [3]outputLimit {
	f := strings.Fields(c.redis[outputLimitSlot()])
	num := func(i int) uint64 { n, _ := strconv.ParseUint(f[i], 10, 64); return n }
	l := [3]outputLimit{{num(0), num(1), int64(num(2))}, {num(3), num(4), int64(num(5))}, {0, num(6), int64(num(7))}}
	if c.PubSubOutputLimit != math.MaxInt64 {
		l[2].hard = uint64(c.PubSubOutputLimit)
	}
	return l
}

func outputLimitWords(c *Config) []string {
	var w []string
	for i, l := range outputLimits(c) {
		w = append(w, outputClasses[i], strconv.FormatUint(l.hard, 10), strconv.FormatUint(l.soft, 10), strconv.FormatInt(l.secs, 10))
	}
	return w
}

// outputLimitLines are Redis's rewriteConfigClientOutputBufferLimitOption's:
// one line per class, appended when it is not the default.
func outputLimitLines(c *Config) []rewriteLine {
	var lines []rewriteLine
	for i, l := range outputLimits(c) {
		class := outputClasses[i]
		if class == "slave" {
			class = "replica"
		}
		lines = append(lines, rewriteLine{
			fmt.Sprintf("client-output-buffer-limit %s %s %s %d", class, formatMemoryU(l.hard), formatMemoryU(l.soft), l.secs),
			l != defaultOutputLimitsByClass[i],
		})
	}
	return lines
}

// clampInt64 reads an unsigned limit past int64's range as int64's largest,
// which no buffer reaches.
func clampInt64(n uint64) int64 { return int64(min(n, math.MaxInt64)) }

func formatMemoryU(n uint64) string {
	if n > math.MaxInt64 {
		return strconv.FormatUint(n, 10)
	}
	return FormatMemory(int64(n))
}

// setOutputLimits is Redis's updateClientOutputBufferLimit: classes not
// named keep their limits; all or nothing is applied.
func setOutputLimits(c *Config, name string, v []string) error {
	if len(v)%4 != 0 {
		return errors.New("Wrong number of arguments in buffer limit configuration.")
	}
	l := outputLimits(c)
	for i := 0; i < len(v); i += 4 {
		class := -1
		switch strings.ToLower(v[i]) {
		case "normal":
			class = 0
		case "slave", "replica":
			class = 1
		case "pubsub":
			class = 2
		}
		if class < 0 {
			return errors.New("Invalid client class specified in buffer limit configuration.")
		}
		hard, ok1 := Memtoull(v[i+1])
		soft, ok2 := Memtoull(v[i+2])
		secs, end := strtoll(v[i+3])
		secs = int64(int32(secs)) // Redis keeps it in an int
		if !ok1 || !ok2 || !end || secs < 0 {
			return errors.New("Error in hard, soft or soft_seconds setting in buffer limit configuration.")
		}
		l[class] = outputLimit{hard, soft, secs}
	}
	if h := l[2].hard; h > 0 && h < 1<<10 {
		return unsupported("a pubsub hard limit under 1kb (pubsub-output-buffer-limit's minimum)", name, "0 or at least 1kb for pubsub")
	}
	pub := int64(math.MaxInt64) // 0: no limit
	if h := l[2].hard; h != 0 && h <= math.MaxInt64 {
		pub = int64(h)
	}
	c.PubSubOutputLimit = pub
	c.PubSubOutputSoft = SoftLimit{clampInt64(l[2].soft), l[2].secs}
	c.NormalOutputHard = clampInt64(l[0].hard)
	c.NormalOutputSoft = SoftLimit{clampInt64(l[0].soft), l[0].secs}
	c.redis[outputLimitSlot()] = fmt.Sprintf("%d %d %d %d %d %d %d %d",
		l[0].hard, l[0].soft, l[0].secs, l[1].hard, l[1].soft, l[1].secs, l[2].soft, l[2].secs)
	return nil
}

// baseName adds Redis's isValidDBfilename, isValidAOFfilename and
// isValidAOFdirname checks to a file or directory name setting: no slash
// or backslash, and not empty unless emptyOK.
func baseName(p *Param, what string, emptyOK bool) *Param {
	set := p.Set
	p.Set = func(c *Config, v []string) error {
		if v[0] == "" && !emptyOK {
			return fmt.Errorf("%s can't be empty", p.Name)
		}
		if strings.ContainsAny(v[0], "/\\") {
			return fmt.Errorf("%s can't be a path, just a %s", p.Name, what)
		}
		return set(c, v)
	}
	return p
}

// redisLookup finds a Redis parameter by lower-case name or alias.
func redisLookup(name string) *Param { return redisByName[name] }

// allParams is every parameter once (aliases aside, hidden ones included),
// sorted by name: what Text and CONFIG REWRITE write.
func allParams() []*Param {
	all := slices.Concat(Params, canonical)
	slices.SortStableFunc(all, func(a, b *Param) int { return strings.Compare(a.Name, b.Name) })
	return all
}

// Visible lists what CONFIG GET patterns match, sorted by name: every
// parameter and alias but Redis's hidden ones (which CONFIG GET answers
// only by their exact name, as in Redis).
func Visible() []*Param {
	all := slices.Clone(Params)
	for _, p := range redisParams {
		if !specOf[p].hidden {
			all = append(all, p)
		}
	}
	slices.SortStableFunc(all, func(a, b *Param) int { return strings.Compare(a.Name, b.Name) })
	return all
}

// canonicalName is the name CONFIG REWRITE writes for p: an alias's
// parameter name (slaveof: replicaof), else p's.
func canonicalName(p *Param) string {
	if s := specOf[p]; s != nil {
		return s.name
	}
	return p.Name
}

// Sensitive reports whether the CONFIG SET value of the named parameter
// is a credential that SLOWLOG and MONITOR redact, as Redis's
// SENSITIVE_CONFIG.
func Sensitive(name string) bool {
	return slices.Contains(sensitiveParams, strings.ToLower(name))
}

// sensitiveParams are Redis 8.0.2's SENSITIVE_CONFIG parameters (none has
// an alias).
var sensitiveParams = []string{"masterauth", "masteruser", "requirepass", "tls-client-key-file-pass", "tls-key-file-pass"}

// RedisParam describes one Redis parameter of redisparams.go for the
// documentation and its tests.
type RedisParam struct {
	Name, Alias string
	Default     string
	Immutable   bool
	Hidden      bool
	Effect      Effect
	Why         string
	Accepts     string // a Refused parameter's accepted values
}

// RedisParams lists the Redis parameters of redisparams.go in force (not
// superseded by config.go's Params), sorted by name.
func RedisParams() []RedisParam {
	var out []RedisParam
	for i := range redisSpecs {
		if s := &redisSpecs[i]; redisByName[s.name] != nil {
			out = append(out, RedisParam{s.name, s.alias, s.def, s.immutable, s.hidden, s.effect, s.why, s.accepts})
		}
	}
	return out
}

// RedisValue is a Redis parameter's value as CONFIG GET shows it.
func (c *Config) RedisValue(name string) string { return c.redisValue(name) }

// redisValue is a parameter's value as CONFIG GET shows it.
func (c *Config) redisValue(name string) string { return c.redis[specOf[redisByName[name]].slot] }

// TLSSettings are the tls-* directives the TLS listener reads
// (internal/server/tls.go); comparable, so that a change shows.
type TLSSettings struct {
	Port                                                  int
	CertFile, KeyFile, KeyFilePass, CACertFile, CACertDir string
	AuthClients                                           string // yes, no or optional
	Protocols, Ciphers, CipherSuites                      string
	SessionCaching                                        bool
}

// TLS returns the TLS settings.
func (c *Config) TLS() TLSSettings {
	port, _ := strconv.Atoi(c.redisValue("tls-port"))
	return TLSSettings{
		Port:           port,
		CertFile:       c.redisValue("tls-cert-file"),
		KeyFile:        c.redisValue("tls-key-file"),
		KeyFilePass:    c.redisValue("tls-key-file-pass"),
		CACertFile:     c.redisValue("tls-ca-cert-file"),
		CACertDir:      c.redisValue("tls-ca-cert-dir"),
		AuthClients:    c.redisValue("tls-auth-clients"),
		Protocols:      c.redisValue("tls-protocols"),
		Ciphers:        c.redisValue("tls-ciphers"),
		CipherSuites:   c.redisValue("tls-ciphersuites"),
		SessionCaching: c.redisValue("tls-session-caching") == "yes",
	}
}

// Encodings are the thresholds of the collections' encodings and of stream
// nodes: the *-max-listpack-*, set-max-intset-entries,
// list-max-listpack-size and stream-node-max-* parameters.
type Encodings struct {
	HashListpackEntries, HashListpackValue                 int64
	SetIntsetEntries, SetListpackEntries, SetListpackValue int64
	ZSetListpackEntries, ZSetListpackValue                 int64
	ListListpackSize                                       int64
	StreamNodeMaxEntries, StreamNodeMaxBytes               int64
}

// Encodings returns the encoding thresholds.
func (c *Config) Encodings() Encodings {
	n := func(name string) int64 {
		v, _ := strconv.ParseInt(c.redisValue(name), 10, 64)
		return v
	}
	return Encodings{
		HashListpackEntries:  n("hash-max-listpack-entries"),
		HashListpackValue:    n("hash-max-listpack-value"),
		SetIntsetEntries:     n("set-max-intset-entries"),
		SetListpackEntries:   n("set-max-listpack-entries"),
		SetListpackValue:     n("set-max-listpack-value"),
		ZSetListpackEntries:  n("zset-max-listpack-entries"),
		ZSetListpackValue:    n("zset-max-listpack-value"),
		ListListpackSize:     n("list-max-listpack-size"),
		StreamNodeMaxEntries: n("stream-node-max-entries"),
		StreamNodeMaxBytes:   n("stream-node-max-bytes"),
	}
}

// BusyReplyThreshold is busy-reply-threshold (lua-time-limit): how long a
// script runs before other clients' commands get BUSY.
func (c *Config) BusyReplyThreshold() time.Duration {
	n, _ := strconv.ParseInt(c.redisValue("busy-reply-threshold"), 10, 64)
	return time.Duration(min(n, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond
}

// ActiveExpireEffort is active-expire-effort (1 to 10).
func (c *Config) ActiveExpireEffort() int {
	n, _ := strconv.Atoi(c.redisValue("active-expire-effort"))
	return n
}

// HLLSparseMaxBytes is hll-sparse-max-bytes.
func (c *Config) HLLSparseMaxBytes() int64 {
	n, _ := strconv.ParseInt(c.redisValue("hll-sparse-max-bytes"), 10, 64)
	return n
}

// isDeprecated reports whether a configuration file line is one of Redis's
// deprecated directives, which are read and ignored.
func isDeprecated(name string, args []string) bool {
	return len(args) == 1 && slices.Contains(deprecatedDirectives, strings.ToLower(name))
}
