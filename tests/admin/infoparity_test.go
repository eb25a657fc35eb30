package admin

import (
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// infoLine is a field of INFO: its section and name.
type infoLine struct{ section, name string }

// parseInfo lists INFO's fields, in order.
func parseInfo(t testing.TB, reply any) []infoLine {
	t.Helper()
	txt, ok := reply.(string)
	if !ok {
		t.Fatalf("INFO answered %#v", reply)
	}
	var lines []infoLine
	section := ""
	for _, l := range strings.Split(txt, "\r\n") {
		if s, ok := strings.CutPrefix(l, "# "); ok {
			section = s
		} else if name, _, ok := strings.Cut(l, ":"); ok {
			lines = append(lines, infoLine{section, name})
		}
	}
	return lines
}

// The parts of INFO's field names that depend on the data and the traffic:
// databases and replicas numbered, commands and errors named.
var (
	infoNumbered = regexp.MustCompile(`^(db|slave)\d+`)
	infoNamed    = regexp.MustCompile(`^(cmdstat_|errorstat_|latency_percentiles_usec_).*`)
)

func normInfoName(n string) string {
	return infoNamed.ReplaceAllString(infoNumbered.ReplaceAllString(n, "${1}N"), "$1")
}

// infoMissingOK are Redis's INFO fields HotKV leaves out, by section.
var infoMissingOK = map[string]string{
	// Redis keeps a histogram of key sizes per type, updated by every
	// write; HotKV would have to scan the keyspace for it.
	"Keysizes": "dbN_distrib_",
}

// TestDifferentialInfoFields: after the same commands, every field of Redis
// 8.0.2's INFO everything is in HotKV's, in the same section and in Redis's
// order (HotKV's own fields may come between).
func TestDifferentialInfoFields(t *testing.T) {
	redis, hot := harness.StartRedis(t), harness.Start(t)
	var want, got []infoLine
	for i, srv := range []*harness.Server{redis, hot} {
		r := srv.Raw(t)
		for _, cmd := range [][]string{
			{"SET", "s", "v"}, {"RPUSH", "l", "a"}, {"SADD", "st", "a"}, {"ZADD", "z", "1", "a"},
			{"HSET", "h", "f", "v"}, {"HEXPIRE", "h", "100", "FIELDS", "1", "f"}, {"SET", "v", "x", "EX", "100"},
			{"SELECT", "3"}, {"SET", "s", "v"}, {"EVAL", "return 1", "0"}, {"INCR", "s"}, {"GET", "s"},
			{"FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"},
		} {
			r.Do(cmd...)
		}
		lines := parseInfo(t, r.Do("INFO", "everything"))
		if i == 0 {
			want = lines
		} else {
			got = lines
		}
	}
	pos := map[string]int{} // section and name to the index of its first line
	for i, l := range got {
		k := l.section + " " + normInfoName(l.name)
		if _, ok := pos[k]; !ok {
			pos[k] = i
		}
	}
	last, lastName := -1, ""
	seen := map[string]bool{}
	for _, l := range want {
		name := normInfoName(l.name)
		k := l.section + " " + name
		if seen[k] {
			continue
		}
		seen[k] = true
		if p := infoMissingOK[l.section]; p != "" && strings.HasPrefix(name, p) {
			continue
		}
		i, ok := pos[k]
		switch {
		case !ok:
			t.Errorf("INFO everything lacks %s (section %s)", name, l.section)
		case i < last:
			t.Errorf("%s (section %s) comes before %s, Redis has it after", name, l.section, lastName)
		default:
			last, lastName = i, name
		}
	}
}

// waitStat polls INFO stats over r until ok accepts a field, for up to
// 10 s (the rates are sampled by the cron, which a loaded machine may delay).
func waitStat(t *testing.T, r *harness.Conn, name string, ok func(float64) bool) {
	t.Helper()
	var v float64
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if v = harness.InfoFloat(t, harness.InfoFields(t, r, "stats"), name); ok(v) {
			return
		}
	}
	t.Fatalf("INFO %s stayed at %v", name, v)
}

