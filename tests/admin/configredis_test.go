package admin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Redis 8.0.2's parameters beyond HotKV's own (internal/config/redisparams.go,
// docs/configuration.md#redis-directives), over a socket and against Redis.

// hiddenRedisParams are Redis 8.0.2's parameters that CONFIG GET patterns
// do not list.
var hiddenRedisParams = []string{"aof-disable-auto-gc", "cluster-ping-interval", "key-load-delay",
	"loading-process-events-interval-bytes", "lua-enable-deprecated-api", "rdb-key-save-delay", "repl-rdb-channel",
	"use-exit-on-panic", "watchdog-period"}

// TestConfigRedisParams: aliases, hidden parameters, immutable and refused
// ones, and redaction, over a socket.
func TestConfigRedisParams(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	all := pairs(t, r.Do("CONFIG", "GET", "*"))
	if len(all) != len(config.Visible()) {
		t.Fatalf("CONFIG GET * has %d settings, Visible %d", len(all), len(config.Visible()))
	}
	for _, n := range []string{"slaveof", "replicaof", "lua-time-limit", "hash-max-ziplist-entries", "server_cpulist", "tls-port"} {
		if _, ok := all[n]; !ok {
			t.Errorf("CONFIG GET * lacks %s", n)
		}
	}
	for _, n := range hiddenRedisParams {
		if _, ok := all[n]; ok {
			t.Errorf("CONFIG GET * lists hidden %s", n)
		}
		if got := pairs(t, r.Do("CONFIG", "GET", n)); len(got) != 1 {
			t.Errorf("CONFIG GET %s: %v", n, got)
		}
	}
	// a pattern matches names and aliases, as in Redis
	if got := pairs(t, r.Do("CONFIG", "GET", "*priority*")); len(got) != 2 || got["slave-priority"] != "100" || got["replica-priority"] != "100" {
		t.Errorf("*priority*: %v", got)
	}
	fail := func(arg, why string) harness.Err {
		return harness.Err("ERR CONFIG SET failed (possibly related to argument '" + arg + "') - " + why)
	}
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "Slave-Priority", "7", "replica-priority", "8") // not duplicates, as in Redis
	r.Expect([]any{"SLAVE-PRIORITY", "8"}, "CONFIG", "GET", "SLAVE-PRIORITY")
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "lua-time-limit", "100", "hll-sparse-max-bytes", "1kb", "maxmemory-clients", "0%")
	if got := pairs(t, r.Do("CONFIG", "GET", "busy-reply-threshold", "hll-sparse-max-bytes", "maxmemory-clients")); got["busy-reply-threshold"] != "100" || got["hll-sparse-max-bytes"] != "1024" || got["maxmemory-clients"] != "0" {
		t.Errorf("after CONFIG SET: %v", got)
	}
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "hll-sparse-max-bytes", "3000")
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "client-output-buffer-limit", "pubsub 64mb 16mb 90")
	if got := pairs(t, r.Do("CONFIG", "GET", "*output-buffer-limit")); got["pubsub-output-buffer-limit"] != "67108864" ||
		got["client-output-buffer-limit"] != "normal 0 0 0 slave 268435456 67108864 60 pubsub 67108864 16777216 90" {
		t.Errorf("output buffer limits: %v", got)
	}
	for _, tc := range []struct {
		args []string
		want harness.Err
	}{
		{[]string{"replicaof", "no one"}, fail("replicaof", "can't set immutable config")},
		{[]string{"SLAVEOF", "no one"}, fail("SLAVEOF", "can't set immutable config")},
		{[]string{"cluster-enabled", "no"}, fail("cluster-enabled", "can't set immutable config")},
		{[]string{"io-threads", "4"}, fail("io-threads", "can't set immutable config")},
		{[]string{"tls-port", "6380"}, fail("tls-port", "can't set immutable config")},
		{[]string{"tls-replication", "yes"}, fail("tls-replication", "HotKV does not support TLS for replication: tls-replication must be no")},
		{[]string{"maxmemory-clients", "10%"}, fail("maxmemory-clients", "HotKV does not support client eviction: maxmemory-clients must be 0")},
		{[]string{"hz", "20", "cluster-enabled", "yes"}, fail("cluster-enabled", "can't set immutable config")},
		{[]string{"hz", "20", "maxmemory-clients", "1"}, fail("maxmemory-clients", "HotKV does not support client eviction: maxmemory-clients must be 0")},
		{[]string{"active-defrag-cycle-max", "100"}, fail("active-defrag-cycle-max", "argument must be between 1 and 99 inclusive")},
	} {
		if got := r.Do(append([]string{"CONFIG", "SET"}, tc.args...)...); got != tc.want {
			t.Errorf("CONFIG SET %q: got %#v, want %#v", tc.args, got, tc.want)
		}
	}
	r.Expect([]any{"hz", "10"}, "CONFIG", "GET", "hz") // nothing of a refused CONFIG SET applies

	// masterauth and the like are credentials: SLOWLOG redacts them, as Redis
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "slowlog-log-slower-than", "0")
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "masterauth", "s3cret", "tls-key-file-pass", "s3cret2", "masteruser", "u")
	log := fmt.Sprint(r.Do("SLOWLOG", "GET", "1"))
	if strings.Contains(log, "s3cret") || strings.Contains(log, " u]") || strings.Count(log, "(redacted)") != 3 {
		t.Errorf("SLOWLOG: %s", log)
	}
}

