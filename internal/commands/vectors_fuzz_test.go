package commands

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/cmdtable"
)

// vecFuzzCmds are the commands whose argument parsing the fuzz target drives.
var vecFuzzCmds = []string{"VADD", "VSIM", "VSIM.SEARCH", "VSIM.SET", "VSIM.MSET"}

// FuzzVectorArgs runs VADD, VSIM, VSIM.SEARCH, VSIM.SET and VSIM.MSET with
// arbitrary arguments (the input split on spaces, its first byte picking the
// command) against a small vector set and a named index. No input may
// panic; every reply must be one well-formed RESP value; a command that
// answers an error must leave the set and the index as they were.
func FuzzVectorArgs(f *testing.F) {
	for _, s := range []string{
		"\x00s VALUES 3 1 0 0 e NOQUANT", "\x00t REDUCE 2000000000 VALUES 3 1 0 0 e", "\x00s REDUCE 2 VALUES 3 1 0 0 e", "\x00s FP32 abcdabcdabcd e CAS EF 10 M 16 SETATTR {\"a\":1}",
		"\x01s ELE a WITHSCORES WITHATTRIBS COUNT 2 EPSILON 0.5 EF 10 FILTER .a>1 FILTER-EF 3 TRUTH NOTHREAD",
		"\x01s VALUES 3 1 nan 0", "\x02ix VALUES 3 1 0 0 K 2 EF 10 FILTER .x==1 WITHATTRIBS", "\x02ix FP32 abc",
		"\x03ix id VALUES 3 0 0 0 ATTRS {}", "\x04ix VALUES 3 a 1 2 3 b 4 5 6", "\x04ix FP32 a abcdabcdabcd",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) == 0 {
			return
		}
		k := newStrKV(2 + int(in[0]>>7))
		k.do(t, "VADD", "s", "VALUES", "3", "1", "0", "0", "a", "SETATTR", `{"a":2}`)
		k.do(t, "VADD", "s", "VALUES", "3", "0", "1", "0", "b")
		k.do(t, "VSIM.CREATEINDEX", "ix", "DIM", "3")
		k.do(t, "VSIM.MSET", "ix", "VALUES", "3", "a", "1", "0", "0", "b", "0", "1", "0")
		name := vecFuzzCmds[int(in[0]&0x7f)%len(vecFuzzCmds)]
		args := append([]string{name}, strings.Split(in[1:], " ")...)
		if len(args) > 1 && args[1] == "" {
			args = args[:1]
		}
		cmd := cmdtable.Lookup([]byte(name))
		k.x.Args = k.argv(args)
		k.x.W.B = k.x.W.B[:0]
		before := k.vecState(t)
		if cmd.CheckArity(len(args)) {
			cmd.Run(k.x)
			if after := k.x.After; after != nil {
				k.x.After = nil
				after()
			}
		} else {
			k.x.W.Error(cmdtable.WrongArgs(name))
		}
		out := append([]byte(nil), k.x.W.B...)
		if n, ok := vecReplyLen(out); !ok || n != len(out) {
			t.Fatalf("%q: not one well-formed reply: %q", args, out)
		}
		if out[0] == '-' {
			if after := k.vecState(t); after != before {
				t.Fatalf("%q failed (%q) but changed the data: %s -> %s", args, out, before, after)
			}
		}
	})
}

// vecState summarises the fuzzed set and index.
func (k *strKV) vecState(t *testing.T) string {
	x, w := k.x, k.x.W.B
	defer func() { k.x, k.x.W.B = x, w }()
	return k.do(t, "VCARD", "s") + k.do(t, "VSIM.SEARCH", "ix", "VALUES", "3", "1", "1", "1", "K", "100") + k.do(t, "VGETATTR", "s", "a") + k.do(t, "VSIM.GET", "ix", "a")
}

// vecReplyLen returns the length of the RESP2/RESP3 value at the start of b.
func vecReplyLen(b []byte) (int, bool) {
	eol := bytes.Index(b, []byte("\r\n"))
	if len(b) == 0 || eol < 0 {
		return 0, false
	}
	line, n := string(b[1:eol]), eol+2
	switch b[0] {
	case '+', '-', ':', ',', '_', '#':
		return n, true
	case '$', '=':
		l, err := strconv.Atoi(line)
		if err != nil || l < -1 {
			return 0, false
		}
		if l == -1 {
			return n, true
		}
		if len(b) < n+l+2 || string(b[n+l:n+l+2]) != "\r\n" {
			return 0, false
		}
		return n + l + 2, true
	case '*', '~', '%', '>':
		l, err := strconv.Atoi(line)
		if err != nil || l < -1 {
			return 0, false
		}
		if b[0] == '%' {
			l *= 2
		}
		for range max(l, 0) {
			m, ok := vecReplyLen(b[n:])
			if !ok {
				return 0, false
			}
			n += m
		}
		return n, true
	}
	return 0, false
}
