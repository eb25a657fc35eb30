package commands

import (
	"bufio"
	"context"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/tests/internal/harness"
)

// MIGRATE between two HotKV servers, both ways between HotKV and Redis
// 8.0.2, and against stand-in targets that hold their replies back or never
// answer.

// migrateTo is a MIGRATE to the server at addr, then rest (key, db,
// timeout, options).
func migrateTo(addr string, rest ...string) []string {
	host, port, _ := net.SplitHostPort(addr)
	return append([]string{"MIGRATE", host, port}, rest...)
}

// migrateKeysTo is MIGRATE ... KEYS of every key, to database db.
func migrateKeysTo(addr, db string, keys []dumpKey) []string {
	args := migrateTo(addr, "", db, "10000", "KEYS")
	for _, k := range keys {
		args = append(args, k.name)
	}
	return args
}

// fillForMigrate builds dumpFill's keys of every type on each server, and
// gives the first key of each type a TTL.
func fillForMigrate(t *testing.T, seed uint64, srvs ...*harness.Conn) []dumpKey {
	t.Helper()
	script, keys := dumpFill(rand.New(rand.NewPCG(seed, 42)))
	typed := map[string]bool{}
	for _, k := range keys {
		if !typed[k.typ] {
			typed[k.typ] = true
			script = append(script, []string{"PEXPIRE", k.name, "600000"})
		}
	}
	for _, r := range srvs {
		for _, c := range script {
			r.Do(c...) // some XADDs are refused: their IDs go back
		}
	}
	return keys
}

// sameMigrated compares a migrated key's dumpRead with its source's: the
// expiry time may move on by the transfer's time, as the TTL travels
// relative.
func sameMigrated(t *testing.T, key string, got, want any) {
	t.Helper()
	g, w := got.([]any), want.([]any)
	ge, we := g[1].(int64), w[1].(int64)
	if late := ge - we; we < 0 && ge != we || we >= 0 && (late < 0 || late > 5000) {
		t.Errorf("%s: expire time %d, source's %d", key, ge, we)
	}
	if !reflect.DeepEqual(append(g[:1:1], g[2:]...), append(w[:1:1], w[2:]...)) {
		t.Errorf("%s migrated:\ngot  %v\nwant %v", key, g, w)
	}
}

// TestMigrateAllTypes moves keys of every type and encoding, some with a
// TTL, between two HotKV servers: one at a time through go-redis, then the
// rest with one KEYS call.
func TestMigrateAllTypes(t *testing.T) {
	src, dst := harness.Start(t), harness.Start(t)
	a, b := src.Raw(t), dst.Raw(t)
	keys := fillForMigrate(t, 1, a)
	want := map[string]any{}
	for _, k := range keys {
		want[k.name] = dumpRead(a, k.name, k.typ)
	}
	host, port, _ := net.SplitHostPort(dst.Addr)
	c := src.Client(t)
	half := len(keys) / 2
	for _, k := range keys[:half] {
		if err := c.Migrate(context.Background(), host, port, k.name, 0, 10*time.Second).Err(); err != nil {
			t.Fatalf("MIGRATE %s: %v", k.name, err)
		}
	}
	a.Expect(harness.Status("OK"), migrateKeysTo(dst.Addr, "0", keys[half:])...)
	for _, k := range keys {
		a.Expect(int64(0), "EXISTS", k.name)
		sameMigrated(t, k.name, dumpRead(b, k.name, k.typ), want[k.name])
	}
	src.NoPanics(t)
	dst.NoPanics(t)
}

