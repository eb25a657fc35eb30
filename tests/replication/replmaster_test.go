package replication

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// HotKV as a replication master (docs/replication.md): a real Redis 8.0.2
// replica follows it, redis-cli --rdb saves a file Redis loads, and the
// protocol itself is checked over a raw connection. The tests that need
// Redis skip without ../shared/peers/install.sh.

// fillAllTypes writes every RDB-expressible type, in several databases,
// with TTLs, hash-field TTLs, a stream with a group and pending entries,
// and a function library.
func fillAllTypes(t *testing.T, r *harness.Conn) {
	t.Helper()
	do := func(args ...string) {
		t.Helper()
		if v := r.Do(args...); isErr(v) {
			t.Fatalf("%q: %v", args, v)
		}
	}
	do("SET", "str", "hello")
	do("SET", "int", "12345")
	do("SET", "bigint", "123456789012345")
	do("SET", "neg", "-7")
	do("SET", "long", strings.Repeat("x", 20000))
	do("SET", "ttl", "v", "EX", "1000")
	do("RPUSH", "list:small", "a", "b", "1", "2", "-300000")
	big := []string{"RPUSH", "list:big"}
	for i := range 2000 {
		big = append(big, fmt.Sprintf("element-%d", i))
	}
	do(big...)
	do("RPUSH", "list:plain", strings.Repeat("p", 10000), "small")
	do("SADD", "set:int", "1", "2", "3", "-4", "100000")
	do("SADD", "set:lp", "a", "b", "c")
	sbig := []string{"SADD", "set:ht"}
	for i := range 1000 {
		sbig = append(sbig, fmt.Sprintf("m%d", i))
	}
	do(sbig...)
	do("ZADD", "z:small", "1", "a", "2.5", "b", "-inf", "c")
	zbig := []string{"ZADD", "z:big"}
	for i := range 500 {
		zbig = append(zbig, strconv.Itoa(i), fmt.Sprintf("member-%d", i))
	}
	do(zbig...)
	do("HSET", "h:small", "f1", "v1", "f2", "2")
	hbig := []string{"HSET", "h:big"}
	for i := range 1000 {
		hbig = append(hbig, fmt.Sprintf("f%d", i), fmt.Sprintf("v%d", i))
	}
	do(hbig...)
	do("HSET", "h:ttl", "a", "1", "b", "2", "c", "3")
	do("HEXPIRE", "h:ttl", "5000", "FIELDS", "2", "a", "b")
	do(append(hbig[:1:1], append([]string{"h:bigttl"}, hbig[2:]...)...)...)
	do("HPEXPIRE", "h:bigttl", "900000", "FIELDS", "1", "f7")
	do("EXPIRE", "h:big", "3000")
	for i := range 5 {
		do("XADD", "stream", fmt.Sprintf("1-%d", i+1), "field", strconv.Itoa(i))
	}
	do("XGROUP", "CREATE", "stream", "g1", "0")
	do("XGROUP", "CREATE", "stream", "g2", "$")
	do("XREADGROUP", "GROUP", "g1", "alice", "COUNT", "2", "STREAMS", "stream", ">")
	do("XREADGROUP", "GROUP", "g1", "bob", "COUNT", "1", "STREAMS", "stream", ">")
	do("XACK", "stream", "g1", "1-1")
	do("XADD", "empty-stream", "5-5", "a", "b")
	do("XDEL", "empty-stream", "5-5")
	do("SELECT", "3")
	do("SET", "db3", "three", "PX", "600000")
	do("LPUSH", "db3list", "x")
	do("SELECT", "9")
	do("HSET", "db9", "a", "b")
	do("SELECT", "0")
	do("FUNCTION", "LOAD", "#!lua name=replib\nredis.register_function('rf', function(keys, args) return #keys end)")
}

func isErr(v any) bool { _, ok := v.(harness.Err); return ok }

