package differential

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Differential tests send the same commands to HotKV and to a real Redis
// 8.0.2 and require identical replies. Redis comes from
// ../shared/peers/install.sh (HOTKV_PEERS_DIR, default ~/.hotkv-peers);
// without it these tests skip.

func TestDifferentialBitmapsAndHLL(t *testing.T) {
	script := [][]string{
		{"SETBIT", "b", "7", "1"}, {"SETBIT", "b", "100", "1"}, {"SETBIT", "b", "100", "0"}, {"GET", "b"},
		{"SETBIT", "b", "-1", "1"}, {"SETBIT", "b", "4294967296", "1"}, {"SETBIT", "b", "1", "2"},
		{"GETBIT", "b", "7"}, {"GETBIT", "b", "99999"}, {"GETBIT", "nokey", "1"}, {"GETBIT", "b", "x"},
		{"SET", "s", "foobar"}, {"BITCOUNT", "s"}, {"BITCOUNT", "s", "0", "0"}, {"BITCOUNT", "s", "1", "1"},
		{"BITCOUNT", "s", "1", "1", "BYTE"}, {"BITCOUNT", "s", "5", "30", "BIT"}, {"BITCOUNT", "s", "-2", "-1"},
		{"BITCOUNT", "s", "-1", "-2"}, {"BITCOUNT", "s", "0"}, {"BITCOUNT", "s", "0", "1", "FOO"}, {"BITCOUNT", "nokey"},
		{"BITCOUNT", "s", "a", "1"}, {"BITCOUNT", "nokey", "0", "x"}, {"SET", "w", "x"}, {"BITPOS", "nokey", "1", "x"},
		{"SET", "p", "\xff\xf0\x00"}, {"BITPOS", "p", "0"}, {"BITPOS", "p", "1"}, {"BITPOS", "p", "1", "2"},
		{"BITPOS", "p", "0", "0", "0"}, {"BITPOS", "p", "0", "0", "-1"}, {"BITPOS", "p", "1", "7", "15", "BIT"},
		{"BITPOS", "p", "0", "7", "15", "BIT"}, {"BITPOS", "p", "2"}, {"BITPOS", "nokey", "0"}, {"BITPOS", "nokey", "1"},
		{"SET", "ones", "\xff\xff"}, {"BITPOS", "ones", "0"}, {"BITPOS", "ones", "0", "0", "-1"}, {"BITPOS", "ones", "0", "1"},
		{"BITPOS", "p", "1", "2", "1"}, {"BITPOS", "p", "0", "1", "2", "BYTE", "x"},
		{"SET", "k1", "foobar"}, {"SET", "k2", "abcdef"}, {"BITOP", "AND", "dest", "k1", "k2"}, {"GET", "dest"},
		{"BITOP", "OR", "dest", "k1", "k2", "nokey"}, {"GET", "dest"}, {"BITOP", "XOR", "dest", "k1", "k2"}, {"GET", "dest"},
		{"BITOP", "NOT", "dest", "k1"}, {"GET", "dest"}, {"BITOP", "NOT", "dest", "k1", "k2"}, {"BITOP", "NAND", "dest", "k1"},
		{"BITOP", "AND", "dest", "nokey", "nokey2"}, {"EXISTS", "dest"},
		{"BITFIELD", "bf", "SET", "i8", "0", "100", "GET", "i8", "0", "INCRBY", "i8", "0", "100", "GET", "u4", "#1"},
		{"BITFIELD", "bf", "OVERFLOW", "SAT", "INCRBY", "i8", "0", "-1000", "INCRBY", "u8", "8", "1000"},
		{"BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "i8", "0", "-1000", "SET", "u2", "100", "7"},
		{"BITFIELD", "bf", "OVERFLOW", "WRAP", "INCRBY", "u8", "8", "300", "SET", "i64", "64", "-1", "GET", "i64", "64"},
		{"BITFIELD", "bf", "INCRBY", "i64", "64", "-9223372036854775807", "INCRBY", "i64", "64", "-1"},
		{"BITFIELD", "bf", "SET", "u63", "0", "-5", "GET", "u63", "0", "SET", "i3", "#3", "9", "GET", "i3", "#3"},
		{"BITFIELD", "bf", "GET", "u64", "0"}, {"BITFIELD", "bf", "GET", "i65", "0"}, {"BITFIELD", "bf", "GET", "i8", "-1"},
		{"BITFIELD", "bf", "OVERFLOW", "X", "GET", "i8", "0"}, {"BITFIELD", "bf", "FOO"}, {"BITFIELD", "bf", "SET", "i8", "0", "x"},
		{"BITFIELD", "nokey", "GET", "i8", "0"}, {"EXISTS", "nokey"}, {"BITFIELD", "bf"},
		{"BITFIELD_RO", "bf", "GET", "u8", "0"}, {"BITFIELD_RO", "bf", "SET", "u8", "0", "1"},
		{"PFADD", "h", "a", "b", "c"}, {"GET", "h"}, {"PFCOUNT", "h"}, {"GET", "h"}, {"PFADD", "h", "a"}, {"PFADD", "h"},
		{"PFADD", "h2"}, {"GET", "h2"}, {"PFCOUNT", "h", "h2", "nokey"}, {"PFMERGE", "h3", "h", "h2"}, {"GET", "h3"},
		{"PFADD", "s", "x"}, {"PFCOUNT", "s"}, {"PFMERGE", "s", "h"},
	}
	// A larger HLL crosses from sparse to dense along the way.
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 40; i++ {
		cmd := []string{"PFADD", "big"}
		for j := 0; j < 50; j++ {
			cmd = append(cmd, strconv.Itoa(r.IntN(1000000)))
		}
		script = append(script, cmd, []string{"PFCOUNT", "big"})
	}
	script = append(script, []string{"GET", "big"}, []string{"PFMERGE", "m", "big", "h"}, []string{"GET", "m"}, []string{"PFCOUNT", "m", "h"})
	harness.Differ(t, script)
}

// TestDifferentialBitfieldRandom compares random BITFIELD operations.
func TestDifferentialBitfieldRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var script [][]string
	over := []string{"WRAP", "SAT", "FAIL"}
	for i := 0; i < 400; i++ {
		typ := fmt.Sprintf("%c%d", "iu"[r.IntN(2)], 1+r.IntN(63))
		off := strconv.Itoa(r.IntN(200))
		v := strconv.FormatInt(r.Int64N(1<<62)-(1<<61)>>uint(r.IntN(62)), 10)
		switch r.IntN(3) {
		case 0:
			script = append(script, []string{"BITFIELD", "f", "OVERFLOW", over[r.IntN(3)], "INCRBY", typ, off, v})
		case 1:
			script = append(script, []string{"BITFIELD", "f", "OVERFLOW", over[r.IntN(3)], "SET", typ, off, v})
		default:
			script = append(script, []string{"BITFIELD", "f", "GET", typ, off})
		}
	}
	script = append(script, []string{"GET", "f"})
	harness.Differ(t, script)
}

