package commands

import (
	bin "encoding/binary"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/rdb"
	"github.com/hotkv/hotkv/tests/internal/harness"
)

// DUMP and RESTORE against Redis 8.0.2: the same keys are built in both
// servers, each server's payload is restored into both, and every copy
// must read back as its source.

// dumpKey is a key the fill script builds.
type dumpKey struct{ name, typ string }

// dumpFill returns commands building random values of every type and
// encoding (small and large forms, integers, long and binary strings).
func dumpFill(r *rand.Rand) ([][]string, []dumpKey) {
	var script [][]string
	var keys []dumpKey
	add := func(name, typ string, cmds ...[]string) {
		script = append(script, cmds...)
		keys = append(keys, dumpKey{name, typ})
	}
	str := func() string {
		switch r.IntN(6) {
		case 0:
			return strconv.FormatInt(r.Int64()>>r.IntN(64)-r.Int64N(1000), 10)
		case 1:
			return strconv.Itoa(r.IntN(20) - 5)
		case 2:
			b := make([]byte, r.IntN(80))
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			return string(b)
		case 3:
			return strings.Repeat(string(rune('a'+r.IntN(26))), 20+r.IntN(300)) // compressible
		}
		return fmt.Sprintf("v%d", r.IntN(100000))
	}
	for i := range 12 {
		add(fmt.Sprintf("s%d", i), "string", []string{"SET", fmt.Sprintf("s%d", i), str()})
	}
	add("sbig", "string", []string{"SET", "sbig", strings.Repeat("0123456789", 2000)})
	add("sempty", "string", []string{"SET", "sempty", ""})
	add("sneg", "string", []string{"SET", "sneg", "-9223372036854775808"})
	pf := []string{"PFADD", "hll"}
	for range 5 {
		pf = append(pf, str())
	}
	add("hll", "string", pf)
	pfd := []string{"PFADD", "hlld"}
	for i := range 3000 {
		pfd = append(pfd, strconv.Itoa(i))
	}
	add("hlld", "string", pfd)

	for i, n := range []int{1, 5, 100, 700, 3000} {
		k := fmt.Sprintf("l%d", i)
		cmd := []string{"RPUSH", k}
		for range n {
			cmd = append(cmd, str())
		}
		add(k, "list", cmd)
	}
	add("lhuge", "list", []string{"RPUSH", "lhuge", "a", strings.Repeat("x", 20000), "b"})

	for i, spec := range []struct {
		n    int
		ints bool
	}{{3, true}, {600, true}, {5, false}, {200, false}, {2000, false}} {
		k := fmt.Sprintf("set%d", i)
		cmd := []string{"SADD", k}
		for j := range spec.n {
			if spec.ints {
				cmd = append(cmd, strconv.FormatInt(r.Int64N(1<<40)-1<<39, 10))
			} else {
				cmd = append(cmd, fmt.Sprintf("m%d-%s", j, str()))
			}
		}
		add(k, "set", cmd)
	}
	add("setlong", "set", []string{"SADD", "setlong", "a", strings.Repeat("y", 100)})
	add("setmixed", "set", []string{"SADD", "setmixed", "x", "1", "2"}, []string{"SREM", "setmixed", "x"})

	scores := []string{"0", "-0", "1.5", "-2", "inf", "-inf", "3e100", "0.1", "123456789012", "1e-300"}
	for i, n := range []int{1, 10, 120, 500} {
		k := fmt.Sprintf("z%d", i)
		cmd := []string{"ZADD", k}
		for j := range n {
			sc := scores[r.IntN(len(scores))]
			if r.IntN(2) == 0 {
				sc = strconv.FormatFloat(r.NormFloat64()*1000, 'g', -1, 64)
			}
			cmd = append(cmd, sc, fmt.Sprintf("m%d", j))
		}
		add(k, "zset", cmd)
	}
	add("zlong", "zset", []string{"ZADD", "zlong", "1", strings.Repeat("q", 70), "2", "b"})

	for i, n := range []int{1, 20, 100, 700} {
		k := fmt.Sprintf("h%d", i)
		cmd := []string{"HSET", k}
		for j := range n {
			cmd = append(cmd, fmt.Sprintf("f%d", j), str())
		}
		add(k, "hash", cmd)
	}
	add("hlongval", "hash", []string{"HSET", "hlongval", "f", strings.Repeat("v", 100)})
	for i, n := range []int{3, 600} {
		k := fmt.Sprintf("hx%d", i)
		cmd := []string{"HSET", k}
		for j := range n {
			cmd = append(cmd, fmt.Sprintf("f%d", j), str())
		}
		add(k, "hash", cmd,
			[]string{"HPEXPIREAT", k, "4102444800000", "FIELDS", "2", "f0", "f1"},
			[]string{"HPEXPIREAT", k, "4102444900123", "FIELDS", "1", "f2"})
	}
	add("hxp", "hash", []string{"HSET", "hxp", "a", "1", "b", "2"},
		[]string{"HPEXPIREAT", "hxp", "4102444800000", "FIELDS", "1", "a"}, []string{"HPERSIST", "hxp", "FIELDS", "1", "a"})

	st := [][]string{}
	for i := 1; i <= 260; i++ {
		if i%50 == 0 {
			st = append(st, []string{"XADD", "st", fmt.Sprintf("%d-%d", i, 1), "other", str()})
			continue
		}
		st = append(st, []string{"XADD", "st", fmt.Sprintf("%d-%d", i/3, i), "a", str(), "b", strconv.Itoa(i)})
	}
	st = append(st, []string{"XDEL", "st", "0-1", "10-30", "33-100"},
		[]string{"XGROUP", "CREATE", "st", "g1", "0"}, []string{"XGROUP", "CREATE", "st", "g2", "$"},
		[]string{"XREADGROUP", "GROUP", "g1", "alice", "COUNT", "5", "STREAMS", "st", ">"},
		[]string{"XREADGROUP", "GROUP", "g1", "bob", "COUNT", "3", "STREAMS", "st", ">"},
		[]string{"XACK", "st", "g1", "0-2"}, []string{"XGROUP", "CREATECONSUMER", "st", "g1", "carol"},
		[]string{"XGROUP", "SETID", "st", "g2", "5-15", "ENTRIESREAD", "7"})
	add("st", "stream", st...)
	add("stempty", "stream", []string{"XGROUP", "CREATE", "stempty", "g", "$", "MKSTREAM"})
	add("stdel", "stream", []string{"XADD", "stdel", "5-5", "f", "v"}, []string{"XDEL", "stdel", "5-5"})
	return script, keys
}