// digestsMatch compares DEBUG DIGEST, and per key DEBUG DIGEST-VALUE and
// TTLs (within a second), of every database in use.
func digestsMatch(t *testing.T, hot, red *harness.Conn, dbs ...string) {
	t.Helper()
	if a, b := hot.Do("DEBUG", "DIGEST"), red.Do("DEBUG", "DIGEST"); a != b {
		for _, db := range dbs {
			hot.Do("SELECT", db)
			red.Do("SELECT", db)
			keys, _ := hot.Do("KEYS", "*").([]any)
			for _, k := range keys {
				k := k.(string)
				if x, y := hot.Do("DEBUG", "DIGEST-VALUE", k), red.Do("DEBUG", "DIGEST-VALUE", k); fmt.Sprint(x) != fmt.Sprint(y) {
					t.Errorf("db %s key %q: digest %v, Redis %v (type %v)", db, k, x, y, red.Do("TYPE", k))
				}
			}
			if x, y := hot.Do("DBSIZE"), red.Do("DBSIZE"); x != y {
				t.Errorf("db %s: DBSIZE %v, Redis %v", db, x, y)
			}
		}
		hot.Do("SELECT", "0")
		red.Do("SELECT", "0")
		t.Fatalf("DEBUG DIGEST: HotKV %v, Redis %v", a, b)
	}
	for _, db := range dbs {
		hot.Do("SELECT", db)
		red.Do("SELECT", db)
		keys, _ := hot.Do("KEYS", "*").([]any)
		for _, k := range keys {
			k := k.(string)
			a, _ := hot.Do("PTTL", k).(int64)
			b, _ := red.Do("PTTL", k).(int64)
			if (a < 0 || b < 0) && a != b || a-b > 1000 || b-a > 1000 {
				t.Errorf("db %s key %q: PTTL %d, Redis %d", db, k, a, b)
			}
		}
	}
	hot.Do("SELECT", "0")
	red.Do("SELECT", "0")
}

// startRedisWith runs redis8-server with args (a replica, a file to load).
func startRedisWith(t *testing.T, dir string, args ...string) (*harness.Server, *os.Process) {
	t.Helper()
	bin := harness.RedisServerPath()
	if bin == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	port := harness.FreePort(t)
	cmd := exec.Command(bin, append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", dir, "--enable-debug-command", "yes", "--logfile", filepath.Join(dir, "redis.log")}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	harness.WaitPort(t, addr)
	return &harness.Server{Addr: addr}, cmd.Process
}

func TestRDBFromRedisCliLoadsInRedis(t *testing.T) {
	if harness.RedisServerPath() == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	cli := harness.PeerCLI(t)
	s := harness.Start(t)
	r := s.Raw(t)
	fillAllTypes(t, r)
	dir := t.TempDir()
	host, port, _ := net.SplitHostPort(s.Addr)
	out, err := exec.Command(cli, "-h", host, "-p", port, "--rdb", filepath.Join(dir, "dump.rdb")).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli --rdb: %v\n%s", err, out)
	}
	red, _ := startRedisWith(t, dir, "--dbfilename", "dump.rdb")
	rr := red.Raw(t)
	digestsMatch(t, r, rr, "0", "3", "9")
	if got := fmt.Sprint(rr.Do("FUNCTION", "LIST")); !strings.Contains(got, "replib") {
		t.Fatalf("FUNCTION LIST in Redis: %v", got)
	}
	if got := rr.Do("XINFO", "GROUPS", "stream"); !strings.Contains(fmt.Sprint(got), "g1 consumers 2 pending 2") {
		t.Fatalf("XINFO GROUPS in Redis: %v", got)
	}
	if got := rr.Do("HTTL", "h:ttl", "FIELDS", "3", "a", "b", "c"); fmt.Sprint(got) != "[5000 5000 -1]" && fmt.Sprint(got) != "[4999 4999 -1]" {
		t.Fatalf("HTTL in Redis: %v", got)
	}
}