func TestDifferentialStringsAndKeys(t *testing.T) {
	harness.Differ(t, [][]string{
		{"SET", "a", "1"}, {"SET", "a", "2", "NX"}, {"SET", "a", "3", "XX", "GET"}, {"SET", "a", "4", "EX", "0"},
		{"SET", "a", "4", "EX", "10", "PX", "5"}, {"SET", "a", "5", "KEEPTTL", "EX", "1"}, {"SET", "b", "x", "PXAT", "1"}, {"EXISTS", "b"},
		{"SETNX", "a", "9"}, {"SETEX", "e", "-1", "v"}, {"PSETEX", "e", "100000", "v"}, {"TTL", "e"}, {"PERSIST", "e"}, {"TTL", "e"},
		{"MSET", "k1", "v1", "k2"}, {"MSET", "k1", "v1", "k2", "v2"}, {"MGET", "k1", "k2", "nokey"}, {"MSETNX", "k1", "x", "k3", "y"},
		{"GETSET", "k1", "n"}, {"GETDEL", "k1"}, {"GETDEL", "k1"}, {"GETEX", "k2", "PERSIST"}, {"GETEX", "k2", "EX", "-5"},
		{"APPEND", "ap", "hello"}, {"APPEND", "ap", " world"}, {"STRLEN", "ap"}, {"GETRANGE", "ap", "-5", "-1"}, {"GETRANGE", "ap", "5", "1"},
		{"SETRANGE", "ap", "6", "W"}, {"SETRANGE", "ap", "-1", "x"}, {"SETRANGE", "new", "3", "abc"}, {"GET", "new"}, {"SUBSTR", "ap", "0", "4"},
		{"INCR", "n1"}, {"INCRBY", "n1", "41"}, {"DECR", "n1"}, {"DECRBY", "n1", "-10"}, {"INCR", "ap"}, {"SET", "big", "9223372036854775807"},
		{"INCR", "big"}, {"INCRBY", "n1", "1.5"}, {"SET", "sp", " 1"}, {"INCR", "sp"}, {"SET", "lz", "01"}, {"INCR", "lz"},
		{"INCRBYFLOAT", "f", "0.1"}, {"INCRBYFLOAT", "f", "0.2"}, {"INCRBYFLOAT", "f", "1e3"}, {"INCRBYFLOAT", "f", "abc"},
		{"INCRBYFLOAT", "f", "5.0e3"}, {"INCRBYFLOAT", "f", "-5010.3"}, {"GET", "f"}, {"INCRBYFLOAT", "f", "inf"},
		{"SET", "l1", "ohmytext"}, {"SET", "l2", "mynewtext"}, {"LCS", "l1", "l2"}, {"LCS", "l1", "l2", "LEN"},
		{"LCS", "l1", "l2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"},
		{"DEL", "a", "a", "nokey"}, {"UNLINK", "k2"}, {"EXISTS", "ap", "ap", "nokey"}, {"TYPE", "ap"}, {"TYPE", "nokey"},
		{"RENAME", "nokey", "x"}, {"RENAME", "ap", "ap2"}, {"RENAMENX", "ap2", "new"}, {"RENAMENX", "ap2", "ap3"}, {"GET", "ap3"},
		{"COPY", "ap3", "c1"}, {"COPY", "ap3", "c1"}, {"COPY", "ap3", "c1", "REPLACE"}, {"COPY", "ap3", "c9", "DB", "99"},
		{"MOVE", "c1", "1"}, {"MOVE", "c1", "1"}, {"SELECT", "1"}, {"GET", "c1"}, {"SELECT", "0"}, {"MOVE", "c1", "0"},
		{"SWAPDB", "0", "1"}, {"GET", "c1"}, {"SWAPDB", "0", "1"}, {"SWAPDB", "0", "99"},
		{"EXPIRE", "ap3", "100"}, {"EXPIRE", "ap3", "50", "GT"}, {"EXPIRE", "ap3", "50", "LT"}, {"TTL", "ap3"}, {"EXPIRE", "ap3", "10", "NX"},
		{"EXPIRE", "ap3", "10", "NX", "XX"}, {"EXPIRE", "ap3", "10", "GT", "LT"}, {"EXPIRE", "ap3", "10", "FOO"},
		{"EXPIRE", "ap3", "9223372036854775807"}, {"PEXPIREAT", "ap3", "1"}, {"EXISTS", "ap3"}, {"TTL", "nokey"}, {"PTTL", "new"},
		{"EXPIRETIME", "new"}, {"EXPIREAT", "new", "4102444800"}, {"EXPIRETIME", "new"}, {"PEXPIRETIME", "new"}, {"PERSIST", "new"},
		{"SADD", "st", "1", "2"}, {"OBJECT", "ENCODING", "st"}, {"SET", "i", "12345"},
		{"OBJECT", "ENCODING", "i"}, {"OBJECT", "ENCODING", "nokey"}, {"OBJECT", "FREQ", "i"}, {"OBJECT", "FOO", "i"},
		{"KEYS", "n1*"}, {"DBSIZE"}, {"SCAN", "x"}, {"FLUSHDB", "FOO"}, {"FLUSHDB"}, {"DBSIZE"}, {"RANDOMKEY"},
		{"ROLE"}, {"ROLE", "x"},
	})
}