// dumpRead is everything a client can read of a key, time-independent.
func dumpRead(r *harness.Conn, key, typ string) any {
	r.T.Helper()
	out := []any{r.Do("TYPE", key), r.Do("PEXPIRETIME", key)}
	switch typ {
	case "string":
		out = append(out, r.Do("GET", key))
	case "list":
		out = append(out, r.Do("LRANGE", key, "0", "-1"))
	case "set":
		m, _ := r.Do("SMEMBERS", key).([]any)
		out = append(out, harness.SortedStrings(m))
	case "zset":
		out = append(out, r.Do("ZRANGE", key, "0", "-1", "WITHSCORES"))
	case "hash":
		var fields []string
		for _, f := range harness.SortedStrings(toAny(r.Do("HKEYS", key))) {
			fields = append(fields, f, fmt.Sprint(r.Do("HGET", key, f)), fmt.Sprint(r.Do("HPEXPIRETIME", key, "FIELDS", "1", f)))
		}
		out = append(out, fields)
	case "stream":
		out = append(out, r.Do("XRANGE", key, "-", "+"), dropLayout(r.Do("XINFO", "STREAM", key, "FULL")))
	}
	return out
}

func toAny(v any) []any { a, _ := v.([]any); return a }

// dropLayout blanks XINFO STREAM's radix-tree counts, which describe each
// server's own node layout.
func dropLayout(v any) any {
	a, ok := v.([]any)
	if !ok {
		return v
	}
	a = slices.Clone(a)
	for i := range a {
		if s, ok := a[i].(string); ok && (s == "radix-tree-keys" || s == "radix-tree-nodes") && i+1 < len(a) {
			a[i+1] = nil
		}
		a[i] = dropLayout(a[i])
	}
	return a
}