// replicaUp waits for a Redis replica to finish its sync.
func replicaUp(t *testing.T, red *harness.Conn) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, _ := red.Do("INFO", "replication").(string)
		if strings.Contains(info, "master_link_status:up") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica never came up:\n%v", red.Do("INFO", "replication"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRedisReplicaFollowsHotKV(t *testing.T) {
	if harness.RedisServerPath() == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	s := harness.Start(t)
	r := s.Raw(t)
	fillAllTypes(t, r)
	host, port, _ := net.SplitHostPort(s.Addr)
	dir := t.TempDir()
	red, proc := startRedisWith(t, dir, "--replicaof", host, port)
	rr := red.Raw(t)
	replicaUp(t, rr)
	digestsMatch(t, r, rr, "0", "3", "9")

	// Writes after the sync, of every kind the stream carries.
	script := [][]string{
		{"SET", "k", "1"}, {"INCR", "k"}, {"INCRBYFLOAT", "f", "1.5"}, {"EXPIRE", "k", "500"},
		{"SET", "px", "v", "PX", "900000"}, {"SETEX", "sx", "800", "v"}, {"GETEX", "str", "EX", "700"},
		{"EXPIRE", "int", "-1"}, {"PEXPIREAT", "neg", "1"}, {"PERSIST", "ttl"},
		{"LPUSH", "list:small", "new"}, {"LPOP", "list:big"}, {"RPOPLPUSH", "list:big", "list:small"},
		{"HSET", "h:small", "f3", "v3"}, {"HINCRBY", "h:small", "f2", "5"}, {"HEXPIRE", "h:small", "600", "FIELDS", "1", "f1"},
		{"SPOP", "set:ht", "3"}, {"SADD", "set:int", "7"}, {"ZINCRBY", "z:small", "2", "a"}, {"ZPOPMIN", "z:big", "2"},
		{"XADD", "stream", "*", "new", "1"}, {"XAUTOCLAIM", "stream", "g1", "carol", "0", "0"}, {"XTRIM", "stream", "MAXLEN", "3"},
		{"MULTI"}, {"SET", "{a}1", "x"}, {"SET", "{b}2", "y"}, {"INCR", "{c}3"}, {"SELECT", "4"}, {"SET", "in4", "tx"}, {"EXEC"},
		{"SELECT", "0"},
		{"EVAL", "redis.call('set', KEYS[1], ARGV[1]); redis.call('lpush', KEYS[2], 'a', 'b'); return redis.call('incr', KEYS[1])", "2", "{s}x", "{s}y", "41"},
		{"FCALL", "rf", "1", "k"},
		{"SELECT", "5"}, {"SET", "five", "5"}, {"SELECT", "3"}, {"FLUSHDB"}, {"SET", "again", "1"}, {"SELECT", "0"},
		{"SET", "gone", "v", "PX", "50"}, {"HSET", "gone:h", "a", "1"}, {"PEXPIRE", "gone:h", "60"},
		{"RENAME", "long", "long2"}, {"COPY", "h:big", "h:copy"}, {"SWAPDB", "5", "6"},
		{"RESTORE", "restored", "400000", string(dumpOf(t, r, "z:small"))},
	}
	for _, cmd := range script {
		if v := r.Do(cmd...); isErr(v) {
			t.Fatalf("%q: %v", cmd, v)
		}
	}
	// "gone" and "gone:h" expire on HotKV, which deletes them (in its active
	// cycle, or here on access) and sends the replica a DEL each. Not
	// expired_keys: PEXPIREAT and EXPIRE into the past count there too, as
	// in Redis, so it may be reached while these two still wait.
	harness.Eventually(t, "expired keys deleted on HotKV", func() bool { return r.Do("EXISTS", "gone", "gone:h") == int64(0) })
	if got := r.Do("WAIT", "1", "5000"); got != int64(1) {
		t.Fatalf("WAIT 1 5000 = %v", got)
	}
	harness.Eventually(t, "equal digests", func() bool { return r.Do("DEBUG", "DIGEST") == rr.Do("DEBUG", "DIGEST") })
	digestsMatch(t, r, rr, "0", "3", "4", "5", "6", "9")

	info := s.Info(t, "replication")
	if info["connected_slaves"] != "1" || !strings.Contains(info["slave0"], "state=online") {
		t.Fatalf("INFO replication: %v", info)
	}
	if off, _ := strconv.Atoi(info["master_repl_offset"]); off == 0 {
		t.Fatalf("master_repl_offset did not advance: %v", info)
	}
	if role := fmt.Sprint(r.Do("ROLE")); !strings.HasPrefix(role, "[master ") || !strings.Contains(role, "127.0.0.1") {
		t.Fatalf("ROLE = %s", role)
	}
	if list := fmt.Sprint(r.Do("CLIENT", "LIST", "TYPE", "replica")); !strings.Contains(list, "flags=S") {
		t.Fatalf("CLIENT LIST TYPE replica: %s", list)
	}

	// A killed connection comes back with PSYNC and continues from the backlog.
	if got := r.Do("CLIENT", "KILL", "TYPE", "replica"); got != int64(1) {
		t.Fatalf("CLIENT KILL TYPE replica = %v", got)
	}
	r.Do("SET", "while-away", "1")
	harness.Eventually(t, "replica back", func() bool { return s.Info(t, "replication")["connected_slaves"] == "1" })
	if got := r.Do("WAIT", "1", "5000"); got != int64(1) {
		t.Fatalf("WAIT after reconnect = %v", got)
	}
	harness.Eventually(t, "equal digests after reconnect", func() bool { return r.Do("DEBUG", "DIGEST") == rr.Do("DEBUG", "DIGEST") })
	if log, _ := os.ReadFile(filepath.Join(dir, "redis.log")); !strings.Contains(string(log), "Successful partial resynchronization") {
		t.Errorf("the replica did not continue from the backlog:\n%s", log)
	}

	// PUBLISH reaches the replica's subscribers.
	sub := red.Raw(t)
	sub.Do("SUBSCRIBE", "news")
	r.Do("PUBLISH", "news", "hello")
	if got := fmt.Sprint(sub.Read()); got != "[message news hello]" {
		t.Fatalf("replica's subscriber got %s", got)
	}

	// A replica that goes away disappears from INFO.
	proc.Kill()
	harness.Eventually(t, "replica gone from INFO", func() bool { return s.Info(t, "replication")["connected_slaves"] == "0" })
	if got := r.Do("WAIT", "1", "100"); got != int64(0) {
		t.Fatalf("WAIT with no replica = %v", got)
	}
	s.NoPanics(t)
}