// TestMigrateOptions: NOKEY, AUTH and AUTH2 to a target with a password,
// another database, BUSYKEY and REPLACE, COPY, KEYS with some keys
// missing or refused, and MIGRATE inside MULTI and a script.
func TestMigrateOptions(t *testing.T) {
	src, dst := harness.Start(t), harness.Start(t, "--requirepass", "pw")
	a, b := src.Raw(t), dst.Raw(t)
	b.Expect(harness.Status("OK"), "AUTH", "pw")
	m := func(rest ...string) []string { return migrateTo(dst.Addr, rest...) }
	host, port, _ := net.SplitHostPort(dst.Addr)
	const busy = "ERR Target instance replied with error: BUSYKEY Target key name already exists."

	a.Expect(harness.Status("NOKEY"), m("nokey", "0", "1000")...)
	a.Expect(harness.Status("NOKEY"), m("", "0", "1000", "KEYS", "x", "y")...)
	a.Expect(harness.Status("NOKEY"), m("", "0", "1000", "KEYS")...)

	a.Expect(harness.Status("OK"), "SET", "k", "v")
	a.Expect(harness.Err("ERR Target instance replied with error: NOAUTH Authentication required."), m("k", "0", "1000")...)
	a.Expect(harness.Err("ERR Target instance replied with error: WRONGPASS invalid username-password pair or user is disabled."),
		m("k", "0", "1000", "AUTH", "bad")...)
	a.Expect(int64(1), "EXISTS", "k")
	b.Expect(int64(0), "EXISTS", "k")

	a.Expect(harness.Status("OK"), m("k", "3", "0", "AUTH", "pw")...) // timeout 0 is 1000 ms
	a.Expect(int64(0), "EXISTS", "k")
	b.Expect(harness.Status("OK"), "SELECT", "3")
	b.Expect("v", "GET", "k")

	a.Expect(harness.Status("OK"), "SET", "k", "v2")
	a.Expect(harness.Err(busy), m("k", "3", "1000")...) // the cached connection stays authenticated, as in Redis
	a.Expect("v2", "GET", "k")
	a.Expect(harness.Status("OK"), m("k", "3", "1000", "REPLACE", "COPY")...)
	a.Expect("v2", "GET", "k")
	b.Expect("v2", "GET", "k")

	b.Expect(harness.Status("OK"), "ACL", "SETUSER", "mover", "on", ">secret", "~*", "+@all")
	a.Expect(harness.Status("OK"), "SET", "k2", "x")
	a.Expect(harness.Status("OK"), m("", "3", "1000", "AUTH2", "mover", "secret", "REPLACE", "KEYS", "k", "missing", "k2")...)
	a.Expect(int64(0), "EXISTS", "k", "k2")
	b.Expect(int64(2), "EXISTS", "k", "k2")

	// One key refused, the other moved: the error is the reply, and only the
	// refused key stays.
	a.Expect(harness.Status("OK"), "SET", "k", "new")
	a.Expect(harness.Status("OK"), "SET", "k3", "z")
	a.Expect(harness.Err(busy), m("", "3", "1000", "KEYS", "k", "k3")...)
	a.Expect("new", "GET", "k")
	a.Expect(int64(0), "EXISTS", "k3")
	b.Expect("z", "GET", "k3")

	// SELECT refused: an error, and the key stays.
	a.Expect(harness.Err("ERR Target instance replied with error: ERR DB index is out of range"), m("k", "99", "1000")...)
	a.Expect("new", "GET", "k")

	a.Expect(harness.Status("OK"), "MULTI")
	a.Expect(harness.Status("QUEUED"), m("k", "4", "1000")...)
	a.Expect(harness.Status("QUEUED"), "EXISTS", "k")
	a.Expect([]any{harness.Status("OK"), int64(0)}, "EXEC")
	a.Expect(harness.Status("OK"), "SET", "k", "lua")
	a.Expect(harness.Status("OK"), "EVAL", "return redis.call('MIGRATE', ARGV[1], ARGV[2], KEYS[1], '5', '1000')", "1", "k", host, port)
	b.Expect(harness.Status("OK"), "SELECT", "4")
	b.Expect("new", "GET", "k")
	b.Expect(harness.Status("OK"), "SELECT", "5")
	b.Expect("lua", "GET", "k")
	src.NoPanics(t)
}

