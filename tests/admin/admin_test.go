package admin

import (
	"fmt"
	"net"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/tests/internal/harness"
)

// TestCommandInfoShape: COMMAND INFO entries have Redis 7+'s ten fields,
// with sets where Redis answers sets (RESP3) and arrays in RESP2.
func TestCommandInfoShape(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect([]any{[]any{
		"get", int64(2), []any{harness.Status("readonly"), harness.Status("fast")}, int64(1), int64(1), int64(1),
		[]any{harness.Status("@read"), harness.Status("@string"), harness.Status("@fast")}, []any{},
		[]any{[]any{"flags", []any{harness.Status("RO"), harness.Status("access")},
			"begin_search", []any{"type", "index", "spec", []any{"index", int64(1)}},
			"find_keys", []any{"type", "range", "spec", []any{"lastkey", int64(0), "keystep", int64(1), "limit", int64(0)}}}},
		[]any{},
	}, nil}, "COMMAND", "INFO", "get", "nosuch")
	r.Expect([]any{[]any{
		"config|get", int64(-3), []any{harness.Status("admin"), harness.Status("noscript"), harness.Status("loading"), harness.Status("stale")},
		int64(0), int64(0), int64(0), []any{harness.Status("@admin"), harness.Status("@slow"), harness.Status("@dangerous")}, []any{}, []any{}, []any{},
	}}, "COMMAND", "INFO", "config|get")
	r.Do("HELLO", "3")
	info := r.Do("COMMAND", "INFO", "config").([]any)[0].([]any)
	for i, want := range []any{"config", int64(-2), harness.Set{}, int64(0), int64(0), int64(0), harness.Set{harness.Status("@slow")}, harness.Set{}, harness.Set{}} {
		if !reflect.DeepEqual(info[i], want) {
			t.Fatalf("COMMAND INFO config field %d = %#v, want %#v", i, info[i], want)
		}
	}
	subs, ok := info[9].([]any) // a container's subcommands: an array
	if !ok || len(subs) < 4 {
		t.Fatalf("config subcommands: %#v", info[9])
	}
	leaf := r.Do("COMMAND", "INFO", "ping").([]any)[0].([]any)
	if !reflect.DeepEqual(leaf[9], harness.Set{}) || !reflect.DeepEqual(leaf[8], harness.Set{}) || !reflect.DeepEqual(leaf[6], harness.Set{harness.Status("@fast"), harness.Status("@connection")}) {
		t.Fatalf("COMMAND INFO ping: %#v", leaf)
	}
}

func TestCommandCountListDocsGetKeys(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	count := r.Do("COMMAND", "COUNT").(int64)
	if int(count) != len(cmdtable.All()) {
		t.Fatalf("COMMAND COUNT = %d, table has %d", count, len(cmdtable.All()))
	}
	all := r.Do("COMMAND").([]any)
	if len(all) != int(count) {
		t.Fatalf("COMMAND lists %d commands", len(all))
	}
	list := r.Do("COMMAND", "LIST").([]any)
	subs := 0
	for _, n := range list {
		if strings.Contains(n.(string), "|") {
			subs++
		}
	}
	if len(list)-subs != int(count) || subs == 0 {
		t.Fatalf("COMMAND LIST: %d names, %d subcommands", len(list), subs)
	}
	got := r.Do("COMMAND", "LIST", "FILTERBY", "PATTERN", "config*").([]any)
	if len(got) != 6 || got[0] != "config" {
		t.Fatalf("FILTERBY PATTERN: %v", got)
	}
	for _, n := range r.Do("COMMAND", "LIST", "FILTERBY", "ACLCAT", "pubsub").([]any) {
		if c := r.Do("COMMAND", "INFO", n.(string)).([]any)[0].([]any); !reflect.DeepEqual(c[6].([]any)[0], harness.Status("@pubsub")) {
			t.Fatalf("%s in ACLCAT pubsub: %#v", n, c[6])
		}
	}
	r.Expect([]any{}, "COMMAND", "LIST", "FILTERBY", "MODULE", "x")
	r.Expect(harness.Err("ERR syntax error"), "COMMAND", "LIST", "FILTERBY")
	r.Expect(harness.Err("ERR syntax error"), "COMMAND", "LIST", "FOO")
	docs := r.Do("COMMAND", "DOCS", "get", "nosuch").([]any)
	if len(docs) != 2 || docs[0] != "get" {
		t.Fatalf("COMMAND DOCS: %#v", docs)
	}
	d := docs[1].([]any)
	if d[0] != "summary" || d[2] != "since" || d[4] != "group" || d[5] != "string" {
		t.Fatalf("COMMAND DOCS get: %#v", d)
	}
	for _, tc := range []struct {
		args []string
		want any
	}{
		{[]string{"get", "a"}, []any{"a"}},
		{[]string{"set", "a", "b"}, []any{"a"}},
		{[]string{"del", "a", "b", "c"}, []any{"a", "b", "c"}},
		{[]string{"ping", "a", "b", "c"}, harness.Err("ERR The command has no key arguments")},
		{[]string{"get"}, harness.Err("ERR Invalid number of arguments specified for command")},
		{[]string{"nosuch", "a"}, harness.Err("ERR Invalid command specified")},
		{[]string{"config", "nosuch"}, harness.Err("ERR Invalid command specified")},
		{[]string{"config", "get", "x"}, harness.Err("ERR The command has no key arguments")},
	} {
		r.Expect(tc.want, append([]string{"COMMAND", "GETKEYS"}, tc.args...)...)
	}
	r.Expect(harness.Err("ERR unknown subcommand 'NOSUCH'. Try COMMAND HELP."), "COMMAND", "NOSUCH")
	if help := r.Do("COMMAND", "HELP").([]any); help[0] != harness.Status("COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:") {
		t.Fatalf("COMMAND HELP: %#v", help)
	}
}