func dumpOf(t *testing.T, r *harness.Conn, key string) string {
	t.Helper()
	v, ok := r.Do("DUMP", key).(string)
	if !ok {
		t.Fatalf("DUMP %s failed", key)
	}
	return v
}

// The protocol as a replica speaks it, without a peer: REPLCONF, PSYNC,
// the diskless transfer, then the stream with SELECT, and WAIT counting
// REPLCONF ACK.
func TestPSYNCStreamsWrites(t *testing.T) {
	s := harness.Start(t)
	w := s.Raw(t)
	w.Do("SET", "before", "1")
	rep := s.Raw(t)
	rep.Expect(harness.Status("OK"), "REPLCONF", "listening-port", "6390")
	rep.Expect(harness.Status("OK"), "REPLCONF", "capa", "eof", "capa", "psync2")
	rep.Send(harness.Encode("PSYNC", "?", "-1"))
	line := harness.ReadLine(t, rep.Reader)
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "+FULLRESYNC" || len(f[1]) != 40 {
		t.Fatalf("PSYNC reply %q", line)
	}
	line = harness.ReadLine(t, rep.Reader)
	if !strings.HasPrefix(line, "$EOF:") || len(line) != 45 {
		t.Fatalf("transfer head %q", line)
	}
	mark := line[5:]
	var file []byte
	buf := make([]byte, 1)
	for !strings.HasSuffix(string(file), mark) {
		if _, err := io.ReadFull(rep.Reader, buf); err != nil {
			t.Fatal(err)
		}
		file = append(file, buf[0])
	}
	file = file[:len(file)-len(mark)]
	if !strings.HasPrefix(string(file), "REDIS0012") || !strings.Contains(string(file), "before") {
		t.Fatalf("RDB file %q", file)
	}
	// Diskless: the stream starts once the replica says it has loaded.
	if strings.Contains(s.Info(t, "replication")["slave0"], "state=online") {
		t.Fatal("online before its first ACK")
	}
	rep.Send(harness.Encode("REPLCONF", "ACK", f[2]))
	harness.Eventually(t, "replica online", func() bool {
		return strings.Contains(s.Info(t, "replication")["slave0"], "port=6390,state=online")
	})
	w.Do("SELECT", "2")
	w.Do("SET", "k", "v", "EX", "100")
	want := "*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$4\r\nPXAT\r\n"
	got := make([]byte, len(want))
	rep.NetConn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(rep.Reader, got); err != nil || string(got) != want {
		t.Fatalf("stream %q, %v; want %q", got, err, want)
	}
	harness.ReadLine(t, rep.Reader) // $13
	at, _ := strconv.ParseInt(harness.ReadLine(t, rep.Reader), 10, 64)
	if d := at - time.Now().UnixMilli(); d < 90000 || d > 100000 {
		t.Fatalf("PXAT %d is %d ms away", at, d)
	}
	// WAIT: answered once the replica acknowledges the client's offset.
	off := s.InfoInt(t, "replication", "master_repl_offset")
	w.Send(harness.Encode("WAIT", "1", "5000"))
	time.Sleep(50 * time.Millisecond)
	rep.Send(harness.Encode("REPLCONF", "ACK", strconv.FormatInt(off+100, 10)))
	if got := w.Read(); got != int64(1) {
		t.Fatalf("WAIT = %v", got)
	}
	if got := w.Do("WAIT", "2", "50"); got != int64(1) {
		t.Fatalf("WAIT 2 50 = %v", got)
	}
	if role := fmt.Sprint(w.Do("ROLE")); !strings.Contains(role, "6390") {
		t.Fatalf("ROLE = %s", role)
	}
	rep.NetConn.Close()
	harness.Eventually(t, "replica gone", func() bool { return s.Info(t, "replication")["connected_slaves"] == "0" })
}

