package replication

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// The replication stream, compared with Redis 8.0.2's command for command:
// each case runs on both servers with a replica attached by SYNC (as the
// Tcl suite's attach_to_replication_stream does), and the commands each
// stream carries must be the same, times and stream IDs aside.

// attachStream sends SYNC on a new connection and skips the RDB file.
func attachStream(t *testing.T, s *harness.Server) *harness.Conn {
	t.Helper()
	r := s.Raw(t)
	r.Send(harness.Encode("SYNC"))
	r.NetConn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line := ""
	for line == "" { // newlines keep the link alive while the file is made
		line = harness.ReadLine(t, r.Reader)
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(line, "$"), 10, 64)
	if err != nil || line[0] != '$' {
		t.Fatalf("SYNC answered %q", line)
	}
	if _, err := io.CopyN(io.Discard, r.Reader, n); err != nil {
		t.Fatal(err)
	}
	return r
}

// streamCommand reads the stream's next command but PING, lower-casing its
// name and masking times and stream IDs.
func streamCommand(t *testing.T, r *harness.Conn) string {
	t.Helper()
	for {
		r.NetConn.SetReadDeadline(time.Now().Add(5 * time.Second))
		v, err := harness.ReadReply(r.Reader)
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		parts, _ := v.([]any)
		var args []string
		for _, p := range parts {
			args = append(args, fmt.Sprint(p))
		}
		if len(args) == 0 || strings.EqualFold(args[0], "ping") {
			continue
		}
		args[0] = strings.ToLower(args[0])
		return strings.Join(args, " ")
	}
}

// masked: a Unix time in milliseconds, alone or in a stream ID.
var masked = regexp.MustCompile(`\b1[0-9]{12}\b`)

// streamOf runs script on s and returns the commands its stream carries,
// up to the marker written last.
func streamOf(t *testing.T, s *harness.Server, script [][]string) []string {
	t.Helper()
	c := s.Raw(t)
	c.Do("FLUSHALL")
	c.Do("SCRIPT", "FLUSH")
	c.Do("CONFIG", "SET", "repl-ping-replica-period", "3600")
	rep := attachStream(t, s)
	defer rep.NetConn.Close()
	bg := s.Raw(t) // "bg" sends a command from another client, which blocks; "sleep" waits ms
	sent := 0
	for _, cmd := range script {
		if cmd[0] == "sleep" {
			ms, _ := strconv.Atoi(cmd[1])
			time.Sleep(time.Duration(ms) * time.Millisecond)
			continue
		}
		if cmd[0] == "bg" {
			bg.Send(harness.Encode(cmd[1:]...))
			sent++
			time.Sleep(50 * time.Millisecond)
			continue
		}
		c.Do(cmd...)
	}
	for range sent {
		bg.Read()
	}
	c.Do("SELECT", "0")
	c.Do("SET", "stream-end", "1")
	var got []string
	for {
		cmd := streamCommand(t, rep)
		if cmd == "set stream-end 1" {
			return got
		}
		got = append(got, masked.ReplaceAllString(cmd, "<ms>"))
	}
}