// infoSections is INFO's default output, section by section.
var infoSections = map[string][]string{
	"Server":  {"redis_version", "redis_mode", "os", "arch_bits", "process_id", "run_id", "tcp_port", "uptime_in_seconds", "hz", "executable", "config_file"},
	"Clients": {"connected_clients", "maxclients", "blocked_clients", "pubsub_clients", "watching_clients", "total_watched_keys"},
	"Memory": {"used_memory", "used_memory_human", "used_memory_rss", "used_memory_peak", "maxmemory", "maxmemory_policy", "mem_fragmentation_ratio",
		"mem_not_counted_for_evict", "lazyfree_pending_objects", "lazyfreed_objects"},
	"Persistence": {"loading", "rdb_changes_since_last_save", "rdb_last_save_time", "aof_enabled"},
	"Stats": {"total_connections_received", "total_commands_processed", "instantaneous_ops_per_sec", "total_net_input_bytes",
		"total_net_output_bytes", "rejected_connections", "expired_keys", "evicted_keys", "keyspace_hits", "keyspace_misses",
		"pubsub_channels", "pubsub_patterns", "total_error_replies", "total_reads_processed", "total_writes_processed",
		"client_query_buffer_limit_disconnections", "client_output_buffer_limit_disconnections", "recovered_panics"},
	"Replication": {"role", "connected_slaves", "master_replid", "master_repl_offset"},
	"CPU":         {"used_cpu_sys", "used_cpu_user", "used_cpu_sys_children", "used_cpu_user_children"},
	"Modules":     {},
	"Errorstats":  {},
	"Cluster":     {"cluster_enabled"},
	"Keyspace":    {},
}