// A replica that does not read is closed at the replica class's limit.
func TestReplicaOutputLimit(t *testing.T) {
	s := harness.Start(t, "--client-output-buffer-limit", "replica 1mb 0 0")
	w := s.Raw(t)
	rep := s.Raw(t)
	rep.Send(harness.Encode("SYNC"))
	harness.Eventually(t, "replica attached", func() bool { return s.Info(t, "replication")["connected_slaves"] == "1" })
	val := strings.Repeat("x", 64<<10)
	for i := 0; i < 1000 && s.Info(t, "replication")["connected_slaves"] == "1"; i++ {
		w.Do("SET", "k", val)
	}
	harness.Eventually(t, "replica closed", func() bool { return s.Info(t, "replication")["connected_slaves"] == "0" })
	if n := s.InfoInt(t, "stats", "client_output_buffer_limit_disconnections"); n != 1 {
		t.Fatalf("client_output_buffer_limit_disconnections = %d", n)
	}
}

// A full synchronization while clients write: the file is the data at one
// instant and the stream everything after it, so the replica ends equal.
func TestRedisReplicaSyncUnderWrites(t *testing.T) {
	if harness.RedisServerPath() == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	s := harness.Start(t)
	r := s.Raw(t)
	var load []string
	for i := range 20000 {
		load = append(load, fmt.Sprintf("key:%d", i), strconv.Itoa(i))
		if len(load) == 2000 {
			r.Do(append([]string{"MSET"}, load...)...)
			load = load[:0]
		}
	}
	stop := make(chan struct{})
	done := make(chan int)
	for w := range 2 {
		go func() {
			c, err := net.Dial("tcp", s.Addr)
			if err != nil {
				done <- 0
				return
			}
			defer c.Close()
			br := bufio.NewReader(c)
			n := 0
			for i := 0; ; i++ {
				select {
				case <-stop:
					done <- n
					return
				default:
				}
				k := fmt.Sprintf("key:%d", (i*7919+w*13)%20000)
				cmd := harness.Encode("INCR", k) + harness.Encode("HINCRBY", "h:"+strconv.Itoa(i%100), k, "1") + harness.Encode("RPUSH", "l:"+strconv.Itoa(w), k)
				if _, err := c.Write([]byte(cmd)); err != nil {
					done <- n
					return
				}
				for range 3 {
					if _, err := harness.ReadReply(br); err != nil {
						done <- n
						return
					}
				}
				n++
			}
		}()
	}
	host, port, _ := net.SplitHostPort(s.Addr)
	dir := t.TempDir()
	red, _ := startRedisWith(t, dir, "--replicaof", host, port)
	rr := red.Raw(t)
	t.Cleanup(func() {
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			t.Logf("replica's log:\n%s", log)
		}
	})
	replicaUp(t, rr)
	time.Sleep(200 * time.Millisecond) // writes after the sync too
	close(stop)
	n := <-done + <-done
	if n == 0 {
		t.Fatal("no writes ran")
	}
	if got := r.Do("WAIT", "1", "5000"); got != int64(1) {
		t.Fatalf("WAIT = %v", got)
	}
	harness.Eventually(t, "equal digests", func() bool { return r.Do("DEBUG", "DIGEST") == rr.Do("DEBUG", "DIGEST") })
	t.Logf("%d write rounds during and after the sync", n)
}