// TestConfigRedisFileErrors: a refused directive stops the binary at start
// with Redis's file error naming the line and the directive.
func TestConfigRedisFileErrors(t *testing.T) {
	harness.OutOfProcess(t)
	bin := harness.Binary(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "hotkv.conf")
	os.WriteFile(conf, []byte("port 0\nreplica-read-only yes\ncluster-enabled yes\n"), 0o644)
	out, err := exec.Command(bin, conf).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "*** FATAL CONFIG FILE ERROR (HotKV) ***\nReading the configuration file, at line 3\n>>> 'cluster-enabled yes'\nHotKV does not support cluster mode: cluster-enabled must be no") {
		t.Fatalf("%v: %s", err, out)
	}
	out, err = exec.Command(bin, "--port", "0", "--slaveof", "127.0.0.1", "99999").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `Invalid master port`) {
		t.Fatalf("%v: %s", err, out)
	}
}

// TestConfigStockRedisConf starts HotKV from Redis 8.0.2's stock
// redis.conf (Debian's directives), with the command-line overrides a test
// needs, and checks a few of its settings.
func TestConfigStockRedisConf(t *testing.T) {
	b, err := os.ReadFile("../../internal/config/testdata/redis-8.0.2-debian-stock.conf")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "redis.conf")
	os.WriteFile(conf, b, 0o644)
	s := harness.Start(t, "--config", conf, "--port", "0", "--bind", "127.0.0.1", "--logfile", "", "--dir", dir, "--loglevel", "warning",
		"--daemonize", "no", "--pidfile", "")
	got := pairs(t, s.Raw(t).Do("CONFIG", "GET", "client-output-buffer-limit", "hll-sparse-max-bytes", "lazyfree-lazy-eviction", "appendonly", "save"))
	if got["client-output-buffer-limit"] != "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60" ||
		got["hll-sparse-max-bytes"] != "3000" || got["lazyfree-lazy-eviction"] != "no" || got["appendonly"] != "no" || got["save"] != "3600 1 300 100 60 10000" {
		t.Fatalf("%v", got)
	}
}

// TestDifferentialConfigDefaults compares CONFIG GET of every Redis 8.0.2
// parameter, alias and hidden one on a default HotKV and a default Redis
// (both started as the tests start them).
func TestDifferentialConfigDefaults(t *testing.T) {
	redisSrv := harness.StartRedis(t, "--loglevel", "warning")
	hot := harness.Start(t).Raw(t)
	rr := redisSrv.Raw(t)
	differs := map[string]string{
		"port":                 "each server listens on a port of its own",
		"dir":                  "each server runs in a directory of its own",
		"enable-debug-command": "test servers allow DEBUG from local clients (harness_test.go)",
	}
	want := pairs(t, rr.Do("CONFIG", "GET", "*"))
	for _, n := range hiddenRedisParams {
		for k, v := range pairs(t, rr.Do("CONFIG", "GET", n)) {
			want[k] = v
		}
	}
	if len(want) != 212 {
		t.Fatalf("Redis has %d parameters, not Redis 8.0.2's 212", len(want))
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		got := pairs(t, hot.Do("CONFIG", "GET", n))
		v, ok := got[n]
		switch {
		case !ok:
			t.Errorf("%s: unknown to HotKV", n)
		case v != want[n] && differs[n] == "":
			t.Errorf("%s: HotKV %q, Redis %q", n, v, want[n])
		}
	}
}