func TestInfo(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "SET", "k", "v")
	r.Expect(harness.Status("OK"), "SET", "t", "v", "EX", "100")
	r.Do("NOSUCH")
	txt := r.Do("INFO").(string)
	var titles []string
	fields := map[string]string{}
	for i, block := range strings.Split(strings.TrimSuffix(txt, "\r\n"), "\r\n\r\n") {
		lines := strings.Split(block, "\r\n")
		if !strings.HasPrefix(lines[0], "# ") {
			t.Fatalf("section %d starts with %q", i, lines[0])
		}
		title := lines[0][2:]
		titles = append(titles, title)
		for _, l := range lines[1:] {
			k, v, ok := strings.Cut(l, ":")
			if !ok {
				t.Fatalf("%s: bad line %q", title, l)
			}
			fields[k] = v
		}
		for _, want := range infoSections[title] {
			if _, ok := fields[want]; !ok {
				t.Errorf("# %s lacks %s", title, want)
			}
		}
	}
	// Redis's, but for Keysizes (TestDifferentialInfoFields)
	if strings.Join(titles, ",") != "Server,Clients,Memory,Persistence,Threads,Stats,Replication,CPU,Modules,Errorstats,Cluster,Keyspace" {
		t.Fatalf("default sections: %v", titles)
	}
	_, port, _ := strings.Cut(s.Addr, ":")
	if fields["redis_version"] != "8.0.2" || fields["tcp_port"] != port || fields["db0"] != "keys=2,expires=1,avg_ttl=0,subexpiry=0" ||
		fields["errorstat_ERR"] != "count=1" || fields["connected_clients"] != "1" || fields["role"] != "master" ||
		fields["recovered_panics"] != "0" {
		t.Fatalf("INFO fields: %v", fields)
	}
	if want := "name=tcp,bind=127.0.0.1,port=" + port; fields["listener0"] != want {
		t.Fatalf("listener0 = %q, want %q", fields["listener0"], want)
	}
	// Named sections, case-insensitively, in Redis's order; commandstats
	// only on request or in "all"; unknown sections are empty.
	one := r.Do("INFO", "CPU", "server").(string)
	if !strings.HasPrefix(one, "# Server\r\n") || !strings.Contains(one, "\r\n\r\n# CPU\r\n") || strings.Contains(one, "# Clients") {
		t.Fatalf("INFO CPU server: %q", one)
	}
	r.Expect("", "INFO", "nosuch")
	cs := r.Do("INFO", "commandstats").(string)
	if !strings.Contains(cs, "cmdstat_set:calls=2,usec=") || !strings.Contains(cs, ",rejected_calls=0,failed_calls=0\r\n") {
		t.Fatalf("commandstats: %q", cs)
	}
	for _, arg := range []string{"all", "everything"} {
		if all := r.Do("INFO", arg).(string); !strings.Contains(all, "# Commandstats\r\n") || !strings.Contains(all, "# Keyspace\r\n") {
			t.Fatalf("INFO %s lacks sections", arg)
		}
	}
	r.Do("GET")
	r.Do("CONFIG", "SET", "hz", "x")
	cs = r.Do("INFO", "commandstats").(string)
	if !strings.Contains(cs, "cmdstat_get:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0") ||
		!strings.Contains(cs, "cmdstat_config|set:calls=1,") || !strings.Contains(cs, "failed_calls=1") {
		t.Fatalf("commandstats after errors: %q", cs)
	}
	r.Do("HELLO", "3")
	r.Send(harness.Req("INFO", "cluster"))
	if line, _ := r.Reader.ReadString('\n'); !strings.HasPrefix(line, "=") {
		t.Fatalf("RESP3 INFO is not a verbatim string: %q", line)
	}
}

func TestTimeLastsaveDbsize(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	tm := r.Do("TIME").([]any)
	sec, err1 := strconv.ParseInt(tm[0].(string), 10, 64)
	usec, err2 := strconv.ParseInt(tm[1].(string), 10, 64)
	if err1 != nil || err2 != nil || usec < 0 || usec > 999999 || time.Since(time.Unix(sec, 0)).Abs() > time.Minute {
		t.Fatalf("TIME = %#v", tm)
	}
	if ls := r.Do("LASTSAVE").(int64); time.Since(time.Unix(ls, 0)).Abs() > time.Minute {
		t.Fatalf("LASTSAVE = %d", ls)
	}
	r.Expect(int64(0), "DBSIZE")
	for i := range 10 {
		r.Expect(harness.Status("OK"), "SET", "k"+strconv.Itoa(i), "v")
	}
	r.Expect(int64(10), "DBSIZE")
	r.Expect(harness.Status("OK"), "SELECT", "1")
	r.Expect(int64(0), "DBSIZE")
	r.Expect(harness.Err("ERR wrong number of arguments for 'dbsize' command"), "DBSIZE", "x")
	r.Expect(harness.Err("ERR wrong number of arguments for 'time' command"), "TIME", "x")
	r.Expect(harness.Err("ERR DB index is out of range"), "SELECT", "16")
	r.Expect(harness.Err("ERR value is not an integer or out of range"), "SELECT", "x")
}