// TestInfoNetKbps: instantaneous_input_kbps and instantaneous_output_kbps
// follow the traffic (64 KB values written, then read, in a loop) and fall
// back when it stops; the event loop's figures count it.
func TestInfoNetKbps(t *testing.T) {
	s := harness.Start(t)
	r, load := s.Raw(t), s.Raw(t)
	var phase atomic.Int32 // 0: SET, 1: GET, 2: stop
	sent := 0              // commands answered
	done := make(chan struct{})
	go func() {
		defer close(done)
		cmds := []string{harness.Encode("SET", "k", strings.Repeat("x", 64<<10)), harness.Encode("GET", "k")}
		for p := phase.Load(); p < 2; p = phase.Load() {
			if _, err := load.NetConn.Write([]byte(cmds[p])); err != nil {
				return
			}
			if _, err := harness.ReadReply(load.Reader); err != nil {
				return
			}
			sent++
		}
	}()
	defer func() { phase.Store(2); <-done }()
	waitStat(t, r, "instantaneous_input_kbps", func(v float64) bool { return v > 1000 })
	phase.Store(1)
	waitStat(t, r, "instantaneous_output_kbps", func(v float64) bool { return v > 1000 })
	phase.Store(2)
	<-done
	waitStat(t, r, "instantaneous_input_kbps", func(v float64) bool { return v < 50 }) // INFO's own requests
	m := s.Info(t, "stats")
	cycles, sum, cmd := harness.InfoFloat(t, m, "eventloop_cycles"), harness.InfoFloat(t, m, "eventloop_duration_sum"), harness.InfoFloat(t, m, "eventloop_duration_cmd_sum")
	if cycles < float64(sent) || cmd == 0 || sum < cmd { // a request is read in one cycle at least
		t.Errorf("eventloop_cycles %v, eventloop_duration_sum %v, eventloop_duration_cmd_sum %v", cycles, sum, cmd)
	}
}

// TestInfoMemoryConsistent: used_memory_overhead and used_memory_dataset
// split used_memory, as MEMORY STATS's overhead.total and dataset.bytes do,
// and the script figures follow the cache and the libraries.
func TestInfoMemoryConsistent(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	for i := 0; i < 1000; i++ {
		r.Do("SET", "k"+strconv.Itoa(i), "v", "EX", "1000")
	}
	m := s.Info(t, "memory")
	n := func(name string) float64 { return harness.InfoFloat(t, m, name) }
	used, over, data, startup := n("used_memory"), n("used_memory_overhead"), n("used_memory_dataset"), n("used_memory_startup")
	if data != max(used-over, 0) || over < startup { // a collection may take used_memory under the overhead
		t.Fatalf("used_memory %v: overhead %v (startup %v) + dataset %v", used, over, startup, data)
	}
	if perc := strconv.FormatFloat(float64(float32(data*100/max(used-startup, 1))), 'f', 2, 64) + "%"; m["used_memory_dataset_perc"] != perc {
		t.Errorf("used_memory_dataset_perc %s, want %s", m["used_memory_dataset_perc"], perc)
	}
	if n("used_memory_vm_total") != n("used_memory_vm_eval")+n("used_memory_vm_functions") ||
		n("used_memory_scripts") != n("used_memory_scripts_eval")+n("used_memory_functions") ||
		m["used_memory_lua"] != m["used_memory_vm_eval"] || n("mem_clients_normal") == 0 {
		t.Errorf("script and client figures: %v", m)
	}
	stats := func() map[string]int64 {
		st := map[string]int64{}
		reply := r.Do("MEMORY", "STATS").([]any)
		for i := 0; i+1 < len(reply); i += 2 {
			if v, ok := reply[i+1].(int64); ok {
				st[reply[i].(string)] = v
			}
		}
		return st
	}
	st := stats()
	if st["lua.caches"] != 0 || st["script.VMs"] != int64(n("used_memory_vm_total")) || st["keys.count"] != 1000 {
		t.Errorf("MEMORY STATS: %v", st)
	}
	vm := st["script.VMs"]
	r.Do("EVAL", "return 'a fresh script'", "0")
	r.Do("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)")
	m = s.Info(t, "memory")
	if n("used_memory_scripts_eval") == 0 || n("used_memory_vm_eval") <= float64(vm) || n("used_memory_vm_functions") == 0 {
		t.Errorf("after EVAL and FUNCTION LOAD: %v", m)
	}
	if st := stats(); st["lua.caches"] != int64(n("used_memory_scripts_eval")) || st["script.VMs"] != int64(n("used_memory_vm_total")) {
		t.Errorf("MEMORY STATS after EVAL: %v", st)
	}
	r.Do("SCRIPT", "FLUSH")
	if m = s.Info(t, "memory"); n("used_memory_scripts_eval") != 0 || n("used_memory_vm_eval") != float64(vm) {
		t.Errorf("after SCRIPT FLUSH: %s, %s", m["used_memory_scripts_eval"], m["used_memory_vm_eval"])
	}
}