// TestDifferentialScanOptions covers the option parser SCAN, HSCAN, SSCAN
// and ZSCAN share: which options each accepts, their order against the key
// lookup, and the errors.
func TestDifferentialScanOptions(t *testing.T) {
	var script [][]string
	script = append(script, []string{"HSET", "h", "a", "1"}, []string{"SADD", "s", "a"}, []string{"ZADD", "z", "1", "a"})
	for _, c := range []string{"HSCAN", "SSCAN", "ZSCAN"} {
		for _, key := range []string{"h", "s", "z", "missing"} {
			for _, opts := range [][]string{{}, {"NOVALUES"}, {"TYPE", "string"}, {"COUNT", "0"}, {"COUNT", "x"},
				{"COUNT"}, {"MATCH"}, {"MATCH", "*", "COUNT", "5"}, {"match", "b*"}, {"FOO"}} {
				script = append(script, append([]string{c, key, "0"}, opts...))
			}
			script = append(script, []string{c, key, "x"})
		}
	}
	for _, opts := range [][]string{{"TYPE", "hash"}, {"TYPE", "nosuch"}, {"NOVALUES"}, {"COUNT", "-1"}, {"MATCH", "?", "TYPE"}} {
		script = append(script, append([]string{"SCAN", "0"}, opts...))
	}
	harness.Differ(t, script)
}