func TestDumpRestoreBothWays(t *testing.T) {
	redis := harness.StartRedis(t)
	hot := harness.Start(t)
	a, b := hot.Raw(t), redis.Raw(t)
	for seed := range uint64(3) {
		a.Do("FLUSHALL")
		b.Do("FLUSHALL")
		script, keys := dumpFill(rand.New(rand.NewPCG(seed, 42)))
		for _, c := range script {
			if got, want := a.Do(c...), b.Do(c...); !reflect.DeepEqual(got, want) {
				t.Fatalf("fill %q: hotkv %#v, redis %#v", c, got, want)
			}
		}
		for _, k := range keys {
			pr, ok := b.Do("DUMP", k.name).(string)
			if !ok {
				t.Fatalf("redis DUMP %s failed", k.name)
			}
			ph, ok := a.Do("DUMP", k.name).(string)
			if !ok {
				t.Fatalf("hotkv DUMP %s: %v", k.name, a.Do("DUMP", k.name))
			}
			for _, srv := range []*harness.Conn{a, b} {
				for prefix, p := range map[string]string{"r:": pr, "h:": ph} {
					if got := srv.Do("RESTORE", prefix+k.name, "0", p); got != harness.Status("OK") {
						t.Fatalf("seed %d RESTORE %s%s on %v: %v", seed, prefix, k.name, srv == a, got)
					}
				}
			}
			src := map[*harness.Conn]any{a: dumpRead(a, k.name, k.typ), b: dumpRead(b, k.name, k.typ)}
			for _, c := range []struct {
				srv, from *harness.Conn
				key       string
			}{
				{a, b, "r:"}, // Redis's payload in HotKV reads as Redis's key
				{b, b, "r:"},
				{a, a, "h:"}, // HotKV's payload in Redis reads as HotKV's key
				{b, a, "h:"},
			} {
				if got := dumpRead(c.srv, c.key+k.name, k.typ); !reflect.DeepEqual(got, src[c.from]) {
					t.Errorf("seed %d %s%s restored in %s:\ngot  %v\nwant %v", seed, c.key, k.name,
						map[bool]string{true: "hotkv", false: "redis"}[c.srv == a], got, src[c.from])
				}
			}
			// The same payload restores to the same encoding in both.
			for _, prefix := range []string{"r:", "h:"} {
				if got, want := a.Do("OBJECT", "ENCODING", prefix+k.name), b.Do("OBJECT", "ENCODING", prefix+k.name); got != want {
					t.Errorf("seed %d OBJECT ENCODING %s%s: hotkv %v, redis %v", seed, prefix, k.name, got, want)
				}
			}
		}
	}
	hot.NoPanics(t)
}

// dumpPayload wraps an RDB value in DUMP's footer.
func dumpPayload(value string, version uint16) string {
	p := bin.LittleEndian.AppendUint16([]byte(value), version)
	return string(bin.LittleEndian.AppendUint64(p, rdb.CRC64(0, p)))
}