// TestDifferentialConfigSet sets every parameter to values of every type
// on HotKV and Redis: the replies, and the values CONFIG GET then shows,
// must be Redis's, but where HotKV refuses a feature it lacks and the
// differences listed.
func TestDifferentialConfigSet(t *testing.T) {
	redisSrv := harness.StartRedis(t, "--loglevel", "warning")
	hot := harness.Start(t, "--dir", t.TempDir(), "--save", "").Raw(t) // appendonly yes writes there
	rr := redisSrv.Raw(t)
	skip := map[string]string{
		"port":               "the servers would move away from the test's connections (TestConfigSetPortAndBind)",
		"tls-port":           "HotKV cannot change its TLS port at run time either",
		"bind":               "the servers would move away from the test's connections (TestConfigSetPortAndBind)",
		"dir":                "immutable in HotKV; Redis refuses it as a protected config",
		"proto-max-bulk-len": "HotKV keeps lengths in 32 bits: its range ends at 4gb-1",
		"locale-collate":     "Redis asks setlocale; HotKV accepts only \"\", C and POSIX (refused otherwise)",
	}
	skipValue := map[[2]string]string{
		{"maxmemory", "99999999999999999999"}: "HotKV's maxmemory stops at 2^63-1 (Redis's: 2^64-1)",
		{"activedefrag", "yes"}:               "this Redis build refuses it (no jemalloc defragmentation); HotKV accepts it without effect",
		{"repl-backlog-size", "1kb"}:          "Redis's CONFIG SET raises it to 16kb (not its file); HotKV, without replication, keeps the value given",
	}
	refused := map[string]bool{}
	for _, p := range config.RedisParams() {
		if p.Effect == config.Refused {
			refused[p.Name], refused[p.Alias] = true, true
		}
	}
	defaults := pairs(t, rr.Do("CONFIG", "GET", "*"))
	for _, n := range hiddenRedisParams {
		for k, v := range pairs(t, rr.Do("CONFIG", "GET", n)) {
			defaults[k] = v
		}
	}
	names := make([]string, 0, len(defaults))
	for n := range defaults {
		names = append(names, n)
	}
	sort.Strings(names)
	values := []string{"zz!", "-1", "0", "9223372036854775807", "-9223372036854775808", "99999999999999999999", "", "1kb", "10%", "yes"}
	for _, n := range names {
		if skip[n] != "" {
			continue
		}
		for _, v := range values {
			if skipValue[[2]string{n, v}] != "" {
				continue
			}
			want, got := rr.Do("CONFIG", "SET", n, v), hot.Do("CONFIG", "SET", n, v)
			if want == harness.Status("OK") && got == harness.Status("OK") {
				if w, g := rr.Do("CONFIG", "GET", n), hot.Do("CONFIG", "GET", n); fmt.Sprint(g) != fmt.Sprint(w) {
					t.Errorf("CONFIG SET %s %q, then CONFIG GET: HotKV %v, Redis %v", n, v, g, w)
				}
			}
			if want == harness.Status("OK") {
				rr.Do("CONFIG", "SET", n, defaults[n])
			}
			if got == harness.Status("OK") {
				hot.Do("CONFIG", "SET", n, defaults[n])
			}
			// HotKV refuses a value that turns on a feature it lacks, which
			// Redis accepts (or, for TLS without certificates, refuses too)
			if e, ok := got.(harness.Err); ok && refused[n] && (want == harness.Status("OK") || strings.Contains(fmt.Sprint(want), "Unable to update TLS configuration")) &&
				strings.HasPrefix(string(e), "ERR CONFIG SET failed (possibly related to argument '"+n+"') - HotKV does not support ") {
				continue
			}
			if got != want {
				t.Errorf("CONFIG SET %s %q: HotKV %#v, Redis %#v", n, v, got, want)
			}
		}
	}
}

// TestDifferentialHLLSparseMaxBytes: hll-sparse-max-bytes decides when a
// HyperLogLog turns dense, byte for byte as in Redis.
func TestDifferentialHLLSparseMaxBytes(t *testing.T) {
	var script [][]string
	for _, limit := range []string{"200", "0", "3000"} {
		script = append(script, []string{"CONFIG", "SET", "hll-sparse-max-bytes", limit}, []string{"DEL", "h"})
		for i := 0; i < 30; i++ {
			cmd := []string{"PFADD", "h"}
			for j := 0; j < 5; j++ {
				cmd = append(cmd, strconv.Itoa(i*101+j*7))
			}
			script = append(script, cmd, []string{"GET", "h"})
		}
	}
	harness.Differ(t, script)
}