func TestReplicationStreamMatchesRedis(t *testing.T) {
	if harness.RedisServerPath() == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	red, _ := startRedisWith(t, t.TempDir())
	hot := harness.Start(t)
	past := strconv.FormatInt(time.Now().Unix()-100, 10)
	later := strconv.FormatInt(time.Now().UnixMilli()+100000, 10)
	ago := strconv.FormatInt(time.Now().UnixMilli()-5000, 10)
	rr := red.Raw(t)
	rr.Do("SET", "v", "v")
	dump, _ := rr.Do("DUMP", "v").(string)
	cases := map[string][][]string{
		"multi": {{"SELECT", "9"}, {"MULTI"}, {"SET", "a", "1"}, {"GET", "a"}, {"SET", "b", "2"}, {"EXEC"}},
		"multi with select": {{"MULTI"}, {"SELECT", "1"}, {"SET", "a", "1"}, {"SELECT", "2"}, {"SET", "b", "2"},
			{"EXEC"}},
		"getex": {{"SET", "foo", "bar", "EX", "100"}, {"GETEX", "foo", "PERSIST"}, {"GETEX", "foo"},
			{"GETEX", "foo", "EXAT", past}},
		"set": {{"SET", "a", "1", "NX", "EX", "100"}, {"SET", "a", "2", "XX", "GET", "PX", "100000"},
			{"SET", "a", "3", "GET", "PXAT", later}, {"SET", "a", "4", "GET"}, {"SET", "a", "5", "KEEPTTL", "get", "XX"}},
		"incrbyfloat": {{"SET", "f", "1.5", "EX", "100"}, {"INCRBYFLOAT", "f", "1"}, {"INCRBYFLOAT", "g", "2.25"},
			{"HINCRBYFLOAT", "h", "x", "0.5"}, {"HINCRBYFLOAT", "h", "x", "1e3"}},
		"incrbyfloat in a script": {{"EVAL", "redis.call('incrbyfloat', KEYS[1], 1)", "1", "key"},
			{"EVAL", "redis.call('set', KEYS[1], '1', 'KEEPTTL')", "1", "key"}},
		"no effect": {{"DEL", "a"}, {"UNLINK", "a"}, {"EXPIRE", "a", "10"}, {"PERSIST", "a"}, {"SET", "a", "1"},
			{"SETNX", "a", "2"}, {"SET", "a", "2", "NX"}, {"SET", "b", "2", "XX"}, {"PERSIST", "a"}, {"LPOP", "l"},
			{"RPOP", "l", "2"}, {"LPUSHX", "l", "x"}, {"SADD", "s", "x"}, {"SADD", "s", "x"}, {"SREM", "s", "y"},
			{"HSET", "h", "f", "v"}, {"HDEL", "h", "g"}, {"HSETNX", "h", "f", "w"}, {"ZADD", "z", "1", "m"},
			{"ZREM", "z", "n"}, {"LMOVE", "l", "l2", "LEFT", "LEFT"}, {"RPOPLPUSH", "l", "l2"}, {"GETDEL", "nokey"},
			{"GETDEL", "a"}, {"ZPOPMIN", "nokey"}, {"LMPOP", "1", "nokey", "LEFT"}, {"SMOVE", "s", "s2", "y"},
			{"RENAMENX", "s", "h"}, {"MOVE", "s", "1"}, {"COPY", "s", "h"}, {"MSETNX", "h", "1", "new", "2"},
			{"GETEX", "nokey", "EX", "10"}, {"EXPIRE", "h", "100", "GT"}, {"LREM", "l", "0", "x"}},
		"pops": {{"RPUSH", "l", "a", "b", "c", "d", "e"}, {"LMPOP", "1", "l", "LEFT"}, {"LMPOP", "2", "x", "l", "RIGHT", "COUNT", "2"},
			{"LMPOP", "1", "l", "LEFT", "COUNT", "10"}, {"RPUSH", "l", "a", "b"}, {"BLPOP", "l", "0"}, {"BRPOP", "l", "0"},
			{"RPUSH", "l", "a", "b"}, {"BLMOVE", "l", "l2", "LEFT", "RIGHT", "0"}, {"BRPOPLPUSH", "l", "l2", "0"},
			{"BLMPOP", "0", "1", "l2", "LEFT", "COUNT", "5"}, {"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"},
			{"BZPOPMIN", "z", "0"}, {"BZPOPMAX", "z", "0"}, {"ZMPOP", "1", "z", "MIN"}, {"BZMPOP", "0", "1", "z", "MAX", "COUNT", "3"},
			{"SADD", "s", "a", "b", "c"}, {"SPOP", "s", "5"}, {"HSET", "h", "a", "1"}, {"HINCRBY", "h", "a", "1"}},
		"served when blocked": {{"bg", "BLPOP", "l", "l2", "0"}, {"RPUSH", "l2", "a", "b"}, {"bg", "BLMPOP", "0", "1", "l2", "RIGHT"},
			{"RPUSH", "l2", "c"}, {"bg", "BZMPOP", "0", "2", "z", "z2", "MIN", "COUNT", "2"}, {"ZADD", "z2", "1", "a"},
			{"bg", "BLMOVE", "m", "l", "LEFT", "LEFT", "0"}, {"LPUSH", "m", "x"}},
		"hgetdel": {{"HSET", "k", "f1", "v1", "f2", "v2", "f3", "v3", "f4", "v4"}, {"HGETDEL", "k", "FIELDS", "1", "f1"},
			{"HGETDEL", "k", "FIELDS", "2", "f7", "f8"}, {"HGETDEL", "k", "FIELDS", "3", "f2", "f3", "f6"}},
		"restore": {{"SET", "k", "v"}, {"RESTORE", "k2", "0", dump}, {"RESTORE", "k", ago, dump, "REPLACE", "ABSTTL"},
			{"RESTORE", "k3", ago, dump, "ABSTTL"}, {"RESTORE", "k4", "100000", dump}},
		"expired key a blocked client waits for": {{"DEBUG", "SET-ACTIVE-EXPIRE", "0"}, {"SELECT", "1"},
			{"RPUSH", "k", "hello"}, {"PEXPIRE", "k", "100"}, {"bg", "BRPOP", "k", "1"}, {"sleep", "101"},
			{"SWAPDB", "0", "1"}, {"SET", "somekey", "1"}, {"SELECT", "0"}, {"EXISTS", "k"},
			{"DEBUG", "SET-ACTIVE-EXPIRE", "1"}},
		"multi of publish, scripts": {{"MULTI"}, {"PUBLISH", "ch", "m"}, {"EXEC"}, {"MULTI"}, {"SCRIPT", "LOAD", "return 1"},
			{"SET", "foo", "bar"}, {"EXEC"}, {"MULTI"}, {"EVAL", "redis.call('set', KEYS[1], 'bar')", "1", "bar"}, {"EXEC"},
			{"MULTI"}, {"SCRIPT", "FLUSH"}, {"SET", "foo", "baz"}, {"EXEC"}},
		"multi of xreadgroup": {{"XADD", "s", "1-1", "f", "v"}, {"XADD", "s", "1-2", "f", "v"}, {"XGROUP", "CREATE", "s", "g", "0"},
			{"MULTI"}, {"XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"},
			{"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">"}, {"EXEC"}},
		"scripts": {{"EVAL", "redis.call('set','a','1'); redis.call('incr','a'); redis.call('get','a')", "0"},
			{"EVAL", "return redis.call('get','a')", "0"}, {"EVAL", "redis.call('expire','a',100)", "0"},
			{"SADD", "s", "x"}, {"EVAL", "return redis.call('spop','s')", "0"}, {"EVAL", "redis.call('del','nokey')", "0"},
			{"FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function(k) return redis.call('incr', k[1]) end)"},
			{"FCALL", "f", "1", "c"}, {"FUNCTION", "DELETE", "lib"}},
		"keyspace": {{"MSET", "a", "1", "b", "2"}, {"MSETNX", "c", "1"}, {"RENAME", "a", "d"}, {"COPY", "d", "e"},
			{"SELECT", "2"}, {"SET", "x", "1"}, {"SWAPDB", "2", "3"}, {"MOVE", "x", "4"}, {"SELECT", "0"}, {"FLUSHDB"},
			{"SET", "y", "1"}, {"FLUSHALL"}, {"SET", "t", "1", "EX", "100"}, {"PERSIST", "t"}, {"TOUCH", "t"}},
		// A consumer created by a read or claim of nothing is sent as XGROUP
		// CREATECONSUMER, where Redis sends nothing (docs/replication.md).
		"stream groups": {{"XADD", "s", "1-1", "f", "v"}, {"XGROUP", "CREATE", "s", "g", "$"},
			{"XREADGROUP", "GROUP", "g", "c2", "NOACK", "STREAMS", "s", ">"},
			{"XADD", "s", "1-2", "f", "v"}, {"XREADGROUP", "GROUP", "g", "c3", "STREAMS", "s", ">"},
			{"XCLAIM", "s", "g", "c5", "0", "1-2"}, {"XAUTOCLAIM", "s", "g", "c6", "0", "0"}, {"XACK", "s", "g", "1-2"},
			{"XGROUP", "DELCONSUMER", "s", "g", "c2"}},
		"lazyfree": {{"CONFIG", "SET", "lazyfree-lazy-server-del", "yes"}, {"CONFIG", "SET", "lazyfree-lazy-expire", "yes"},
			{"SADD", "s", "a", "b"}, {"SPOP", "s", "2"}, {"SET", "k", "v"}, {"RESTORE", "k", ago, dump, "REPLACE", "ABSTTL"},
			{"SET", "k", "v"}, {"GETEX", "k", "PXAT", ago}, {"SET", "k", "v"}, {"EXPIRE", "k", "-1"},
			{"CONFIG", "SET", "lazyfree-lazy-server-del", "no"}, {"CONFIG", "SET", "lazyfree-lazy-expire", "no"},
			{"SADD", "s", "a", "b"}, {"SPOP", "s", "3"}},
		"multi of one write": {{"MULTI"}, {"SET", "a", "1"}, {"GET", "a"}, {"EXEC"}},
		"getset":             {{"SET", "a", "1"}, {"GETSET", "a", "2"}, {"GETSET", "b", "3"}},
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			want, got := streamOf(t, red, script), streamOf(t, hot, script)
			t.Logf("%q", want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("stream of %q:\nhotkv: %q\nredis: %q", script, got, want)
			}
		})
	}
}