// What RDB has no form for travels in an AUX field Redis skips: Redis still
// loads the file, without those keys.
func TestRDBWithHotKVOnlyDataLoadsInRedis(t *testing.T) {
	if harness.RedisServerPath() == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	cli := harness.PeerCLI(t)
	s := harness.Start(t)
	r := s.Raw(t)
	r.Do("SET", "s", "v")
	r.Do("VADD", "vs", "VALUES", "2", "1", "2", "a")
	r.Do("VSIM.CREATEINDEX", "idx", "DIM", "2")
	dir := t.TempDir()
	host, port, _ := net.SplitHostPort(s.Addr)
	if out, err := exec.Command(cli, "-h", host, "-p", port, "--rdb", filepath.Join(dir, "dump.rdb")).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --rdb: %v\n%s", err, out)
	}
	if n := s.InfoInt(t, "replication", "rdb_keys_skipped"); n != 1 {
		t.Fatalf("rdb_keys_skipped = %d", n)
	}
	red, _ := startRedisWith(t, dir, "--dbfilename", "dump.rdb")
	rr := red.Raw(t)
	if got := rr.Do("DBSIZE"); got != int64(1) {
		t.Fatalf("DBSIZE in Redis = %v", got)
	}
	if got := rr.Do("GET", "s"); got != "v" {
		t.Fatalf("GET s in Redis = %v", got)
	}
}

// min-replicas-to-write: writes are refused while too few replicas have
// acknowledged within min-replicas-max-lag seconds; reads are not.
func TestMinReplicasToWrite(t *testing.T) {
	s := harness.Start(t)
	w := s.Raw(t)
	w.Expect(harness.Status("OK"), "CONFIG", "SET", "min-replicas-to-write", "1")
	noReplicas := harness.Err("NOREPLICAS Not enough good replicas to write.")
	if got := w.Do("SET", "k", "v"); got != noReplicas {
		t.Fatalf("SET with no replica = %#v", got)
	}
	w.Expect(nil, "GET", "k")
	rep := s.Raw(t)
	rep.Send(harness.Encode("SYNC"))
	harness.Eventually(t, "writes accepted", func() bool { return w.Do("SET", "k", "v") == harness.Status("OK") })
	rep.NetConn.Close()
	harness.Eventually(t, "writes refused", func() bool { return w.Do("SET", "k", "v") == noReplicas })
	w.Expect(harness.Status("OK"), "CONFIG", "SET", "min-replicas-max-lag", "0") // 0: the check is off
	w.Expect(harness.Status("OK"), "SET", "k", "v")
}

// Keys evicted under maxmemory reach the replica as DELs (Redis replicas
// ignore maxmemory by default and wait for them).
func TestRedisReplicaSeesEvictions(t *testing.T) {
	harness.OutOfProcess(t)
	if harness.RedisServerPath() == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	if harness.RaceEnabled {
		t.Skip("eviction follows the collector's timing, which the race detector distorts")
	}
	p := harness.StartBinary(t, "--maxmemory", "32mb", "--maxmemory-policy", "allkeys-random", "--loglevel", "warning", "--enable-debug-command", "local")
	host, port, _ := net.SplitHostPort(p.Addr)
	red, _ := startRedisWith(t, t.TempDir(), "--replicaof", host, port)
	rr := red.Raw(t)
	replicaUp(t, rr)
	c := p.Client(t)
	ctx := context.Background()
	hot := (&harness.Server{Addr: p.Addr}).Raw(t)
	evicted := func() int64 { return harness.InfoField(t, c, "stats", "evicted_keys") }
	for n := 0; evicted() == 0; n += 10_000 {
		if n == 2_000_000 {
			t.Fatal("20M keys written and nothing evicted")
		}
		if err := harness.Fill(ctx, c, "k", n, 10_000, 100, 0); err != nil {
			t.Fatal(err)
		}
	}
	// The evictor goes on in the background while over the limit: wait
	// for it to settle, then for the replica.
	for prev := int64(-1); evicted() != prev; time.Sleep(300 * time.Millisecond) {
		prev = evicted()
	}
	if got := hot.Do("WAIT", "1", "10000"); got != int64(1) {
		t.Fatalf("WAIT = %v", got)
	}
	// The evictor may still take a key now and then (the heap it measures
	// settles after collections): the replica must match HotKV at some
	// moment, data and key count alike.
	deadline := time.Now().Add(30 * time.Second)
	for {
		d1, n1 := hot.Do("DEBUG", "DIGEST"), hot.Do("DBSIZE")
		d2, n2 := rr.Do("DEBUG", "DIGEST"), rr.Do("DBSIZE")
		if d1 == d2 && n1 == n2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica never caught up: HotKV %v keys (%v), replica %v (%v)", n1, d1, n2, d2)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%d keys evicted, %v left", evicted(), hot.Do("DBSIZE"))
}