// TestInfoExpiredStale: keys the active expiry cycle finds expired raise
// expired_stale_perc (Redis's running average: 5% per cycle of the keys it
// sampled that had expired), which decays once none are left.
func TestInfoExpiredStale(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	m := s.Info(t, "stats")
	if m["expired_stale_perc"] != "0.00" || m["expired_time_cap_reached_count"] != "0" || m["expired_keys"] != "0" {
		t.Fatalf("at start: %s, %s, %s", m["expired_stale_perc"], m["expired_time_cap_reached_count"], m["expired_keys"])
	}
	for i := 0; i < 500; i++ {
		r.Do("SET", "k"+strconv.Itoa(i), "v", "PX", "1")
	}
	peak := 0.0
	waitStat(t, r, "expired_stale_perc", func(v float64) bool { peak = max(peak, v); return v > 0 })
	waitStat(t, r, "expired_stale_perc", func(v float64) bool { return v < peak })
	if m := s.Info(t, "stats"); m["expired_keys"] != "500" || peak > 100 {
		t.Errorf("expired_keys %s, stale peak %v", m["expired_keys"], peak)
	}
	r.Do("CONFIG", "RESETSTAT")
	if m := s.Info(t, "stats"); m["expired_stale_perc"] != "0.00" || m["expired_keys"] != "0" {
		t.Errorf("after CONFIG RESETSTAT: %s, expired_keys %s", m["expired_stale_perc"], m["expired_keys"])
	}
}

// TestInfoDumpSanitizations: RESTORE validates a payload's packed blobs
// whole, which Redis counts in dump_payload_sanitizations; CONFIG RESETSTAT
// clears the count.
func TestInfoDumpSanitizations(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Do("HSET", "h", "a", "1", "b", "2") // a listpack
	payload := r.Do("DUMP", "h").(string)
	before := harness.InfoFloat(t, s.Info(t, "stats"), "dump_payload_sanitizations")
	r.Expect(harness.Status("OK"), "RESTORE", "h2", "0", payload)
	if got := harness.InfoFloat(t, s.Info(t, "stats"), "dump_payload_sanitizations"); got != before+1 {
		t.Fatalf("dump_payload_sanitizations went from %v to %v", before, got)
	}
	r.Do("CONFIG", "RESETSTAT")
	if m := s.Info(t, "stats"); m["dump_payload_sanitizations"] != "0" {
		t.Fatalf("after CONFIG RESETSTAT: %s", m["dump_payload_sanitizations"])
	}
}