// twoClientStep is a command that client 0 or client 1 sends.
type twoClientStep struct {
	client int
	cmd    []string
}

// differTwoClients sends steps to Redis and to HotKV, two clients on each,
// and compares the replies.
func differTwoClients(t *testing.T, steps []twoClientStep) {
	t.Helper()
	if harness.RedisServerPath() == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	red, _ := startRedisWith(t, t.TempDir())
	replies := func(s *harness.Server) []any {
		c := []*harness.Conn{s.Raw(t), s.Raw(t)}
		var out []any
		for _, st := range steps {
			out = append(out, c[st.client].Do(st.cmd...))
		}
		return out
	}
	want, got := replies(red), replies(harness.Start(t))
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("replies:\nhotkv: %q\nredis: %q", got, want)
	}
}

// min-replicas-to-write refuses what Redis refuses: EXEC of a transaction
// with a write queued before the setting changed, a script declared to
// write, and a write called from a script without flags.
func TestNoReplicasMatchesRedis(t *testing.T) {
	differTwoClients(t, []twoClientStep{
		{0, []string{"SET", "x", "1"}}, {0, []string{"MULTI"}}, {0, []string{"INCR", "x"}},
		{1, []string{"CONFIG", "SET", "min-replicas-to-write", "2"}}, {0, []string{"EXEC"}},
		{0, []string{"GET", "x"}}, {0, []string{"MULTI"}}, {0, []string{"GET", "x"}}, {0, []string{"EXEC"}},
		{0, []string{"EVAL", "#!lua flags=no-writes\nreturn redis.call('get','x')", "1", "x"}},
		{0, []string{"EVAL", "return redis.call('get','x')", "1", "x"}},
		{0, []string{"EVAL", "#!lua\nreturn redis.call('get','x')", "1", "x"}},
		{0, []string{"EVAL", "return redis.call('set','x',1)", "1", "x"}},
		{0, []string{"CONFIG", "SET", "min-replicas-to-write", "0"}},
	})
}