// TestMigrateErrors: argument errors, and targets that are not there.
func TestMigrateErrors(t *testing.T) {
	a := harness.Start(t).Raw(t)
	a.Expect(harness.Status("OK"), "SET", "k", "v")
	closed := "127.0.0.1:" + strconv.Itoa(harness.FreePort(t))
	for _, c := range []struct {
		args []string
		want harness.Err
	}{
		{[]string{"MIGRATE", "h", "1", "k", "0"}, "ERR wrong number of arguments for 'migrate' command"},
		{migrateTo(closed, "k", "0", "100", "FOO"), "ERR syntax error"},
		{migrateTo(closed, "k", "0", "100", "AUTH"), "ERR syntax error"},
		{migrateTo(closed, "k", "0", "100", "AUTH2", "u"), "ERR syntax error"},
		{migrateTo(closed, "k", "0", "100", "KEYS", "k"), "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string"},
		{migrateTo(closed, "k", "0", "x"), "ERR value is not an integer or out of range"},
		{migrateTo(closed, "k", "x", "100"), "ERR value is not an integer or out of range"},
		// Redis's connect does not wait for the connection: refused, it
		// fails when writing (after one retry); an address that cannot
		// be resolved fails at once.
		{migrateTo(closed, "k", "0", "100"), "IOERR error or timeout writing to target instance"},
		{[]string{"MIGRATE", "127.0.0.1", "-5", "k", "0", "100"}, "IOERR error or timeout connecting to the client"},
		{[]string{"MIGRATE", "", "6379", "k", "0", "100"}, "IOERR error or timeout connecting to the client"},
	} {
		a.Expect(c.want, c.args...)
	}
	a.Expect("v", "GET", "k")
}

// TestMigrateEventsAndLog: the source publishes del, fails transactions
// watching the key, and logs the DEL (not the MIGRATE, not a COPY).
func TestMigrateEventsAndLog(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--dir", dir, "--appendonly", "yes", "--appendfsync", "always"}
	src, dst := harness.Start(t, args...), harness.Start(t)
	a, sub, w := src.Raw(t), src.Raw(t), src.Raw(t)
	a.Expect(harness.Status("OK"), "CONFIG", "SET", "notify-keyspace-events", "KEA")
	sub.Do("SUBSCRIBE", "__keyevent@0__:del")
	a.Expect(harness.Status("OK"), "MSET", "k", "v", "kept", "w")
	w.Expect(harness.Status("OK"), "WATCH", "k")
	w.Expect(harness.Status("OK"), "MULTI")
	w.Expect(harness.Status("QUEUED"), "GET", "k")
	a.Expect(harness.Status("OK"), migrateTo(dst.Addr, "k", "0", "1000")...)
	a.Expect(harness.Status("OK"), migrateTo(dst.Addr, "kept", "0", "1000", "COPY")...)
	w.Expect(nil, "EXEC")
	sub.ExpectRead([]any{"message", "__keyevent@0__:del", "k"})
	a.Send(harness.Encode("SHUTDOWN", "NOSAVE"))
	if !a.Closed() {
		t.Fatal("SHUTDOWN did not close the connection")
	}
	var logged []byte
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			logged = append(logged, b...)
		}
		return nil
	})
	if s := strings.ToLower(string(logged)); strings.Contains(s, "migrate") || !strings.Contains(s, "del") {
		t.Errorf("append-only log: %q", logged)
	}
	b := harness.Start(t, args...).Raw(t)
	b.Expect(int64(0), "EXISTS", "k")
	b.Expect("w", "GET", "kept")
}

