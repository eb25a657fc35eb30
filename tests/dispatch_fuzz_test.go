package tests

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/command"
)

// fuzzSkip are commands a fuzzer must not run against a shared server: they
// stop it, sleep, close or pause connections, change global settings, or
// block (the blocking ones come from other command families, if present).
var fuzzSkip = map[string]bool{
	"shutdown": true, "debug": true, "quit": true, "monitor": true, "sync": true, "psync": true,
	"config|set": true, "client|kill": true, "client|pause": true, "client|reply": true,
	"blpop": true, "brpop": true, "brpoplpush": true, "blmove": true, "blmpop": true, "bzpopmin": true,
	"bzpopmax": true, "bzmpop": true, "xread": true, "xreadgroup": true, "wait": true, "waitaof": true,
	"save": true, "bgsave": true, "bgrewriteaof": true, "failover": true, "replicaof": true, "slaveof": true,
}

// fuzzCommands is every command and subcommand of the table, as the words
// that name it.
func fuzzCommands() [][]string {
	var out [][]string
	for _, c := range command.All() {
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
	s := start(f)
	conn, err := net.Dial("tcp", s.Addr)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { conn.Close() })
	br := bufio.NewReader(conn)
	f.Fuzz(func(t *testing.T, which uint16, argBytes []byte) {
		words := append([]string(nil), cmds[int(which)%len(cmds)]...)
		if len(argBytes) > 0 {
			args := strings.Split(string(argBytes), "\x00")
			if len(args) > 8 {
				args = args[:8]
			}
			words = append(words, args...)
		}
		nonceBytes := make([]byte, 8)
		rand.Read(nonceBytes)
		nonce := hex.EncodeToString(nonceBytes)
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Write([]byte(req(words...) + req("RESET") + req("ECHO", nonce) + req("INFO", "stats"))); err != nil {
			t.Fatalf("%q: write: %v", words, err)
		}
		for {
			v, err := readReply(br)
			if err != nil {
				t.Fatalf("%q: connection unusable: %v", words, err)
			}
			if v == nonce {
				break
			}
		}
		info, err := readReply(br)
		if err != nil {
			t.Fatalf("%q: INFO: %v", words, err)
		}
		if txt, _ := info.(string); !strings.Contains(txt, "recovered_panics:0\r\n") {
			t.Fatalf("%q: the server recovered from a panic (see its log)", words)
		}
	})
}