// replica-serve-stale-data no: a replica whose link is down refuses what
// Redis refuses, EXEC of what was queued before the link went down too.
func TestServeStaleMatchesRedis(t *testing.T) {
	differTwoClients(t, []twoClientStep{
		{0, []string{"CONFIG", "SET", "replica-serve-stale-data", "no"}}, {0, []string{"SET", "x", "1"}},
		{0, []string{"MULTI"}}, {0, []string{"GET", "x"}}, {1, []string{"REPLICAOF", "127.0.0.1", "1"}}, {0, []string{"EXEC"}},
		{0, []string{"GET", "x"}}, {0, []string{"PING"}}, {0, []string{"CONFIG", "GET", "replica-serve-stale-data"}},
		{0, []string{"MULTI"}}, {0, []string{"PING"}}, {0, []string{"EXEC"}},
		{0, []string{"MULTI"}}, {1, []string{"REPLICAOF", "NO", "ONE"}}, {0, []string{"GET", "x"}}, {0, []string{"EXEC"}},
		{0, []string{"CONFIG", "SET", "replica-serve-stale-data", "yes"}},
	})
}

// TestSpopStreamBatches: SPOP with a count reaches replicas (and the log)
// as Redis 8.0.2 sends it, SREMs of up to 1024 members in one transaction
// (Redis's replication-4 "spopwithcount rewrite srem command"); HotKV sent
// one SREM of them all.
func TestSpopStreamBatches(t *testing.T) {
	s := harness.Start(t)
	sadd := []string{"SADD", "s"}
	for i := range 2500 {
		sadd = append(sadd, strconv.Itoa(i))
	}
	var shape []string
	for _, cmd := range streamOf(t, s, [][]string{sadd, {"SPOP", "s", "2049"}, {"SPOP", "s", "1"}}) {
		switch f := strings.Fields(cmd); f[0] {
		case "srem":
			shape = append(shape, "srem:"+strconv.Itoa(len(f)-2))
		case "multi", "exec":
			shape = append(shape, f[0])
		}
	}
	if got := strings.Join(shape, " "); got != "multi srem:1024 srem:1024 srem:1 exec srem:1" {
		t.Errorf("the stream of SPOP s 2049, SPOP s 1: %s", got)
	}
}