// TestMigrateCachedConnection: MIGRATE keeps its connection to a target,
// SELECTs only when the database changes, and retries once on a new
// connection when the target closed the cached one.
func TestMigrateCachedConnection(t *testing.T) {
	src, dst := harness.Start(t), harness.Start(t)
	a, b, mon := src.Raw(t), dst.Raw(t), dst.Raw(t)
	mon.Expect(harness.Status("OK"), "MONITOR")
	migrated := func(key, db string) {
		t.Helper()
		a.Expect(harness.Status("OK"), "SET", key, "v")
		a.Expect(harness.Status("OK"), migrateTo(dst.Addr, key, db, "1000")...)
	}
	peers := func() []string { // the target's clients that MIGRATE opened
		var ids []string
		for _, line := range strings.Split(b.Do("CLIENT", "LIST").(string), "\n") {
			if id, _, ok := strings.Cut(strings.TrimPrefix(line, "id="), " "); ok && strings.Contains(line, "cmd=restore") {
				ids = append(ids, id)
			}
		}
		return ids
	}
	cached := func() int64 { return src.InfoInt(t, "stats", "migrate_cached_sockets") }
	if n := cached(); n != 0 {
		t.Fatalf("migrate_cached_sockets = %d before any MIGRATE", n)
	}
	migrated("a", "2")
	migrated("b", "2")
	if n := cached(); n != 1 {
		t.Fatalf("migrate_cached_sockets = %d after two MIGRATEs to one target", n)
	}
	first := peers()
	migrated("c", "0")
	if got := peers(); len(first) != 1 || !reflect.DeepEqual(got, first) {
		t.Fatalf("connections from the source: %v, then %v", first, got)
	}
	b.Expect(int64(1), "CLIENT", "KILL", "ID", first[0])
	migrated("d", "0")
	harness.Eventually(t, "one new connection", func() bool {
		got := peers()
		return len(got) == 1 && got[0] != first[0]
	})
	var cmds []string
	for len(cmds) < 7 {
		line := string(mon.Read().(harness.Status))
		words := strings.Fields(line[strings.Index(line, "] ")+2:])
		name, _ := strconv.Unquote(words[0])
		arg, _ := strconv.Unquote(words[1])
		cmds = append(cmds, name+" "+arg)
	}
	// d comes on the new connection, which selects its database again.
	if want := []string{"SELECT 2", "RESTORE a", "RESTORE b", "SELECT 0", "RESTORE c", "SELECT 0", "RESTORE d"}; !reflect.DeepEqual(cmds, want) {
		t.Errorf("the target ran %q, want %q", cmds, want)
	}
}

// standIn is a MIGRATE target played by the test: serve runs for each
// connection it accepts. It returns the address.
func standIn(t *testing.T, serve func(c net.Conn, r *bufio.Reader)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				serve(c, bufio.NewReader(c))
			}()
		}
	}()
	return l.Addr().String()
}

// TestMigrateTimeout: a target that never answers costs one timeout (a
// timeout is not retried) and the key stays.
func TestMigrateTimeout(t *testing.T) {
	addr := standIn(t, func(c net.Conn, r *bufio.Reader) { io.Copy(io.Discard, r) })
	a := harness.Start(t).Raw(t)
	a.Expect(harness.Status("OK"), "SET", "k", "v")
	began := time.Now()
	a.Expect(harness.Err("IOERR error or timeout reading to target instance"), migrateTo(addr, "k", "0", "200")...)
	if d := time.Since(began); d < 200*time.Millisecond || d > 2*time.Second {
		t.Errorf("MIGRATE took %v with a 200 ms timeout", d)
	}
	a.Expect("v", "GET", "k")
}