func TestDifferentialRestoreErrors(t *testing.T) {
	hello := dumpPayload("\x00\x05hello", rdb.Version)
	badCRC := hello[:len(hello)-1] + "x"
	script := [][]string{
		{"SET", "k", "v"}, {"DUMP", "k"}, {"DUMP", "nokey"},
		{"RESTORE", "k", "0", hello}, {"RESTORE", "k", "-1", hello}, {"RESTORE", "k", "0", badCRC},
		{"RESTORE", "n", "-1", hello}, {"RESTORE", "n", "x", hello}, {"RESTORE", "n", "0", badCRC},
		{"RESTORE", "n", "0", dumpPayload("\x00\x05hello", rdb.Version+1)}, {"RESTORE", "n", "0", "short"},
		{"RESTORE", "n", "0", ""}, {"RESTORE", "n", "0", dumpPayload("\x63abc", rdb.Version)},
		{"RESTORE", "n", "0", dumpPayload("\x00\x09hello", rdb.Version)},
		{"RESTORE", "n", "0", dumpPayload("\x02\x00", rdb.Version)},
		{"RESTORE", "n", "0", dumpPayload("\x02\x02\x01a\x01a", rdb.Version)},
		{"RESTORE", "n", "0", hello, "IDLETIME", "-1"}, {"RESTORE", "n", "0", hello, "IDLETIME", "x"},
		{"RESTORE", "n", "0", hello, "IDLETIME"}, {"RESTORE", "n", "0", hello, "FREQ", "256"},
		{"RESTORE", "n", "0", hello, "FREQ", "-1"}, {"RESTORE", "n", "0", hello, "FREQ", "1", "IDLETIME", "1"},
		{"RESTORE", "n", "0", hello, "IDLETIME", "1", "FREQ", "1"}, {"RESTORE", "n", "0", hello, "BOGUS"},
		{"RESTORE", "n", "0"}, {"RESTORE", "n"},
		{"RESTORE", "n", "0", dumpPayload("\x00\x05hello", 0)}, {"GET", "n"}, {"DUMP", "n"},
		{"RESTORE", "n", "0", hello, "REPLACE"}, {"RESTORE", "n", "0", hello, "replace", "absttl", "idletime", "5"},
		{"OBJECT", "IDLETIME", "n"}, {"RESTORE", "n", "1", hello, "ABSTTL", "REPLACE"}, {"EXISTS", "n"},
		{"RESTORE", "n", "1", hello, "ABSTTL"}, {"EXISTS", "n"},
		{"RESTORE", "n", "100000", hello}, {"TTL", "n"},
		{"RESTORE", "t", "4102444800000", hello, "ABSTTL"}, {"PEXPIRETIME", "t"},
		{"RESTORE", "n", "0", dumpPayload("\x00\x05hello\x00junk", rdb.Version)},
		{"RESTORE-ASKING", "ra", "0", hello}, {"GET", "ra"},
		{"SET", "i", "-70000"}, {"DUMP", "i"}, {"SET", "i", "12345678901"}, {"DUMP", "i"},
		{"RPUSH", "l", "a", "1"}, {"DUMP", "l"}, {"SADD", "si", "3", "1"}, {"DUMP", "si"},
		{"HSET", "hl", "f", "v"}, {"DUMP", "hl"}, {"ZADD", "zl", "1.5", "a", "2", "b"}, {"DUMP", "zl"},
		{"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"},
		{"RESTORE", "f", "0", hello, "FREQ", "100"}, {"OBJECT", "FREQ", "f"},
		{"RESTORE", "f2", "0", hello, "IDLETIME", "100"}, {"OBJECT", "FREQ", "f2"},
		{"CONFIG", "SET", "maxmemory-policy", "noeviction"},
	}
	harness.Differ(t, script)
}

