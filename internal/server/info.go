package server

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
)

// INFO's sections about the server's state (the command, and the sections
// that need none of it, are internal/admin's).

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
		kv(b, "monotonic_clock", "POSIX clock_gettime") // Go's monotonic clock
		kv(b, "multiplexing_api", "epoll")
		kv(b, "atomicvar_api", "go-sync/atomic")
		kv(b, "gcc_version", "0.0.0") // as Redis built by another compiler shows
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
			if n := c.tx.watchCount.Load(); n > 0 {
				watching++
				watched += int(n)
			}
		}
		kv(b, "connected_clients", s.normalClients(clients))
		kv(b, "cluster_connections", 0)
		kv(b, "maxclients", cfg.MaxClients)
		kv(b, "client_recent_max_input_buffer", 0)
		kv(b, "client_recent_max_output_buffer", 0)
		kv(b, "blocked_clients", s.clients.blocked.Load())
		kv(b, "tracking_clients", s.track.Clients())
		kv(b, "pubsub_clients", pub)
		kv(b, "watching_clients", watching)
		kv(b, "clients_in_timeout_table", 0)
		kv(b, "total_watched_keys", watched)
		blocking, onNoKey := keyspace.BlockingKeys()
		kv(b, "total_blocking_keys", blocking)
		kv(b, "total_blocking_keys_on_nokey", onNoKey)
	case "memory":
		s.infoMemory(b, c)
	case "persistence":
		s.infoPersistence(b)
	case "threads": // no I/O threads: every connection counts as the main thread's
		_, _, reads, writes := s.netTotals()
		fmt.Fprintf(b, "io_thread_0:clients=%d,reads=%d,writes=%d\r\n", len(s.clientList()), reads, writes)
	case "stats":
		s.infoStats(b)
	case "replication":
		if !s.upstream.Info(b) {
			s.infoReplication(b)
		}
	case "commandstats":
		calls, nanos, _, _ := s.commandTotals()
		rej, fail := s.stats.Refusals()
		type row struct {
			name string
			id   int
		}
		var rows []row
		for id := range calls {
			if calls[id] > 0 || rej[id] > 0 || fail[id] > 0 {
				rows = append(rows, row{cmdtable.ByID(id).Name, id})
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
		for _, e := range s.stats.Errors() {
			fmt.Fprintf(b, "errorstat_%s:count=%d\r\n", e.Code, e.Count)
		}
	case "latencystats":
		s.infoLatencyStats(b)
	case "keyspace":
		for i := range s.ks.DBs {
			if st := s.dbStats(c, i); st.keys > 0 {
				fmt.Fprintf(b, "db%d:keys=%d,expires=%d,avg_ttl=0,subexpiry=%d\r\n", i, st.keys, st.volatile, st.subVolatile)
			}
		}
	}
}

// normalClients counts the clients that are not replicas, as INFO's
// connected_clients and MEMORY STATS's clients.normal do.
func (s *Server) normalClients(clients []*client) int {
	n := 0
	for _, c := range clients {
		if !c.isReplica() {
			n++
		}
	}
	return n
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
	held := c != nil && c.tx.inExec
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