// The log and the stream side by side: a replica follows a HotKV whose
// append-only log is on, then turned off at run time.
func TestRedisReplicaWithAppendOnly(t *testing.T) {
	if harness.RedisServerPath() == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	s := harness.Start(t, "--dir", t.TempDir(), "--appendonly", "yes")
	r := s.Raw(t)
	r.Do("SET", "before", "1")
	host, port, _ := net.SplitHostPort(s.Addr)
	red, _ := startRedisWith(t, t.TempDir(), "--replicaof", host, port)
	rr := red.Raw(t)
	replicaUp(t, rr)
	write := func(tag string) {
		for _, cmd := range [][]string{{"SET", tag, "v", "EX", "100"}, {"MULTI"}, {"INCR", tag + ":n"}, {"LPUSH", tag + ":l", "a"}, {"EXEC"},
			{"XADD", tag + ":s", "*", "f", "v"}, {"SPOP", tag + ":none"}} {
			if v := r.Do(cmd...); isErr(v) {
				t.Fatalf("%q: %v", cmd, v)
			}
		}
		if got := r.Do("WAIT", "1", "5000"); got != int64(1) {
			t.Fatalf("WAIT = %v", got)
		}
		harness.Eventually(t, "equal digests", func() bool { return r.Do("DEBUG", "DIGEST") == rr.Do("DEBUG", "DIGEST") })
	}
	write("on")
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "appendonly", "no")
	write("off")
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "appendonly", "yes")
	write("again")
}

// syncedReplica is a connection that has become s's replica by PSYNC: the
// diskless transfer read, its first ACK sent, online.
func syncedReplica(t *testing.T, s *harness.Server) *harness.Conn {
	t.Helper()
	rep := s.Raw(t)
	rep.Expect(harness.Status("OK"), "REPLCONF", "capa", "eof")
	rep.Send(harness.Encode("PSYNC", "?", "-1"))
	f := strings.Fields(harness.ReadLine(t, rep.Reader))
	mark := strings.TrimPrefix(harness.ReadLine(t, rep.Reader), "$EOF:")
	var tail []byte
	for !strings.HasSuffix(string(tail), mark) {
		b, err := rep.Reader.ReadByte()
		if err != nil {
			t.Fatal(err)
		}
		tail = append(tail, b)
	}
	rep.Send(harness.Encode("REPLCONF", "ACK", f[2]))
	harness.Eventually(t, "replica online", func() bool {
		return strings.Contains(s.Info(t, "replication")["slave0"], "state=online")
	})
	return rep
}

// CLIENT KILL TYPE replica: the replica is gone when it returns, as a Redis
// master frees it at once, and nothing written after reaches it (it gets
// that from the backlog when it comes back). HotKV closed the socket a
// moment later, so a write right after could still go out on it, and a
// replica that caught up that way never counted its partial resync.
func TestClientKillReplicaStopsStream(t *testing.T) {
	s := harness.Start(t)
	w := s.Raw(t)
	for i := range 10 {
		rep := syncedReplica(t, s)
		w.Expect(int64(1), "CLIENT", "KILL", "TYPE", "replica")
		if n := s.Info(t, "replication")["connected_slaves"]; n != "0" {
			t.Fatalf("round %d: connected_slaves %s right after CLIENT KILL", i, n)
		}
		w.Do("SET", "after-kill", strconv.Itoa(i))
		rep.NetConn.SetReadDeadline(time.Now().Add(5 * time.Second))
		rest, err := io.ReadAll(rep.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(rest), "after-kill") {
			t.Fatalf("round %d: the killed replica got %q", i, rest)
		}
	}
}