// TestMigrateHoldsItsKeys: while a target holds its replies back, the keys
// being moved are out of reach (a reader waits, then finds them gone: never
// in both servers, never in neither), while other keys, multi-key
// commands and scripts go on.
func TestMigrateHoldsItsKeys(t *testing.T) {
	received, release := make(chan struct{}, 1), make(chan struct{})
	var once sync.Once
	addr := standIn(t, func(c net.Conn, r *bufio.Reader) {
		for {
			req, err := harness.ReadReply(r)
			if err != nil {
				return
			}
			if req.([]any)[0] == "RESTORE" {
				select {
				case received <- struct{}{}:
				default:
				}
				<-release
			}
			c.Write([]byte("+OK\r\n"))
		}
	})
	// Keys in shards of their own: the two moved ones make the dispatcher
	// take the gate.
	var used []int
	keyOutside := func(prefix string) string {
		for i := 0; ; i++ {
			k := prefix + strconv.Itoa(i)
			if sh := keyspace.ShardIndex([]byte(k)); !slices.Contains(used, sh) {
				used = append(used, sh)
				return k
			}
		}
	}
	k1, k2, other, other2 := keyOutside("k"), keyOutside("k"), keyOutside("o"), keyOutside("o")
	src := harness.Start(t)
	// On failure, the target answers before the server shuts down.
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	a, r, x := src.Raw(t), src.Raw(t), src.Raw(t)
	a.Expect(harness.Status("OK"), "MSET", k1, "v1", k2, "v2", other, "o")
	a.Send(harness.Encode(migrateTo(addr, "", "0", "10000", "KEYS", k1, k2)...))
	<-received

	r.Send(harness.Encode("GET", k1))
	r.NetConn.SetReadDeadline(time.Now().Add(10 * time.Second))
	got := make(chan any, 1)
	go func() {
		v, err := harness.ReadReply(r.Reader)
		if err != nil {
			v = err
		}
		got <- v
	}()
	x.Expect("o", "GET", other)
	x.Expect(harness.Status("OK"), "MSET", other, "o2", other2, "p")
	x.Expect("o2", "EVAL", "return redis.call('GET', KEYS[1])", "1", other)
	select {
	case v := <-got:
		t.Fatalf("GET %s answered %v during the transfer", k1, v)
	case <-time.After(100 * time.Millisecond):
	}
	once.Do(func() { close(release) })
	a.ExpectRead(harness.Status("OK"))
	if v := <-got; v != nil {
		t.Fatalf("GET %s after the transfer: %v", k1, v)
	}
	a.Expect(int64(0), "EXISTS", k1, k2)
	src.NoPanics(t)
}

// TestDifferentialMigrateBothWays: HotKV and Redis 8.0.2 each move keys of
// every type to the other, so each restores the other's payloads.
func TestDifferentialMigrateBothWays(t *testing.T) {
	redis, hot := harness.StartRedis(t), harness.Start(t)
	a, b := hot.Raw(t), redis.Raw(t)
	keys := fillForMigrate(t, 2, a, b)
	fromHot, fromRedis := map[string]any{}, map[string]any{}
	for _, k := range keys {
		fromHot[k.name], fromRedis[k.name] = dumpRead(a, k.name, k.typ), dumpRead(b, k.name, k.typ)
	}
	a.Expect(harness.Status("OK"), migrateKeysTo(redis.Addr, "1", keys)...)
	b.Expect(harness.Status("OK"), migrateKeysTo(hot.Addr, "1", keys)...)
	a.Expect(harness.Status("OK"), "SELECT", "1")
	b.Expect(harness.Status("OK"), "SELECT", "1")
	for _, k := range keys {
		sameMigrated(t, "redis from hotkv: "+k.name, dumpRead(b, k.name, k.typ), fromHot[k.name])
		sameMigrated(t, "hotkv from redis: "+k.name, dumpRead(a, k.name, k.typ), fromRedis[k.name])
	}
	for _, r := range []*harness.Conn{a, b} {
		r.Expect(harness.Status("OK"), "SELECT", "0")
		r.Expect(int64(0), "DBSIZE")
	}
	hot.NoPanics(t)
}