// TestDifferentialConfigRewriteRedisParams rewrites Redis 8.0.2's stock
// directives on HotKV and on Redis after the same CONFIG SETs of Redis
// parameters: the files must be the same, but for the lines of
// directives that differ on purpose (dir, port) and the order of the
// appended lines (Redis's varies).
func TestDifferentialConfigRewriteRedisParams(t *testing.T) {
	bin := harness.RedisServerPath()
	if bin == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	b, err := os.ReadFile("../../internal/config/testdata/redis-8.0.2-debian-stock.conf")
	if err != nil {
		t.Fatal(err)
	}
	var body []string
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && slices.Contains([]string{"daemonize", "pidfile", "logfile", "dir", "port", "bind"}, f[0]) {
			continue
		}
		body = append(body, l)
	}
	body = append(body, "slaveof no one", "lua-time-limit 5000", "hash-max-ziplist-value 64", "masterauth x", "list-max-ziplist-entries 5")
	sets := [][2]string{
		{"replica-priority", "60"}, {"lua-time-limit", "200"}, {"activerehashing", "no"}, {"client-output-buffer-limit", "pubsub 64mb 16mb 90 replica 1gb 0 0"},
		{"oom-score-adj-values", "1 2 3"}, {"proc-title-template", "x {title}"}, {"list-max-listpack-size", "-3"}, {"masteruser", "a b"},
		{"hll-sparse-max-bytes", "4kb"}, {"stream-node-max-bytes", "3000"}, {"masterauth", ""}, {"tls-cert-file", "/x"},
		{"repl-backlog-size", "2mb"}, {"sanitize-dump-payload", "clients"}, {"cluster-announce-hostname", "h.example"},
		{"ignore-warnings", ""}, {"zset-max-ziplist-value", "32"}, {"busy-reply-threshold", "300"},
	}
	rewrite := func(addr, conf string) []string {
		b := setAndRewrite(t, addr, conf, sets)
		var kept, appended []string
		after := false
		for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			f := strings.Fields(l)
			switch {
			case l == config.Signature:
				after = true
			// dir, port: each server's own; pubsub-output-buffer-limit:
			// HotKV's own; loglevel, enable-debug-command: start()'s
			case len(f) > 0 && slices.Contains([]string{"dir", "port", "pubsub-output-buffer-limit", "loglevel", "enable-debug-command"}, f[0]):
			case after:
				appended = append(appended, l)
			default:
				kept = append(kept, l)
			}
		}
		slices.Sort(appended)
		return append(kept, append([]string{"--- appended:"}, appended...)...)
	}

	raddr, rconf := startRedisConf(t, bin, func(dir string) string {
		return "bind 127.0.0.1 -::1\ndir " + dir + "\n" + strings.Join(body, "\n")
	})
	want := rewrite(raddr, rconf)

	hdir := t.TempDir()
	hconf := filepath.Join(hdir, "hotkv.conf")
	os.WriteFile(hconf, []byte("port 0\nbind 127.0.0.1 -::1\ndir "+hdir+"\n"+strings.Join(body, "\n")), 0o644)
	got := rewrite(harness.Start(t, "--config", hconf).Addr, hconf)
	if !slices.Equal(got, want) {
		t.Fatalf("hotkv:\n%s\n\nredis:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

const (
	redisDocBegin = "<!-- redis-directives:begin (generated by `go test ./tests/admin -run TestDocsRedisDirectives -update`) -->"
	redisDocEnd   = "<!-- redis-directives:end -->"
)

// redisDirectivesDoc renders the Redis parameters of
// internal/config/redisparams.go for docs/configuration.md, grouped by what
// they do in HotKV and why.
func redisDirectivesDoc() string {
	name := func(p config.RedisParam) string {
		s := "`" + p.Name + "`"
		if p.Alias != "" {
			s += " (alias `" + p.Alias + "`)"
		}
		switch {
		case p.Immutable && p.Hidden:
			s += " (immutable, hidden)"
		case p.Immutable:
			s += " (immutable)"
		case p.Hidden:
			s += " (hidden)"
		}
		return s
	}
	var b strings.Builder
	params := config.RedisParams()
	section := func(e config.Effect, title, intro string) {
		fmt.Fprintf(&b, "\n#### %s\n\n%s\n\n", title, intro)
		if e == config.Refused {
			b.WriteString("| Directive | Accepted | Why |\n|---|---|---|\n")
			for _, p := range params {
				if p.Effect == e {
					fmt.Fprintf(&b, "| %s | `%s` | %s |\n", name(p), strings.ReplaceAll(p.Accepts, ", ", "`, `"), p.Why)
				}
			}
			return
		}
		var whys []string
		names := map[string][]string{}
		for _, p := range params {
			if p.Effect != e {
				continue
			}
			if names[p.Why] == nil {
				whys = append(whys, p.Why)
			}
			names[p.Why] = append(names[p.Why], name(p))
		}
		for _, w := range whys {
			fmt.Fprintf(&b, "- %s: %s.\n", strings.Join(names[w], ", "), w)
		}
	}
	section(config.Honoured, "Honoured", "HotKV does with these what Redis does.")
	section(config.Refused, "Refused when they would turn a missing feature on",
		"Accepted at the values where the feature is off; any other value is an error naming the directive "+
			"(`HotKV does not support cluster mode: cluster-enabled must be no`), at start-up as a configuration file error and from "+
			"CONFIG SET, since ignoring it would leave the server without something it was asked for.")
	section(config.NotHonoured, "Accepted, not honoured yet",
		"Stored and shown as set, but HotKV behaves as at Redis's default (or as said).")
	section(config.NoEffect, "Accepted without effect",
		"Stored and shown as set; nothing in HotKV depends on them, for the reason given.")
	return b.String()
}

// TestDocsRedisDirectives keeps docs/configuration.md's lists of Redis
// directives equal to internal/config/redisparams.go.
func TestDocsRedisDirectives(t *testing.T) {
	b, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i, j := strings.Index(text, redisDocBegin), strings.Index(text, redisDocEnd)
	if i < 0 || j < i {
		t.Fatalf("docs/configuration.md lacks the %q ... %q markers", redisDocBegin, redisDocEnd)
	}
	want := text[:i+len(redisDocBegin)] + "\n" + redisDirectivesDoc() + "\n" + text[j:]
	if want == text {
		return
	}
	if *harness.Update {
		if err := os.WriteFile("../../docs/configuration.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatal("docs/configuration.md's Redis directives are out of date: go test ./tests/admin -run TestDocsRedisDirectives -update")
}

// TestDifferentialConfigFileErrors: the start-up errors for bad values of
// immutable parameters (which CONFIG SET cannot reach) are Redis's.
func TestDifferentialConfigFileErrors(t *testing.T) {
	bin := harness.RedisServerPath()
	if bin == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	for _, kv := range [][2]string{
		{"always-show-logo", "zz!"}, {"set-proc-title", "x"}, {"disable-thp", "2"}, {"rdbchecksum", ""},
		{"lua-enable-deprecated-api", "x"}, {"syslog-facility", "local9"}, {"io-threads", "0"}, {"io-threads", "zz!"},
		{"socket-mark-id", "-1"}, {"socket-mark-id", "4294967296"}, {"tcp-backlog", "1kb"}, {"cluster-port", "70000"},
		{"appendfilename", ""}, {"appenddirname", ""}, {"replicaof", "127.0.0.1 x"}, {"slaveof", "127.0.0.1 99999"},
		{"cluster-enabled", "1"}, {"syslog-enabled", "on"}, {"client-output-buffer-limit", "normal 1 2"},
		{"oom-score-adj-values", "1 2"}, {"hz", "1 2"}, {"maxmemory-clients", "101%"},
	} {
		out, _ := exec.Command(bin, "--port", "0", "--"+kv[0], kv[1]).CombinedOutput()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) < 2 || !strings.Contains(string(out), "FATAL CONFIG FILE ERROR") {
			t.Errorf("--%s %q: Redis started: %s", kv[0], kv[1], out)
			continue
		}
		want := strings.Join(lines[len(lines)-2:], "\n")
		_, err := config.FromArgs([]string{"--" + kv[0], kv[1]})
		if err == nil {
			t.Errorf("--%s %q: HotKV accepted it; Redis: %s", kv[0], kv[1], want)
			continue
		}
		got := strings.Split(strings.TrimSpace(err.Error()), "\n")
		if g := strings.Join(got[max(0, len(got)-2):], "\n"); g != want {
			t.Errorf("--%s %q:\nHotKV %s\nRedis %s", kv[0], kv[1], g, want)
		}
	}
}