// Inside MULTI/EXEC and scripts TIME answers the same time every call, as
// Redis's cached clock does; the next transaction reads the clock again.
func TestTimeFrozenInTransactionsAndScripts(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	for range 2 {
		r.Expect(harness.Status("OK"), "MULTI")
		r.Expect(harness.Status("QUEUED"), "TIME")
		r.Expect(harness.Status("QUEUED"), "DEBUG", "SLEEP", "0.01")
		r.Expect(harness.Status("QUEUED"), "TIME")
		res := r.Do("EXEC").([]any)
		if fmt.Sprint(res[0]) != fmt.Sprint(res[2]) {
			t.Errorf("TIME in one transaction: %v then %v", res[0], res[2])
		}
		r.Do("DEBUG", "SLEEP", "0.002")
		if next := r.Do("TIME"); fmt.Sprint(next) == fmt.Sprint(res[0]) {
			t.Errorf("TIME after the transaction still %v", next)
		}
	}
	res := r.Do("EVAL", `local a = redis.call('time')
		local spin = 0
		repeat spin = spin + 1 until spin > 200000
		local b = redis.call('time')
		return {a[1], a[2], b[1], b[2]}`, "0").([]any)
	if fmt.Sprint(res[:2]) != fmt.Sprint(res[2:]) {
		t.Errorf("TIME in one script: %v then %v", res[:2], res[2:])
	}
}

func TestShutdown(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Err("ERR syntax error"), "SHUTDOWN", "LATER")
	r.Expect(harness.Err("ERR No shutdown in progress."), "SHUTDOWN", "ABORT")
	r.Expect(harness.Err("ERR syntax error"), "SHUTDOWN", "NOSAVE", "ABORT")
	r.Expect(harness.Err("ERR syntax error"), "SHUTDOWN", "SAVE", "NOSAVE")
	other := s.Raw(t)
	other.Expect(harness.Status("PONG"), "PING")
	r.Send(harness.Req("SHUTDOWN", "NOSAVE"))
	if !r.Closed() {
		t.Fatal("SHUTDOWN did not close the connection")
	}
	if !other.Closed() {
		t.Fatal("SHUTDOWN did not close other clients")
	}
	select {
	case <-s.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("server not shutting down")
	}
	if c, err := net.Dial("tcp", s.Addr); err == nil {
		c.Close()
		t.Fatal("still accepting after SHUTDOWN")
	}
}

// ROLE answers as a primary with no replicas, the shape clients that check
// the role before writing (Sentinel-aware ones) parse, in both protocols.
func TestRole(t *testing.T) {
	s := harness.Start(t)
	for _, proto := range []string{"2", "3"} {
		r := s.Raw(t)
		r.Do("HELLO", proto)
		r.Expect([]any{"master", int64(0), []any{}}, "ROLE")
		r.Expect(harness.Err("ERR wrong number of arguments for 'role' command"), "ROLE", "x")
	}
}

// TestDifferentialCommandInfoFlags: for every command both servers have,
// COMMAND INFO's arity, flags, legacy key triple and ACL categories match
// Redis 8.0.2's, as cluster clients and redis-cli read them (movablekeys
// sends a cluster client to COMMAND GETKEYS; blocking, to a longer timeout).
func TestDifferentialCommandInfoFlags(t *testing.T) {
	redis := harness.StartRedis(t)
	hot := harness.Start(t)
	table := func(r *harness.Conn) map[string][]any {
		m := map[string][]any{}
		for _, e := range r.Do("COMMAND").([]any) {
			a := e.([]any)
			m[a[0].(string)] = a
		}
		return m
	}
	want, got := table(redis.Raw(t)), table(hot.Raw(t))
	asSet := func(v any) map[any]bool {
		m := map[any]bool{}
		for _, x := range v.([]any) {
			m[x] = true
		}
		return m
	}
	compared := 0
	for name, w := range want {
		g, ok := got[name]
		if !ok || strings.HasPrefix(name, "v") && name != "type" { // vector sets: a module in Redis
			continue
		}
		compared++
		for i, field := range []string{"", "arity", "flags", "first", "last", "step", "acl"} {
			if i == 0 {
				continue
			}
			a, b := g[i], w[i]
			if i == 2 || i == 6 {
				a, b = asSet(a), asSet(b)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s %s: hotkv %v, redis %v", name, field, g[i], w[i])
			}
		}
	}
	if compared < 200 {
		t.Fatalf("compared only %d commands", compared)
	}
}
