package config

import (
	"bufio"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// hotkvOnly are HotKV's own parameters, which Redis does not have.
var hotkvOnly = []string{"proto-max-inline-len", "proto-max-multibulk-len", "pubsub-output-buffer-limit"}

// defaultDiffers are the parameters whose HotKV default is not Redis's, and why.
var defaultDiffers = map[string]string{
	"bind": "HotKV listens on 127.0.0.1 unless told otherwise; Redis on * -::*",
	"dir":  "Redis shows its working directory as an absolute path; HotKV shows \".\"",
	"save": "HotKV takes Redis's save points only once a data directory is named (docs/persistence.md)",
}

type redisDefault struct {
	name, value string
	hidden      bool
}

// readRedisDefaults reads testdata/redis-8.0.2-defaults.txt, CONFIG GET *
// of a default Redis 8.0.2 plus its hidden parameters.
func readRedisDefaults(t testing.TB) []redisDefault {
	t.Helper()
	f, err := os.Open("testdata/redis-8.0.2-defaults.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []redisDefault
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || l[0] == '#' {
			continue
		}
		f := strings.Split(l, "\t")
		out = append(out, redisDefault{f[0], f[1], len(f) > 2 && f[2] == "hidden"})
	}
	return out
}

// TestRedisDefaults: every Redis 8.0.2 parameter, alias and hidden one is
// known, with Redis's default (but for defaultDiffers); CONFIG GET patterns
// list exactly Redis's visible ones and HotKV's own.
func TestRedisDefaults(t *testing.T) {
	def := Default()
	visible := map[string]bool{}
	for _, p := range Visible() {
		if visible[p.Name] {
			t.Errorf("%s listed twice", p.Name)
		}
		visible[p.Name] = true
	}
	want := map[string]bool{}
	redis := readRedisDefaults(t)
	if len(redis) != 212 {
		t.Fatalf("%d Redis parameters", len(redis))
	}
	for _, r := range redis {
		p := Lookup(r.name)
		if p == nil {
			t.Errorf("%s: unknown", r.name)
			continue
		}
		if got := p.Get(def); got != r.value && defaultDiffers[r.name] == "" {
			t.Errorf("%s: default %q, Redis %q", r.name, got, r.value)
		}
		if visible[r.name] == r.hidden {
			t.Errorf("%s: listed by CONFIG GET patterns: %v, Redis hidden: %v", r.name, visible[r.name], r.hidden)
		}
		want[r.name] = !r.hidden
	}
	for name := range visible {
		if !want[name] && !slices.Contains(hotkvOnly, name) {
			t.Errorf("%s: listed by CONFIG GET patterns, not a Redis parameter", name)
		}
	}
	aliases := 0
	for _, p := range RedisParams() {
		if p.Alias != "" {
			aliases++
		}
	}
	if len(redisParams) != len(RedisParams())+aliases || len(canonical) != len(RedisParams()) {
		t.Errorf("%d parameters, %d names", len(RedisParams()), len(redisParams))
	}
}

// TestRedisParamNames: a parameter config.go's Params has takes over the
// Redis table's entry (which should then be deleted), and every Why is
// written.
func TestRedisParamNames(t *testing.T) {
	for i := range redisSpecs {
		s := &redisSpecs[i]
		if s.why == "" || s.effect == Refused && s.accepts == "" {
			t.Errorf("%s: no why or accepts", s.name)
		}
		if superseded(s) {
			t.Logf("%s: implemented in config.go's Params; its entry in redisparams.go is unused, delete it", s.name)
			if p := Lookup(s.name); p == nil || specOf[p] != nil || s.alias != "" && specOf[Lookup(s.alias)] != nil {
				t.Errorf("%s: the Redis table's entry still answers", s.name)
			}
		}
	}
}

// inRedisTable reports whether the Redis table (not config.go's Params)
// answers for name.
func inRedisTable(name string) bool {
	p := Lookup(name)
	return p != nil && specOf[p] != nil
}

// TestRedisParamValues sets values as a configuration file line would and
// checks what CONFIG GET shows, or the error, as Redis 8.0.2 answers.
func TestRedisParamValues(t *testing.T) {
	const (
		notBool = "argument must be 'yes' or 'no'"
		notInt  = "argument couldn't be parsed into an integer"
		notMem  = "argument must be a memory value"
		notPct  = "argument must be a memory or percent value"
	)
	for _, tc := range []struct {
		line, get, err string
		getName        string // the parameter to read, when not the line's
	}{
		{line: "activerehashing NO", get: "no"},
		{line: "activerehashing zz!", err: notBool},
		{line: "activerehashing", err: "wrong number of arguments"},
		{line: "activerehashing yes no", err: "wrong number of arguments"},
		{line: "active-defrag-cycle-max 99", get: "99"},
		{line: "active-defrag-cycle-max 0", err: "argument must be between 1 and 99 inclusive"},
		{line: "active-defrag-cycle-max +5", err: notInt},
		{line: "active-defrag-cycle-max 05", err: notInt},
		{line: "active-defrag-ignore-bytes 1kb", get: "1024"},
		{line: `active-defrag-ignore-bytes ""`, err: "argument must be between 1 and 9223372036854775807 inclusive"},
		{line: "hll-sparse-max-bytes 99999999999999999999", err: "argument must be between 0 and 9223372036854775807 inclusive"},
		{line: "hll-sparse-max-bytes 9223372036854775808", err: "argument must be between 0 and 9223372036854775807 inclusive"},
		{line: "hll-sparse-max-bytes -1", err: notMem},
		{line: `hll-sparse-max-bytes ""`, get: "0"},
		{line: "hll-sparse-max-bytes 4KB", get: "4096"},
		{line: "hll-sparse-max-bytes 1t", err: notMem},
		{line: "cluster-link-sendbuf-limit 99999999999999999999", get: "18446744073709551615"},
		{line: "cluster-link-sendbuf-limit 18446744073709551615k", get: "18446744073709550616"}, // wraps, as Redis's memtoull
		{line: "maxmemory-clients 0%", get: "0"},
		{line: "maxmemory-clients 0kb", get: "0"},
		{line: "maxmemory-clients 101%", err: "percentage argument must be less or equal to 100"},
		{line: "maxmemory-clients -5%", err: notPct},
		{line: "maxmemory-clients %", err: notPct},
		{line: "maxmemory-clients 10%", err: "HotKV does not support client eviction: maxmemory-clients must be 0"},
		{line: "maxmemory-clients 1mb", err: "HotKV does not support client eviction: maxmemory-clients must be 0"},
		{line: "oom-score-adj RELATIVE", get: "yes"},
		{line: "oom-score-adj Absolute", get: "absolute"},
		{line: "oom-score-adj x", err: "argument(s) must be one of the following: no, yes, relative, absolute"},
		{line: "list-max-ziplist-size -2147483649", err: "argument must be between -2147483648 and 2147483647 inclusive"},
		{line: "list-max-ziplist-size -5", get: "-5", getName: "list-max-listpack-size"},
		{line: "lua-time-limit 100", get: "100", getName: "busy-reply-threshold"},
		{line: "slave-priority 7", get: "7", getName: "replica-priority"},
		{line: "server_cpulist 0-3", get: "0-3", getName: "server-cpulist"},
		{line: "socket-mark-id 4294967296", err: "argument must be between 0 and 4294967295 inclusive"},
		{line: "socket-mark-id 5", err: "HotKV does not support socket marks: socket-mark-id must be 0"},
		{line: "socket-mark-id 0", get: "0"},
		{line: "proc-title-template abc", get: "abc"},
		{line: "proc-title-template {{x", get: "{{x"},
		{line: "proc-title-template '{title} {port}'", get: "{title} {port}"},
		{line: "proc-title-template {title}", err: "template format is invalid or contains unknown variables"},
		{line: `proc-title-template ""`, err: "template format is invalid or contains unknown variables"},
		{line: "proc-title-template {nope}", err: "template format is invalid or contains unknown variables"},
		{line: "proc-title-template 'a {'", err: "template format is invalid or contains unknown variables"},
		{line: "proc-title-template 'a {port'", err: "template format is invalid or contains unknown variables"},
		{line: "cluster-announce-hostname ab.c-d", get: "ab.c-d"},
		{line: "cluster-announce-hostname a_b", err: "Hostnames may only contain alphanumeric characters, hyphens or dots"},
		{line: "cluster-announce-human-nodename 'a b'", get: "a b"},
		{line: "cluster-announce-human-nodename zz!", err: "Announced human node name contained invalid character"},
		{line: "locale-collate C", get: "C"},
		{line: `locale-collate ""`, get: ""},
		{line: "locale-collate en_US.UTF-8", err: `HotKV does not support collation locales (it compares bytes, as the C locale): locale-collate must be "", C or POSIX`},
		{line: "replicaof no one", get: ""},
		{line: "slaveof NO ONE", get: "", getName: "replicaof"},
		{line: "replicaof 'no one'", get: ""},
		{line: "replicaof 127.0.0.1", err: "wrong number of arguments"},
		{line: "replicaof 127.0.0.1 6379 1", err: "wrong number of arguments"},
		{line: "replicaof 127.0.0.1 99999", err: "Invalid master port"},
		{line: "replicaof 127.0.0.1 6379x", err: "Invalid master port"},
		{line: "replicaof 127.0.0.1 6379", get: "127.0.0.1 6379"},
		{line: "slaveof 127.0.0.1 6379", get: "127.0.0.1 6379", getName: "replicaof"},
		{line: "min-slaves-to-write 1", get: "1"},
		{line: "min-replicas-to-write 0", get: "0"},
		{line: "oom-score-adj-values 1 2", err: "wrong number of arguments"},
		{line: "oom-score-adj-values 1 2 x", err: "Invalid oom-score-adj-values, elements must be between -2000 and 2000."},
		{line: "oom-score-adj-values -2001 0 0", err: "Invalid oom-score-adj-values, elements must be between -2000 and 2000."},
		{line: "oom-score-adj-values 100 50 3", get: "100 50 3"},
		{line: `oom-score-adj-values +1 007 " 5"`, get: "1 7 5"},
		{line: `oom-score-adj-values "" 0 0`, get: "0 0 0"},
		{line: "oom-score-adj-values '1 2 3'", get: "1 2 3"},
		{line: "client-output-buffer-limit normal 1 2 3", get: "normal 1 2 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
		{line: "client-output-buffer-limit replica 1mb 2kb 3", get: "normal 0 0 0 slave 1048576 2048 3 pubsub 33554432 8388608 60"},
		{line: "client-output-buffer-limit 'pubsub 64mb 16mb 90'", get: "normal 0 0 0 slave 268435456 67108864 60 pubsub 67108864 16777216 90"},
		{line: "client-output-buffer-limit pubsub 64mb 16mb 90", get: "67108864", getName: "pubsub-output-buffer-limit"},
		{line: "client-output-buffer-limit pubsub 0 0 0", get: "9223372036854775807", getName: "pubsub-output-buffer-limit"},
		{line: "client-output-buffer-limit PubSub 0 0 0", get: "normal 0 0 0 slave 268435456 67108864 60 pubsub 0 0 0"},
		{line: "client-output-buffer-limit pubsub 100 0 0", err: "HotKV does not support a pubsub hard limit under 1kb (pubsub-output-buffer-limit's minimum): client-output-buffer-limit must be 0 or at least 1kb for pubsub"},
		{line: "client-output-buffer-limit master 1 2 3", err: "Invalid client class specified in buffer limit configuration."},
		{line: "client-output-buffer-limit pubsub 1 2 -3", err: "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
		{line: "client-output-buffer-limit pubsub x 2 3", err: "Error in hard, soft or soft_seconds setting in buffer limit configuration."},
		{line: "client-output-buffer-limit normal 1 2", err: "Wrong number of arguments in buffer limit configuration."},
		{line: "client-output-buffer-limit normal 1 2 3 pubsub 1", err: "Wrong number of arguments in buffer limit configuration."},
		{line: "tls-port 0", get: "0"},
		{line: "tls-port 6380", get: "6380"},
		{line: "tls-port 65536", err: "argument must be between 0 and 65535 inclusive"},
		{line: "tls-replication yes", err: "HotKV does not support TLS for replication: tls-replication must be no"},
		{line: "tls-cluster YES", err: "HotKV does not support TLS on the cluster bus: tls-cluster must be no"},
		{line: "tls-cluster x", err: notBool},
		{line: "cluster-enabled yes", err: "HotKV does not support cluster mode: cluster-enabled must be no"},
		{line: "cluster-enabled no", get: "no"},
		{line: "syslog-enabled yes", err: "HotKV does not support logging to syslog: syslog-enabled must be no"},
		{line: "shutdown-on-sigterm nosave", get: "nosave"},
		{line: "shutdown-on-sigterm nosave force now", get: "nosave now force"},
		{line: "shutdown-on-sigterm 'force NOW'", get: "now force"},
		{line: "shutdown-on-sigterm now default", get: "now"},
		{line: "shutdown-on-sigterm save nosave", err: "shutdown options SAVE and NOSAVE can't be used simultaneously"},
		{line: "shutdown-on-sigterm now x", err: "argument(s) must be one of the following: default, save, nosave, now, force"},
		{line: "shutdown-on-sigint DEFAULT", get: "default"},
		{line: "shutdown-on-sigint x", err: "argument(s) must be one of the following: default, save, nosave, now, force"},
		{line: "bind-source-addr 10.0.0.1", err: "HotKV does not support choosing the source address of outgoing connections: bind-source-addr must be empty"},
		{line: "tls-cert-file /x", get: "/x"},
		{line: "masterauth 'a b'", get: "a b"},
		{line: "syslog-facility LOCAL3", get: "local3"},
		{line: "io-threads 129", err: "argument must be between 1 and 128 inclusive"},
		{line: "io-threads 8", get: "8"},
		// deprecated directives: read and ignored, as in Redis
		{line: "list-max-ziplist-entries 5"},
		{line: "lua-replicate-commands yes"},
		{line: "list-max-ziplist-value 1 2", err: "Bad directive or wrong number of arguments"},
	} {
		first := strings.Fields(tc.line)
		if Lookup(first[0]) != nil && !inRedisTable(first[0]) {
			t.Logf("%s: config.go's now, not checked here", tc.line)
			continue
		}
		c := Default()
		err := Parse(c, tc.line)
		var fe *FileError
		switch {
		case tc.err != "":
			if !errors.As(err, &fe) || fe.Msg != tc.err {
				t.Errorf("%s: got %v, want %q", tc.line, err, tc.err)
			}
			continue
		case err != nil:
			t.Errorf("%s: %v", tc.line, err)
			continue
		case isDeprecated(first[0], first[1:]):
			if !reflect.DeepEqual(c, Default()) {
				t.Errorf("%s changed the settings", tc.line)
			}
			continue
		}
		name := tc.getName
		if name == "" {
			name = first[0]
		}
		if got := Lookup(name).Get(c); got != tc.get {
			t.Errorf("%s: %s = %q, want %q", tc.line, name, got, tc.get)
		}
		if back := Default(); Parse(back, c.Text()) != nil || !reflect.DeepEqual(back, c) {
			t.Errorf("%s: Text does not read back", tc.line)
		}
	}
}

// TestRedisAliases: an alias and its parameter share the value; CONFIG
// REWRITE writes an alias's line under the parameter's name, as Redis.
func TestRedisAliases(t *testing.T) {
	for _, s := range redisSpecs {
		if s.alias == "" || s.kind == kMulti || s.effect == Refused || !inRedisTable(s.name) {
			continue
		}
		p, a := Lookup(s.name), Lookup(strings.ToUpper(s.alias))
		if a == nil || a == p || a.Name != s.alias || a.Immutable != p.Immutable {
			t.Fatalf("%s: alias %s", s.name, s.alias)
		}
		c := Default()
		v := map[kind]string{kBool: "no", kInt: "7", kMem: "7", kString: "x"}[s.kind]
		if s.def == v {
			v = "yes"
		}
		if err := a.Set(c, []string{v}); err != nil {
			t.Fatalf("%s %s: %v", s.alias, v, err)
		}
		if p.Get(c) != v || a.Get(c) != v {
			t.Errorf("%s = %q, %s = %q, want %q", s.name, p.Get(c), s.alias, a.Get(c), v)
		}
		text := Rewrite("# x\n"+s.alias+" "+v+"\n", c, nil)
		if want := "# x\n" + s.name + " "; !strings.HasPrefix(text, want) {
			t.Errorf("rewrite of %s:\n%s", s.alias, text)
		}
	}
}

// TestRedisRewrite: the Redis parameters are rewritten as Redis 8.0.2
// rewrites them (the same edits on a real one, see
// tests/admin/configredis_test.go): alias lines under the parameter's name,
// deprecated directives commented out, NULL strings' lines removed, one
// line per client class.
func TestRedisRewrite(t *testing.T) {
	old := strings.Join([]string{
		"slave-priority 50", "hash-max-ziplist-entries 100", "slaveof no one", "client-output-buffer-limit normal 0 0 0",
		"lua-time-limit 5000", "list-max-ziplist-entries 5", "lua-replicate-commands yes", "replica-read-only yes",
		"syslog-ident redis", `masterauth ""`, "io-threads 1", "server_cpulist 0-3", "replica-announce-ip x", "ignore-warnings x",
	}, "\n")
	c := Default()
	if err := Parse(c, old); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"replica-priority 60", "lua-time-limit 200", "activerehashing no", "client-output-buffer-limit pubsub 64mb 16mb 90",
		"oom-score-adj-values 1 2 3", "locale-collate C", "proc-title-template x", "list-max-listpack-size -3",
		"masteruser 'a b'", "hll-sparse-max-bytes 4kb", "stream-node-max-bytes 3000", `replica-announce-ip ""`, `ignore-warnings ""`,
	} {
		if err := Parse(c, line); err != nil {
			t.Fatal(err)
		}
	}
	got := Rewrite(old, c, nil)
	want := `replica-priority 60
hash-max-listpack-entries 100

client-output-buffer-limit normal 0 0 0
busy-reply-threshold 200
# ??? list-max-ziplist-entries 5
# ??? lua-replicate-commands yes
replica-read-only yes
syslog-ident "redis"

io-threads 1
server-cpulist "0-3"

ignore-warnings ""
` + Signature + `
activerehashing no
client-output-buffer-limit pubsub 64mb 16mb 90
dir "."
hll-sparse-max-bytes 4kb
latency-tracking-info-percentiles 50 99 99.9
list-max-listpack-size -3
locale-collate "C"
masteruser "a b"
oom-score-adj-values 1 2 3
proc-title-template "x"
pubsub-output-buffer-limit 64mb
save ""
stream-node-max-bytes 3000
`
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	back := Default()
	if err := Parse(back, got); err != nil || !reflect.DeepEqual(back, c) {
		t.Fatalf("the rewritten file does not read back: %v", err)
	}
}

// TestRedisSensitive: the parameters whose CONFIG SET value SLOWLOG and
// MONITOR redact, as Redis's SENSITIVE_CONFIG.
func TestRedisSensitive(t *testing.T) {
	var got []string
	for _, p := range Visible() {
		if Sensitive(strings.ToUpper(p.Name)) {
			got = append(got, p.Name)
		}
	}
	want := []string{"masterauth", "masteruser", "requirepass", "tls-client-key-file-pass", "tls-key-file-pass"}
	if !slices.Equal(got, want) {
		t.Fatalf("sensitive: %v, want %v", got, want)
	}
}

// TestRedisStockConf: Redis 8.0.2's stock redis.conf (Debian's) parses:
// its directives from testdata, and the whole file (comments and all) when
// HOTKV_PEERS_DIR's Redis is installed; unchanged, its CONFIG REWRITE reads
// back the same.
func TestRedisStockConf(t *testing.T) {
	files := []string{"testdata/redis-8.0.2-debian-stock.conf"}
	dir := os.Getenv("HOTKV_PEERS_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".hotkv-peers")
	}
	if full := filepath.Join(dir, "root", "etc", "redis", "redis.conf"); fileExists(full) {
		files = append(files, full)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		c := Default()
		if err := Parse(c, text); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		cobl := Lookup("client-output-buffer-limit")
		if c.Port != 6379 || c.Dir != "/var/lib/redis" || c.PubSubOutputLimit != 32<<20 || cobl.Get(c) != cobl.Get(Default()) {
			t.Errorf("%s: read %+v", file, c)
		}
		back := Default()
		if err := Parse(back, Rewrite(text, c, nil)); err != nil || !reflect.DeepEqual(back, c) {
			t.Errorf("%s: rewritten, does not read back: %v", file, err)
		}
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestDocsListRedisParams: docs/configuration.md names every Redis
// parameter and alias of the table.
func TestDocsListRedisParams(t *testing.T) {
	b, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, p := range RedisParams() {
		for _, n := range []string{p.Name, p.Alias} {
			if n != "" && !strings.Contains(doc, "`"+n+"`") {
				t.Errorf("docs/configuration.md does not name `%s`", n)
			}
		}
	}
}

func TestMemtoull(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"", 0, true}, {"0", 0, true}, {"007", 7, true}, {"5b", 5, true}, {"1k", 1000, true}, {"1KB", 1024, true},
		{"2m", 2e6, true}, {"2mb", 2 << 20, true}, {"3g", 3e9, true}, {"3Gb", 3 << 30, true}, {"kb", 0, true},
		{"18446744073709551615", math.MaxUint64, true}, {"99999999999999999999", math.MaxUint64, true},
		{"18446744073709551615k", 18446744073709550616, true}, {"5\x00x", 5, true},
		{"-1", 0, false}, {"+1", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"1.5", 0, false}, {"1t", 0, false},
		{strings.Repeat("1", 128), 0, false},
	} {
		got, ok := Memtoull(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("Memtoull(%q) = %d, %v", tc.in, got, ok)
		}
	}
}

func TestStrtoll(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		end  bool
	}{
		{"", 0, true}, {"0", 0, true}, {" \t+12", 12, true}, {"-007", -7, true}, {"12x", 12, false}, {"x", 0, false},
		{" ", 0, false}, {"+", 0, false}, {"99999999999999999999", math.MaxInt64, true},
		{"-99999999999999999999", math.MinInt64, true}, {"-9223372036854775808", math.MinInt64, true}, {"3\x00x", 3, true},
	} {
		got, end := strtoll(tc.in)
		if end != tc.end || got != tc.want {
			t.Errorf("strtoll(%q) = %d, %v", tc.in, got, end)
		}
	}
}

// FuzzRedisParams sets a Redis parameter (or alias) to arbitrary words, as
// CONFIG SET would: no panic; what is accepted renders (Text) and rewrites
// (Rewrite) to text that reads back to the same settings.
func FuzzRedisParams(f *testing.F) {
	for i, v := range []string{"yes", "0", "1kb", "10%", "no one", "pubsub 1mb 0 0", "1 2 3", "{title} x", "127.0.0.1 6379", "\x00", "-1"} {
		f.Add(uint16(i*37), v)
	}
	f.Fuzz(func(t *testing.T, i uint16, v string) {
		p := redisParams[int(i)%len(redisParams)]
		c := Default()
		args := []string{v}
		if p.Multi {
			args = strings.Fields(v) // as CONFIG SET splits it
		}
		if err := p.Set(c, args); err != nil {
			return
		}
		back := Default()
		if err := Parse(back, c.Text()); err != nil || !reflect.DeepEqual(back, c) {
			t.Fatalf("%s %q: Text does not read back: %v", p.Name, v, err)
		}
		back = Default()
		if err := Parse(back, Rewrite("", c, nil)); err != nil || !reflect.DeepEqual(back, c) {
			t.Fatalf("%s %q: Rewrite does not read back: %v\n%s", p.Name, v, err, Rewrite("", c, nil))
		}
	})
}

// TestOutputLimitFields: client-output-buffer-limit sets the limits the
// server reads, and Default's agree with Redis's default line.
func TestOutputLimitFields(t *testing.T) {
	def := Default()
	fromLine := Default()
	if err := Parse(fromLine, "client-output-buffer-limit "+redisByName["client-output-buffer-limit"].Get(def)); err != nil {
		t.Fatal(err)
	}
	if fromLine.PubSubOutputLimit != def.PubSubOutputLimit || fromLine.PubSubOutputSoft != def.PubSubOutputSoft ||
		fromLine.NormalOutputHard != def.NormalOutputHard || fromLine.NormalOutputSoft != def.NormalOutputSoft {
		t.Fatalf("Default's limits differ from its own line's: %+v", fromLine)
	}
	c := Default()
	if err := Parse(c, "client-output-buffer-limit normal 1mb 2kb 3 pubsub 0 5 7"); err != nil {
		t.Fatal(err)
	}
	if c.NormalOutputHard != 1<<20 || c.NormalOutputSoft != (SoftLimit{2048, 3}) ||
		c.PubSubOutputLimit != math.MaxInt64 || c.PubSubOutputSoft != (SoftLimit{5, 7}) {
		t.Fatalf("limits: normal %d %+v, pubsub %d %+v", c.NormalOutputHard, c.NormalOutputSoft, c.PubSubOutputLimit, c.PubSubOutputSoft)
	}
	if err := Parse(c, "client-output-buffer-limit normal 18446744073709551615 0 0"); err != nil || c.NormalOutputHard != math.MaxInt64 {
		t.Fatalf("hard limit past int64: %d, %v", c.NormalOutputHard, err)
	}
}
