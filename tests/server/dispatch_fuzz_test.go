package server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/tests/internal/harness"
)

// fuzzSkip are commands a fuzzer must not run against a shared server: they
// stop it, sleep, close or pause connections, change global settings, block
// (the blocking ones come from other command families, if present), cost
// a full collection each (MEMORY PURGE) or half a second (PFSELFTEST),
// connect to whatever host their arguments name (MIGRATE), or run scripts.
var fuzzSkip = map[string]bool{
	"shutdown": true, "debug": true, "quit": true, "monitor": true, "sync": true, "psync": true,
	"config|set": true, "client|kill": true, "client|pause": true, "client|reply": true,
	"blpop": true, "brpop": true, "brpoplpush": true, "blmove": true, "blmpop": true, "bzpopmin": true,
	"bzpopmax": true, "bzmpop": true, "xread": true, "xreadgroup": true, "wait": true, "waitaof": true,
	"save": true, "bgsave": true, "bgrewriteaof": true, "failover": true, "replicaof": true, "slaveof": true,
	"memory|purge": true, "pfselftest": true, "migrate": true,
	// Scripts are code: a loop that never ends would stall the shared server.
	"eval": true, "evalsha": true, "eval_ro": true, "evalsha_ro": true,
}

// fuzzCommands is every command and subcommand of the table, as the words
// that name it.
func fuzzCommands() [][]string {
	var out [][]string
	for _, c := range cmdtable.All() {
		if len(c.Subs) == 0 || c.Run != nil {
			if !fuzzSkip[c.Name] {
				out = append(out, []string{c.Name})
			}
		}
		for _, sc := range c.Subs {
			if !fuzzSkip[sc.Name] {
				out = append(out, []string{c.Name, sc.Name[len(c.Name)+1:]})
			}
		}
	}
	return out
}

// FuzzDispatch sends random command lines, built from the real command
// table's names plus random arguments, to a real server. Whatever the reply,
// the server must not panic (INFO's recovered_panics stays 0) and the
// connection must stay usable: RESET then ECHO of a nonce must come back.
func FuzzDispatch(f *testing.F) {
	cmds := fuzzCommands()
	for i := range cmds {
		for _, args := range []string{"", "x", "0\x00-1", "*\x00?\x00[a-", "9223372036854775808\x001\x002\x003", "\x00\xff\r\n", "a\x00b\x00c\x00d\x00e\x00f\x00g\x00h"} {
			f.Add(uint16(i), []byte(args))
		}
	}
	conn, br := fuzzConn(f)
	f.Fuzz(func(t *testing.T, which uint16, argBytes []byte) {
		words := append([]string(nil), cmds[int(which)%len(cmds)]...)
		if len(argBytes) > 0 {
			args := strings.Split(string(argBytes), "\x00")
			if len(args) > 8 {
				args = args[:8]
			}
			words = append(words, args...)
		}
		harness.RunChecked(t, conn, br, harness.Req(words...), words)
	})
}

// fuzzConn starts a server and opens the one connection a fuzz target
// drives.
func fuzzConn(f *testing.F) (net.Conn, *bufio.Reader) {
	s := harness.Start(f)
	conn, err := net.Dial("tcp", s.Addr)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { conn.Close() })
	return conn, bufio.NewReader(conn)
}

// FuzzPipelined sends three random command lines in one write, so that the
// server parses them as one batch and prefetches their keys and members
// before running any (internal/server/prefetch.go), and then checks the
// server as FuzzDispatch does. The seeds name the same key in all three so
// that batches mix types on one key: a set command prefetching the members
// of a hash, a run on one key that deletes it half way.
func FuzzPipelined(f *testing.F) {
	cmds := fuzzCommands()
	index := map[string]uint16{}
	for i, c := range cmds {
		index[strings.Join(c, " ")] = uint16(i)
	}
	seeds := [][3]string{
		{"sadd", "hset", "sismember"},
		{"hset", "sadd", "hget"},
		{"lpush", "del", "rpop"},
		{"zadd", "zincrby", "zscore"},
		{"set", "incr", "getdel"},
		{"hset", "hexpire", "hget"},
		{"sadd", "rename", "smismember"},
	}
	for _, s := range seeds {
		f.Add(index[s[0]], index[s[1]], index[s[2]], []byte("k\x001\x00f\x01k\x00f\x00v\x01k\x00f\x00g"))
	}
	conn, br := fuzzConn(f)
	f.Fuzz(func(t *testing.T, a, b, c uint16, argBytes []byte) {
		groups := strings.SplitN(string(argBytes), "\x01", 3)
		var batch strings.Builder
		var sent [][]string
		for i, which := range []uint16{a, b, c} {
			words := append([]string(nil), cmds[int(which)%len(cmds)]...)
			if i < len(groups) && groups[i] != "" {
				args := strings.Split(groups[i], "\x00")
				words = append(words, args[:min(len(args), 8)]...)
			}
			sent = append(sent, words)
			batch.WriteString(harness.Req(words...))
		}
		harness.RunChecked(t, conn, br, batch.String(), sent)
	})
}

// FuzzStream writes arbitrary bytes to a fresh connection in two writes
// (RESP, inline commands, empty lines, garbage, cut anywhere), half-closes
// it and reads until the server closes its side. Whatever the replies, the
// server must not panic. Inputs naming a command FuzzDispatch skips (or
// CONFIG) are skipped, since the bytes can spell any command.
func FuzzStream(f *testing.F) {
	for _, seed := range []string{
		"\r\nPING\r\n",
		harness.Req("SET", "a", "1") + "\r\n\r\n" + harness.Req("SET", "b", "2") + harness.Req("GET", "a"),
		harness.Req("SET", "k1", "x") + harness.Req("SET", "k2", "y") + "\r\n" + harness.Req("ECHO", "0123456789abcdefghij"),
		"SET a 1\r\nSET b \"xyz\r\n",
		harness.Req("SADD", "s", "m") + "HSET s f v\r\n" + harness.Req("SISMEMBER", "s", "m") + "*2\r\n$3\r\nGET\r\n$1",
		"*1\r\n$4\r\nPING\r\n*-1\r\n*0\r\n\n\n  \r\nECHO 'a b'\r\n",
	} {
		f.Add([]byte(seed), uint16(len(seed)/2))
	}
	s := harness.Start(f)
	skip := []string{"config"}
	for name := range fuzzSkip {
		skip = append(skip, strings.ReplaceAll(name, "|", " "))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		lower := strings.ToLower(string(data))
		for _, name := range skip {
			if strings.Contains(lower, name) {
				t.Skip()
			}
		}
		conn, err := net.Dial("tcp", s.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		at := int(cut) % (len(data) + 1)
		conn.Write(data[:at])
		conn.Write(data[at:])
		conn.(*net.TCPConn).CloseWrite()
		// A close with input left unread (after a protocol error) is a
		// reset, as from Redis.
		got, err := io.ReadAll(conn)
		t.Logf("at %d got %q", at, got)
		if err != nil && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("the server did not close the connection: %v", err)
		}
		c, err := net.Dial("tcp", s.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		harness.RunChecked(t, c, bufio.NewReader(c), "", data)
	})
}