// TestDifferentialMigrateErrors sends the same MIGRATEs to HotKV and to
// Redis, each with a Redis target of its own (with a password), and
// requires the same replies: argument errors, targets that are not there,
// the target's refusals, and ACL checks of the keys.
func TestDifferentialMigrateErrors(t *testing.T) {
	hot, redis := harness.Start(t), harness.StartRedis(t)
	targets := map[*harness.Server]*harness.Server{
		hot:   harness.StartRedis(t, "--requirepass", "pw"),
		redis: harness.StartRedis(t, "--requirepass", "pw"),
	}
	closed := strconv.Itoa(harness.FreePort(t))
	// The timeouts are 5 s, not the 100 ms Redis's tests use: a loaded
	// machine made Redis time out reading its target, an IOERR where HotKV
	// answered the target's error.
	script := [][]string{
		{"MIGRATE", "h", "1", "k", "0"}, {"MIGRATE", "$H", "$P", "k", "0", "5000", "FOO"},
		{"MIGRATE", "$H", "$P", "k", "0", "5000", "AUTH"}, {"MIGRATE", "$H", "$P", "k", "0", "5000", "AUTH2", "u"},
		{"MIGRATE", "$H", "$P", "k", "0", "5000", "KEYS", "k"}, {"MIGRATE", "$H", "$P", "k", "0", "x"},
		{"MIGRATE", "$H", "$P", "k", "x", "5000"}, {"MIGRATE", "$H", "$P", "k", "0", "5000"},
		{"MIGRATE", "$H", "$P", "", "0", "5000", "KEYS"}, {"MIGRATE", "$H", "$P", "", "0", "5000", "KEYS", "a", "b"},
		{"SET", "k", "v"},
		{"MIGRATE", "127.0.0.1", closed, "k", "0", "5000"}, {"MIGRATE", "127.0.0.1", "-5", "k", "0", "5000"},
		{"MIGRATE", "", "6379", "k", "0", "5000"}, {"MIGRATE", "127.0.0.1", "70000abc", "k", "0", "5000"},
		{"MIGRATE", "$H", "$P", "k", "0", "5000"}, {"MIGRATE", "$H", "$P", "k", "0", "5000", "AUTH", "bad"},
		{"MIGRATE", "$H", "$P", "k", "0", "5000", "AUTH2", "default", "bad"}, {"EXISTS", "k"},
		{"MIGRATE", "$H", "$P", "k", "99", "5000", "AUTH", "pw"}, {"EXISTS", "k"},
		{"MIGRATE", "$H", "$P", "k", "-1", "5000"}, // no SELECT after a failed one: the RESTORE went to 0 before
		{"MIGRATE", "$H", "$P", "k", "-1", "5000", "REPLACE"}, {"EXISTS", "k"},
		{"MSET", "a", "1", "b", "2", "k", "v"},
		{"MIGRATE", "$H", "$P", "", "0", "5000", "KEYS", "a", "k", "b"}, {"MGET", "a", "k", "b"},
		{"MIGRATE", "$H", "$P", "", "2", "-7", "AUTH2", "default", "pw", "COPY", "KEYS", "k"}, {"EXISTS", "k"},
		{"MIGRATE", "$H", "$P", "k", "-1", "5000", "COPY"},
		{"ACL", "SETUSER", "mover", "on", "nopass", "~a*", "%R~k*", "+migrate", "+set"},
		{"AUTH", "mover", "x"},
		{"MIGRATE", "$H", "$P", "", "0", "5000", "KEYS", "a1", "b1"}, {"MIGRATE", "$H", "$P", "", "0", "5000", "KEYS", "a1", "a2"},
		{"MIGRATE", "$H", "$P", "k", "0", "5000"}, {"MIGRATE", "$H", "$P", "", "0", "5000", "AUTH", "b", "KEYS", "a1"},
	}
	conns := map[*harness.Server]*harness.Conn{hot: hot.Raw(t), redis: redis.Raw(t)}
	for _, cmd := range script {
		replies := map[*harness.Server]any{}
		for srv, r := range conns {
			host, port, _ := net.SplitHostPort(targets[srv].Addr)
			args := make([]string, len(cmd))
			for i, w := range cmd {
				args[i] = strings.NewReplacer("$H", host, "$P", port).Replace(w)
			}
			replies[srv] = r.Do(args...)
		}
		if !reflect.DeepEqual(replies[hot], replies[redis]) {
			t.Errorf("%q:\nhotkv: %#v\nredis: %#v", cmd, replies[hot], replies[redis])
		}
	}
	for _, srv := range []*harness.Server{hot, redis} {
		for _, db := range []string{"0", "2"} {
			tr := targets[srv].Raw(t)
			tr.Expect(harness.Status("OK"), "AUTH", "pw")
			tr.Expect(harness.Status("OK"), "SELECT", db)
			if got := tr.Do("MGET", "a", "b", "k"); !reflect.DeepEqual(got, map[string]any{
				"0": []any{"1", "2", "v"}, "2": []any{nil, nil, "v"}}[db]) {
				t.Errorf("target of %s, db %s: %#v", map[bool]string{true: "hotkv", false: "redis"}[srv == hot], db, got)
			}
		}
	}
	hot.NoPanics(t)
}