// TestDifferentialZAddAndHashRandom runs random ZADD (every option
// combination, members moving, new and old), ZINCRBY, ZREM, HSET, HINCRBY
// and HDEL against both servers, reading back ranges, scores and fields
// as it goes: the sorted-set and hash storage beneath them (members reused
// from the set's own strings, values stored after their fields, leaves
// spilling into neighbours) must answer exactly as Redis.
func TestDifferentialZAddAndHashRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	opts := []string{"NX", "XX", "GT", "LT", "CH", "INCR"}
	member := func() string { return "m" + strconv.Itoa(r.IntN(300)) }
	score := func() string { return strconv.Itoa(r.IntN(100) - 50) }
	var script [][]string
	for i := 0; i < 3000; i++ {
		z, h := "z"+strconv.Itoa(r.IntN(2)), "h"+strconv.Itoa(r.IntN(2))
		switch r.IntN(9) {
		case 0, 1, 2:
			cmd := []string{"ZADD", z}
			for _, o := range opts {
				if r.IntN(4) == 0 {
					cmd = append(cmd, o)
				}
			}
			for n := 1 + r.IntN(3); n > 0; n-- {
				cmd = append(cmd, score(), member())
			}
			script = append(script, cmd)
		case 3:
			script = append(script, []string{"ZINCRBY", z, score(), member()}, []string{"ZREM", z, member(), member()})
		case 4:
			script = append(script, []string{"ZRANGE", z, strconv.Itoa(r.IntN(300)), strconv.Itoa(r.IntN(300)), "WITHSCORES"},
				[]string{"ZSCORE", z, member()}, []string{"ZRANK", z, member(), "WITHSCORE"})
		case 5, 6:
			cmd := []string{"HSET", h}
			for n := 1 + r.IntN(3); n > 0; n-- {
				cmd = append(cmd, member(), strings.Repeat("v", r.IntN(80)))
			}
			script = append(script, cmd)
		case 7:
			script = append(script, []string{"HINCRBY", h, member(), score()}, []string{"HDEL", h, member(), member()})
		default:
			script = append(script, []string{"HGET", h, member()}, []string{"HSTRLEN", h, member()},
				[]string{"HLEN", h}, []string{"HEXISTS", h, member()})
		}
	}
	for _, k := range []string{"z0", "z1"} {
		script = append(script, []string{"ZRANGE", k, "0", "-1", "WITHSCORES"}, []string{"ZCARD", k})
	}
	for _, k := range []string{"h0", "h1"} {
		for i := range 300 {
			script = append(script, []string{"HGET", k, "m" + strconv.Itoa(i)})
		}
	}
	harness.Differ(t, script)
}