// Streams DUMPed by Redis 5 and 7 (rdb versions 9 and 10, Redis's own test
// suite payloads) restore with the groups' entries-read Redis estimates for
// them: the older format does not keep it.
func TestDifferentialRestoreLegacyStreams(t *testing.T) {
	v5 := "\x0F\x01\x10\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\xC3\x40\x4A\x40\x57\x16\x57\x00\x00\x00\x23\x00\x02\x01\x04\x01\x01\x01\x84\x64\x61\x74\x61\x05\x00\x01\x03\x01\x00\x20\x01\x03\x81\x61\x02\x04\x20\x0A\x00\x01\x40\x0A\x00\x62\x60\x0A\x00\x02\x40\x0A\x00\x63\x60\x0A\x40\x22\x01\x81\x64\x20\x0A\x40\x39\x20\x0A\x00\x65\x60\x0A\x00\x05\x40\x0A\x00\x66\x20\x0A\x00\xFF\x02\x06\x00\x02\x02\x67\x31\x05\x00\x04\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x3E\xF7\x83\x43\x7A\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x3E\xF7\x83\x43\x7A\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x3E\xF7\x83\x43\x7A\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x3E\xF7\x83\x43\x7A\x01\x00\x00\x01\x01\x03\x63\x31\x31\x3E\xF7\x83\x43\x7A\x01\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x02\x67\x32\x00\x00\x00\x00\x09\x00\x3D\x52\xEF\x68\x67\x52\x1D\xFA"
	v7 := "\x13\x01\x10\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x1D\x1D\x00\x00\x00\x0A\x00\x01\x01\x00\x01\x01\x01\x81\x66\x02\x00\x01\x02\x01\x00\x01\x00\x01\x81\x76\x02\x04\x01\xFF\x01\x01\x01\x01\x01\x00\x00\x01\x01\x01\x67\x01\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\xF5\x5A\x71\xC7\x84\x01\x00\x00\x01\x01\x05\x41\x6C\x69\x63\x65\xF5\x5A\x71\xC7\x84\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x0B\x00\xA7\xA9\x14\xA5\x27\xFF\x9B\x9B"
	var script [][]string
	for _, p := range []string{v5, v7} {
		script = append(script, []string{"RESTORE", "x", "0", p, "REPLACE"}, []string{"XINFO", "STREAM", "x", "FULL"},
			[]string{"XINFO", "GROUPS", "x"}, []string{"XADD", "x", "9-0", "f", "v"}, []string{"XINFO", "GROUPS", "x"})
	}
	harness.Differ(t, script)
}

