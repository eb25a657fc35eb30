package server

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/hotkv/hotkv/internal/acl"
	"github.com/hotkv/hotkv/internal/command"
	"github.com/hotkv/hotkv/internal/keyspace"
)

// INFO, with Redis's section and field names.

var defaultSections = []string{"server", "clients", "memory", "persistence", "stats", "replication", "cpu", "modules", "errorstats", "cluster", "keyspace"}

func info(x *command.Ctx) {
	c := cl(x)
	c.flushStats() // include this connection's latest commands
	s := c.s
	want := map[string]bool{}
	if len(x.Args) == 1 {
		for _, n := range defaultSections {
			want[n] = true
		}
	}
	for _, a := range x.Args[1:] {
		switch sec := strings.ToLower(string(a)); sec {
		case "default":
			for _, n := range defaultSections {
				want[n] = true
			}
		case "all", "everything":
			for _, n := range defaultSections {
				want[n] = true
			}
			want["commandstats"] = true
			want["latencystats"] = true
		default:
			want[sec] = true
		}
	}
	var b strings.Builder
	for _, sec := range []string{"server", "clients", "memory", "persistence", "stats", "replication", "cpu", "modules", "commandstats", "errorstats", "latencystats", "cluster", "keyspace"} {
		if !want[sec] {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString("# " + sectionTitles[sec] + "\r\n")
		s.infoSection(&b, sec, cl(x))
	}
	x.W.Verbatim(b.String())
}

var sectionTitles = map[string]string{
	"server": "Server", "clients": "Clients", "memory": "Memory", "persistence": "Persistence",
	"stats": "Stats", "replication": "Replication", "cpu": "CPU", "modules": "Modules",
	"commandstats": "Commandstats", "errorstats": "Errorstats", "latencystats": "Latencystats", "cluster": "Cluster", "keyspace": "Keyspace",
}

func kv(b *strings.Builder, k string, v any) { fmt.Fprintf(b, "%s:%v\r\n", k, v) }

func human(n uint64) string {
	f := float64(n)
	for _, u := range []string{"B", "K", "M", "G", "T"} {
		if f < 1024 || u == "T" {
			if u == "B" {
				return fmt.Sprintf("%dB", n)
			}
			return fmt.Sprintf("%.2f%s", f, u)
		}
		f /= 1024
	}
	return ""
}

func (s *Server) infoSection(b *strings.Builder, sec string, c *client) {
	cfg := s.Config()
	now := time.Now()
	switch sec {
	case "server":
		kv(b, "redis_version", RedisVersion)
		kv(b, "hotkv_version", Version)
		kv(b, "redis_git_sha1", "00000000")
		kv(b, "redis_git_dirty", 0)
		kv(b, "redis_build_id", "0")
		kv(b, "redis_mode", "standalone")
		kv(b, "os", runtime.GOOS+" "+runtime.GOARCH)
		kv(b, "arch_bits", 64)
		kv(b, "multiplexing_api", "epoll")
		kv(b, "go_version", runtime.Version())
		kv(b, "process_id", os.Getpid())
		kv(b, "process_supervised", "no")
		kv(b, "run_id", s.runID)
		kv(b, "tcp_port", s.port())
		kv(b, "server_time_usec", now.UnixMicro())
		up := int64(now.Sub(s.started).Seconds())
		kv(b, "uptime_in_seconds", up)
		kv(b, "uptime_in_days", up/86400)
		kv(b, "hz", cfg.Hz)
		kv(b, "configured_hz", cfg.Hz)
		kv(b, "lru_clock", keyspace.Clock.Load())
		exe, _ := os.Executable()
		kv(b, "executable", exe)
		kv(b, "config_file", cfg.File)
		kv(b, "io_threads_active", 0)
		kv(b, "threads", runtime.GOMAXPROCS(0))
		fmt.Fprintf(b, "listener0:name=tcp")
		for _, a := range cfg.Bind {
			fmt.Fprintf(b, ",bind=%s", a)
		}
		fmt.Fprintf(b, ",port=%d\r\n", s.port())
	case "clients":
		clients := s.clientList()
		pub, watching, watched := 0, 0, 0
		for _, c := range clients {
			if c.subscribed() {
				pub++
			}
			if n := c.watchCount.Load(); n > 0 {
				watching++
				watched += int(n)
			}
		}
		kv(b, "connected_clients", len(clients))
		kv(b, "cluster_connections", 0)
		kv(b, "maxclients", cfg.MaxClients)
		kv(b, "client_recent_max_input_buffer", 0)
		kv(b, "client_recent_max_output_buffer", 0)
		kv(b, "blocked_clients", s.blockedClients.Load())
		kv(b, "tracking_clients", s.track.nclients())
		kv(b, "pubsub_clients", pub)
		kv(b, "watching_clients", watching)
		kv(b, "clients_in_timeout_table", 0)
		kv(b, "total_watched_keys", watched)
		blocking, onNoKey := keyspace.BlockingKeys()
		kv(b, "total_blocking_keys", blocking)
		kv(b, "total_blocking_keys_on_nokey", onNoKey)
	case "memory":
		m := s.memoryFigures() // MEMORY STATS reports the same (memory.go)
		ms, rss, used, peak := &m.ms, m.rss, m.used, m.peak
		kv(b, "used_memory", used)
		kv(b, "used_memory_human", human(used))
		kv(b, "used_memory_rss", rss)
		kv(b, "used_memory_rss_human", human(rss))
		kv(b, "used_memory_peak", peak)
		kv(b, "used_memory_peak_human", human(peak))
		kv(b, "used_memory_peak_perc", fmt.Sprintf("%.2f%%", 100*float64(used)/float64(max(peak, 1))))
		kv(b, "used_memory_startup", m.startup)
		kv(b, "used_memory_dataset", used-min(used, m.startup))
		kv(b, "total_system_memory", totalMemory())
		kv(b, "total_system_memory_human", human(totalMemory()))
		scripts, libs, funcs, code := s.scripts.Counts()
		kv(b, "number_of_cached_scripts", scripts)
		kv(b, "number_of_functions", funcs)
		kv(b, "number_of_libraries", libs)
		kv(b, "used_memory_functions", code) // the libraries' code: the Lua state's memory is not measured
		kv(b, "maxmemory", cfg.MaxMemory)
		kv(b, "maxmemory_human", human(uint64(cfg.MaxMemory)))
		kv(b, "maxmemory_policy", cfg.MaxMemoryPolicy)
		kv(b, "mem_fragmentation_ratio", fmt.Sprintf("%.2f", float64(rss)/float64(max(used, 1))))
		kv(b, "mem_not_counted_for_evict", 0) // no replication backlog or AOF buffer outside used_memory's count
		kv(b, "mem_allocator", "go")
		// Deleted values are the collector's to reclaim: nothing is ever
		// pending in a lazy-free thread, or defragmented.
		kv(b, "active_defrag_running", 0)
		kv(b, "lazyfree_pending_objects", 0)
		kv(b, "lazyfreed_objects", 0)
		kv(b, "heap_sys", ms.HeapSys)
		kv(b, "heap_objects", ms.HeapObjects)
		kv(b, "gc_cycles", ms.NumGC)
		kv(b, "gc_cpu_fraction", fmt.Sprintf("%.6f", ms.GCCPUFraction))
		kv(b, "gc_pause_total_ms", ms.PauseTotalNs/1e6)
		kv(b, "gc_last_pause_us", ms.PauseNs[(ms.NumGC+255)%256]/1e3)
		// Named vector indexes (VSIM.CREATEINDEX); each vector set reports
		// its own memory in VINFO.
		nix, nvec, vbytes := s.ks.Indexes.Stats()
		kv(b, "vector_indexes", nix)
		kv(b, "vector_index_vectors", nvec)
		kv(b, "vector_index_bytes", vbytes)
		kv(b, "vector_index_bytes_per_vector", vbytes/int64(max(nvec, 1)))
	case "persistence":
		s.infoPersistence(b)
	case "stats":
		calls, _, hits, misses := s.commandTotals()
		var total uint64
		for _, n := range calls {
			total += n
		}
		in, out, reads, writes := s.netTotals()
		s.stats.mu.Lock()
		var errs uint64
		for _, n := range s.stats.errs {
			errs += n
		}
		s.stats.mu.Unlock()
		kv(b, "total_connections_received", s.stats.connections.Load())
		kv(b, "total_commands_processed", total)
		kv(b, "instantaneous_ops_per_sec", s.stats.opsPerSec.Load())
		kv(b, "total_net_input_bytes", in)
		kv(b, "total_net_output_bytes", out)
		kv(b, "rejected_connections", s.stats.refused.Load())
		kv(b, "expired_subkeys", keyspace.ExpiredSubkeys.Load())
		kv(b, "expired_keys", keyspace.ExpiredKeys.Load())
		kv(b, "evicted_keys", s.ev.evicted.Load())
		kv(b, "evicted_clients", 0)
		kv(b, "evicted_scripts", 0)
		exceeded := s.ev.overTime.Load()
		current := int64(0)
		if t := s.ev.overNow.Load(); t != 0 {
			current = time.Now().UnixMilli() - t
		}
		kv(b, "total_eviction_exceeded_time", exceeded+current)
		kv(b, "current_eviction_exceeded_time", current)
		kv(b, "keyspace_hits", hits)
		kv(b, "keyspace_misses", misses)
		kv(b, "pubsub_channels", len(s.hub.channels(kindChannel, nil)))
		kv(b, "pubsub_patterns", s.hub.numPat())
		kv(b, "pubsubshard_channels", len(s.hub.channels(kindShard, nil)))
		kv(b, "total_forks", 0)
		kv(b, "migrate_cached_sockets", s.migrate.size())
		kv(b, "tracking_total_keys", s.track.keys.Load())
		kv(b, "tracking_total_items", s.track.items.Load())
		kv(b, "tracking_total_prefixes", s.track.nprefix.Load())
		kv(b, "total_error_replies", errs)
		kv(b, "total_reads_processed", reads)
		kv(b, "total_writes_processed", writes)
		kv(b, "client_query_buffer_limit_disconnections", s.stats.qbufLimitDisconnections.Load())
		kv(b, "client_output_buffer_limit_disconnections", s.stats.obufLimitDisconnections.Load())
		kv(b, "acl_access_denied_auth", s.acl.denied[acl.DeniedAuth].Load())
		kv(b, "acl_access_denied_cmd", s.acl.denied[acl.DeniedCmd].Load())
		kv(b, "acl_access_denied_key", s.acl.denied[acl.DeniedKey].Load())
		kv(b, "acl_access_denied_channel", s.acl.denied[acl.DeniedChannel].Load())
		kv(b, "recovered_panics", s.stats.panics.Load())
	case "replication":
		if !s.infoReplica(b) {
			s.infoReplication(b)
		}
	case "cpu":
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		kv(b, "used_cpu_sys", fmt.Sprintf("%.6f", tv(ru.Stime)))
		kv(b, "used_cpu_user", fmt.Sprintf("%.6f", tv(ru.Utime)))
		kv(b, "used_cpu_sys_children", "0.000000")
		kv(b, "used_cpu_user_children", "0.000000")
	case "commandstats":
		calls, nanos, _, _ := s.commandTotals()
		s.stats.mu.Lock()
		rej := append([]uint64(nil), s.stats.rejects...)
		fail := append([]uint64(nil), s.stats.fails...)
		s.stats.mu.Unlock()
		type row struct {
			name string
			id   int
		}
		var rows []row
		for id := range calls {
			if calls[id] > 0 || rej[id] > 0 || fail[id] > 0 {
				rows = append(rows, row{command.ByID(id).Name, id})
			}
		}
		sort.Slice(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
		for _, r := range rows {
			per := 0.0
			if calls[r.id] > 0 {
				per = float64(nanos[r.id]) / 1e3 / float64(calls[r.id])
			}
			fmt.Fprintf(b, "cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=%d\r\n",
				r.name, calls[r.id], nanos[r.id]/1e3, per, rej[r.id], fail[r.id])
		}
	case "errorstats":
		s.stats.mu.Lock()
		codes := make([]string, 0, len(s.stats.errs))
		for c := range s.stats.errs {
			codes = append(codes, c)
		}
		sort.Strings(codes)
		for _, c := range codes {
			fmt.Fprintf(b, "errorstat_%s:count=%d\r\n", c, s.stats.errs[c])
		}
		s.stats.mu.Unlock()
	case "latencystats":
		s.infoLatencyStats(b)
	case "modules": // vector sets are built in; Redis 8 lists them as this module
		kv(b, "module", "name="+vectorsetModule+",ver=1,api=1,filters=0,usedby=[],using=[],options=[handle-io-errors|handle-repl-async-load]")
	case "cluster":
		kv(b, "cluster_enabled", 0)
	case "keyspace":
		for i := range s.ks.DBs {
			if st := s.dbStats(c, i); st.keys > 0 {
				fmt.Fprintf(b, "db%d:keys=%d,expires=%d,avg_ttl=0,subexpiry=%d\r\n", i, st.keys, st.volatile, st.subVolatile)
			}
		}
	}
}

// dbStat is what INFO keyspace and MEMORY STATS count of a database.
type dbStat struct {
	keys, volatile, subVolatile int
	slots                       int // key table slots
}

// dbStats counts database i, locking one shard at a time, unless the
// caller is an EXEC or a script, which holds them all (countsShards).
func (s *Server) dbStats(c *client, i int) (st dbStat) {
	db := s.ks.DBs[i]
	held := c != nil && c.inExec
	for j := 0; j < keyspace.ShardCount; j++ {
		sh := db.Shard(j)
		if !held {
			sh.Lock()
		}
		st.keys += sh.Len()
		st.volatile += sh.Volatile()
		st.subVolatile += sh.SubVolatile()
		st.slots += sh.Slots()
		if !held {
			sh.Unlock()
		}
	}
	return st
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

func readRSS() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	var size, rss uint64
	fmt.Sscan(string(b), &size, &rss)
	return rss * uint64(os.Getpagesize())
}

func totalMemory() uint64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return si.Totalram * uint64(si.Unit)
}

func init() {
	command.Register(&command.Cmd{Name: "info", Arity: -1, Flags: command.Loading | command.Stale, Run: info, Group: "server", Since: "1.0.0", ACL: []string{"dangerous"},
		Summary: "Returns information and statistics about the server.", Args: "[section [section ...]]"})
}