// TestInfoReplicationCounters: syncs served and bytes sent to replicas, the
// backlog's memory, and replicas left out of connected_clients, as Redis
// counts them. The replicas are raw connections speaking PSYNC.
func TestInfoReplicationCounters(t *testing.T) {
	s := harness.Start(t, "--dir", t.TempDir()) // where full syncs write their files
	w, r := s.Raw(t), s.Raw(t)
	w.Do("SET", "k", "v")
	psync := func(id, off string) string {
		rep := s.Raw(t)
		rep.Send(harness.Encode("PSYNC", id, off))
		line := harness.ReadLine(t, rep.Reader)
		if strings.HasPrefix(line, "+FULLRESYNC") {
			size, _ := strconv.Atoi(strings.TrimPrefix(harness.ReadLine(t, rep.Reader), "$"))
			if _, err := io.ReadFull(rep.Reader, make([]byte, size)); err != nil {
				t.Fatal(err)
			}
		}
		go io.Copy(io.Discard, rep.Reader) // the stream: never left to fill the socket
		return line
	}
	line := psync("?", "-1") // a full sync asked for: not a failed partial one
	f := strings.Fields(line)
	// counted once the transfer is written, which the replica may see first
	waitStat(t, r, "total_net_repl_output_bytes", func(v float64) bool { return v > 40 })
	m := s.Info(t, "stats")
	if m["sync_full"] != "1" || m["sync_partial_err"] != "0" {
		t.Fatalf("after a full sync: %v", m)
	}
	off, _ := strconv.ParseInt(f[2], 10, 64)
	if line = psync(f[1], strconv.FormatInt(off+1, 10)); !strings.HasPrefix(line, "+CONTINUE") {
		t.Fatalf("PSYNC from the backlog: %q", line)
	}
	psync(strings.Repeat("0", 40), "1") // another history: a full sync
	// connected_clients: w, r and INFO's connection, not the replicas
	m = s.Info(t, "stats", "memory", "clients")
	if m["sync_full"] != "2" || m["sync_partial_ok"] != "1" || m["sync_partial_err"] != "1" ||
		harness.InfoFloat(t, m, "mem_replication_backlog") == 0 || m["connected_clients"] != "3" ||
		harness.InfoFloat(t, m, "mem_total_replication_buffers") != harness.InfoFloat(t, m, "mem_replication_backlog")+harness.InfoFloat(t, m, "mem_clients_slaves") {
		t.Fatalf("after three syncs: %v", m)
	}
	sent := harness.InfoFloat(t, m, "total_net_repl_output_bytes")
	w.Do("SET", "k", strings.Repeat("x", 100<<10)) // to three replicas
	waitStat(t, r, "total_net_repl_output_bytes", func(v float64) bool { return v >= sent+300<<10 })
	waitStat(t, r, "instantaneous_output_repl_kbps", func(v float64) bool {
		w.Do("SET", "k", strings.Repeat("x", 10<<10)) // the rate of what follows the cron's first sample
		return v > 0
	})
	// Each replica's writer counts what it sent once its write returns:
	// RESETSTAT once they are done, or a write under way counts after it.
	last := -1.0
	waitStat(t, r, "total_net_repl_output_bytes", func(v float64) bool {
		done := v == last
		last = v
		return done
	})
	w.Do("CONFIG", "RESETSTAT")
	if m = s.Info(t, "stats"); m["sync_full"] != "0" || m["total_net_repl_output_bytes"] != "0" {
		t.Fatalf("after CONFIG RESETSTAT: %v", m)
	}
	// A HotKV replica (a process of its own: a replica stops expiry for
	// every server in its process) counts what it reads from its master in
	// its input.
	_, rep := harness.StartReplicaBinary(t)
	rep.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.PortOf(t, s.Addr))
	harness.CaughtUp(t, w, rep)
	waitStat(t, rep, "instantaneous_input_repl_kbps", func(v float64) bool {
		w.Do("SET", "k", strings.Repeat("x", 10<<10))
		return v > 0
	})
	m = harness.InfoFields(t, rep, "stats")
	if in := harness.InfoFloat(t, m, "total_net_repl_input_bytes"); in < 10<<10 || harness.InfoFloat(t, m, "total_net_input_bytes") < in {
		t.Fatalf("the replica's input: %v", m)
	}
}

// instantaneous_ops_per_sec after CONFIG RESETSTAT: 0 at once, as Redis
// empties its samples, then a rate of what ran since. The first sample
// after a reset subtracted the old total from the new, unsigned, and
// showed a wrapped-around rate for a second.
func TestOpsPerSecAfterResetStat(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	for i := 0; s.InfoInt(t, "stats", "instantaneous_ops_per_sec") == 0; i++ {
		if i == 400 {
			t.Fatal("instantaneous_ops_per_sec still 0 after 4 s of traffic")
		}
		r.Do("PING")
		time.Sleep(10 * time.Millisecond)
	}
	r.Expect(harness.Status("OK"), "CONFIG", "RESETSTAT")
	if n := s.InfoInt(t, "stats", "instantaneous_ops_per_sec"); n != 0 {
		t.Fatalf("instantaneous_ops_per_sec right after RESETSTAT: %d", n)
	}
	for end := time.Now().Add(2500 * time.Millisecond); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if n := s.InfoInt(t, "stats", "instantaneous_ops_per_sec"); n < 0 || n > 1000 {
			t.Fatalf("instantaneous_ops_per_sec after RESETSTAT: %d", n)
		}
	}
}