// TestRestoreCorruptPayloads restores every single-byte corruption of real
// payloads (with a valid checksum): HotKV answers OK or "Bad data format",
// never crashes, and what it accepts dumps again.
func TestRestoreCorruptPayloads(t *testing.T) {
	hot := harness.Start(t)
	a := hot.Raw(t)
	script, keys := dumpFill(rand.New(rand.NewPCG(9, 9)))
	for _, c := range script {
		a.Do(c...)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, k := range keys {
		p := a.Do("DUMP", k.name).(string)
		value := []byte(p[:len(p)-10])
		for range 40 {
			c := slices.Clone(value)
			c[r.IntN(len(c))] ^= byte(1 + r.IntN(255))
			switch got := a.Do("RESTORE", "x", "0", dumpPayload(string(c), rdb.Version), "REPLACE"); got {
			case harness.Status("OK"):
				if _, ok := a.Do("DUMP", "x").(string); !ok && a.Do("EXISTS", "x") == int64(1) {
					t.Fatalf("accepted corruption of %s does not dump", k.name)
				}
			case harness.Err("ERR Bad data format"):
			default:
				t.Fatalf("corrupt %s: %v", k.name, got)
			}
		}
	}
	hot.NoPanics(t)
}

func TestRestoreNotifiesAndTouches(t *testing.T) {
	hot := harness.Start(t)
	a, sub, w := hot.Raw(t), hot.Raw(t), hot.Raw(t)
	hello := dumpPayload("\x00\x05hello", rdb.Version)
	a.Do("CONFIG", "SET", "notify-keyspace-events", "KEA")
	sub.Do("SUBSCRIBE", "__keyevent@0__:restore")
	w.Do("SET", "k", "old")
	w.Do("WATCH", "k")
	w.Do("MULTI")
	w.Do("GET", "k")
	if got := a.Do("RESTORE", "k", "0", hello, "REPLACE"); got != harness.Status("OK") {
		t.Fatal(got)
	}
	if got := w.Do("EXEC"); got != nil {
		t.Fatalf("EXEC after RESTORE of a watched key: %v", got)
	}
	if got := sub.Read(); !reflect.DeepEqual(got, []any{"message", "__keyevent@0__:restore", "k"}) {
		t.Fatalf("event %v", got)
	}
	// A refused RESTORE changes nothing: the transaction goes through.
	w.Do("WATCH", "k")
	w.Do("MULTI")
	w.Do("GET", "k")
	a.Do("RESTORE", "k", "0", hello)
	if got := w.Do("EXEC"); !reflect.DeepEqual(got, []any{"hello"}) {
		t.Fatalf("EXEC after BUSYKEY: %v", got)
	}
}

func TestRestoreLogged(t *testing.T) {
	dir := t.TempDir()
	hello := dumpPayload("\x00\x05hello", rdb.Version)
	args := []string{"--dir", dir, "--appendonly", "yes", "--appendfsync", "always"}
	hot := harness.Start(t, args...)
	a := hot.Raw(t)
	a.Do("RESTORE", "k", "3600000", hello)
	want := a.Do("PEXPIRETIME", "k")
	a.Do("RESTORE", "gone", "1", hello, "ABSTTL")
	a.Send(harness.Encode("SHUTDOWN", "NOSAVE"))
	if !a.Closed() {
		t.Fatal("SHUTDOWN did not close the connection")
	}
	hot2 := harness.Start(t, args...)
	b := hot2.Raw(t)
	if got := b.Do("GET", "k"); got != "hello" {
		t.Fatalf("after restart GET k = %v", got)
	}
	if got := b.Do("PEXPIRETIME", "k"); got != want {
		t.Fatalf("expire time %v, want %v", got, want)
	}
	if got := b.Do("EXISTS", "gone"); got != int64(0) {
		t.Fatalf("EXISTS gone = %v", got)
	}
}

// lpOf is a listpack of strings shorter than 64 bytes.
func lpOf(vals ...string) string {
	var body []byte
	for _, v := range vals {
		body = append(body, 0x80|byte(len(v)))
		body = append(body, v...)
		body = append(body, byte(1+len(v)))
	}
	b := bin.LittleEndian.AppendUint32(nil, uint32(6+len(body)+1))
	b = bin.LittleEndian.AppendUint16(b, uint16(len(vals)))
	return string(append(append(b, body...), 0xff))
}

// TestRestoreListEncodingAsRedis: a list restored from quicklist nodes is a
// listpack only when it was one packed node within 8 KB, as in Redis, and
// a listpack-encoded list dumps as one node, so Redis restores a listpack.
func TestRestoreListEncodingAsRedis(t *testing.T) {
	redis := harness.StartRedis(t)
	hot := harness.Start(t)
	a, b := hot.Raw(t), redis.Raw(t)
	crafted := map[string]string{
		"two-nodes":   "\x12\x02\x02\x0a" + lpOf("a") + "\x02\x0a" + lpOf("b"),
		"plain":       "\x12\x01\x01\x03abc",
		"plain-empty": "\x12\x01\x01\x00",
		"empty+one":   "\x12\x02\x02\x07" + lpOf() + "\x02\x0a" + lpOf("b"),
	}
	for name, v := range crafted {
		p := dumpPayload(v, rdb.Version)
		for _, cmd := range [][]string{{"RESTORE", name, "0", p}, {"OBJECT", "ENCODING", name}, {"LRANGE", name, "0", "-1"}} {
			if got, want := a.Do(cmd...), b.Do(cmd...); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: hotkv %v, redis %v", name, cmd[0], got, want)
			}
		}
	}
	built := map[string][]string{
		"one-big": {strings.Repeat("x", 8180)},                // a listpack of 8194 bytes: restored as a quicklist
		"full":    slices.Repeat([]string{"0123456789"}, 682), // a listpack of 8191 bytes,
	}
	for name, vals := range built {
		for _, srv := range []*harness.Conn{a, b} {
			srv.Do(append([]string{"RPUSH", name}, vals...)...)
		}
		ph, pr := a.Do("DUMP", name).(string), b.Do("DUMP", name).(string)
		for _, srv := range []*harness.Conn{a, b} {
			srv.Do("RESTORE", "h:"+name, "0", ph)
			srv.Do("RESTORE", "r:"+name, "0", pr)
		}
		want := b.Do("OBJECT", "ENCODING", "r:"+name)
		for _, c := range []struct {
			srv *harness.Conn
			key string
		}{{a, "h:"}, {a, "r:"}, {b, "h:"}} {
			if got := c.srv.Do("OBJECT", "ENCODING", c.key+name); got != want {
				t.Errorf("%s%s restored in %s: %v, Redis restores its own payload as %v", c.key, name,
					map[bool]string{true: "hotkv", false: "redis"}[c.srv == a], got, want)
			}
		}
	}
}
