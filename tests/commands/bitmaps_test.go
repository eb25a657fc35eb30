package commands

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Expected replies here are Redis 8.0.2's (the differential tests compare
// many more cases against a live Redis when one is installed).
func TestBitmapsAndHLL(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	for _, tc := range []struct {
		args []string
		want any
	}{
		{[]string{"SETBIT", "b", "7", "1"}, int64(0)},
		{[]string{"SETBIT", "b", "7", "0"}, int64(1)},
		{[]string{"SETBIT", "b", "15", "1"}, int64(0)},
		{[]string{"GET", "b"}, "\x00\x01"},
		{[]string{"GETBIT", "b", "15"}, int64(1)},
		{[]string{"SETBIT", "b", "4294967296", "1"}, harness.Err("ERR bit offset is not an integer or out of range")},
		{[]string{"SET", "s", "foobar"}, harness.Status("OK")},
		{[]string{"BITCOUNT", "s"}, int64(26)},
		{[]string{"BITCOUNT", "s", "1", "1"}, int64(6)},
		{[]string{"BITCOUNT", "s", "5", "30", "BIT"}, int64(17)},
		{[]string{"BITCOUNT", "s", "0"}, harness.Err("ERR syntax error")},
		{[]string{"SET", "p", "\xff\xf0\x00"}, harness.Status("OK")},
		{[]string{"BITPOS", "p", "0"}, int64(12)},
		{[]string{"BITPOS", "p", "1", "2"}, int64(-1)},
		{[]string{"SET", "ones", "\xff"}, harness.Status("OK")},
		{[]string{"BITPOS", "ones", "0"}, int64(8)},
		{[]string{"BITPOS", "ones", "0", "0", "-1"}, int64(-1)},
		// BITPOS clamps two negative ends to 0 where BITCOUNT answers 0.
		{[]string{"SET", "m", "-13"}, harness.Status("OK")},
		{[]string{"BITPOS", "m", "1", "-10", "-100"}, int64(2)},
		{[]string{"BITPOS", "m", "0", "-3", "-100"}, int64(0)},
		{[]string{"BITPOS", "m", "1", "-10", "-100", "BIT"}, int64(-1)},
		{[]string{"BITPOS", "m", "1", "-2", "-3"}, int64(-1)},
		{[]string{"BITCOUNT", "m", "-10", "-100"}, int64(0)},
		{[]string{"BITCOUNT", "m", "-100", "-100"}, int64(4)},
		// BITPOS reads the unit before the end, BITCOUNT after it.
		{[]string{"BITPOS", "m", "0", "1", "x", "FOO"}, harness.Err("ERR syntax error")},
		{[]string{"BITPOS", "nokey", "0", "1", "x", "FOO"}, harness.Err("ERR syntax error")},
		{[]string{"BITPOS", "m", "0", "x", "1", "FOO"}, harness.Err("ERR value is not an integer or out of range")},
		{[]string{"BITCOUNT", "m", "0", "x", "FOO"}, harness.Err("ERR value is not an integer or out of range")},
		{[]string{"BITOP", "NOT", "dst", "s", "p"}, harness.Err("ERR BITOP NOT must be called with a single source key.")},
		{[]string{"BITOP", "XOR", "dst", "s", "s"}, int64(6)},
		{[]string{"GET", "dst"}, "\x00\x00\x00\x00\x00\x00"},
		{[]string{"BITFIELD", "f", "SET", "u8", "0", "255", "INCRBY", "u8", "0", "10", "OVERFLOW", "SAT", "INCRBY", "u8", "0", "300",
			"OVERFLOW", "FAIL", "INCRBY", "i8", "0", "200"}, []any{int64(0), int64(9), int64(255), nil}},
		{[]string{"BITFIELD", "f", "GET", "u64", "0"}, harness.Err("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")},
		{[]string{"BITFIELD_RO", "f", "INCRBY", "u8", "0", "1"}, harness.Err("ERR BITFIELD_RO only supports the GET subcommand")},
		// Redis's SAT check wraps for values within the field's max of the
		// int64 minimum: they saturate to the max.
		{[]string{"BITFIELD", "bfs", "OVERFLOW", "SAT", "SET", "i8", "0", "-9223372036854775808", "GET", "i8", "0",
			"SET", "i8", "0", "-9223372036854775681", "GET", "i8", "0", "SET", "i8", "0", "-9223372036854775680", "GET", "i8", "0",
			"OVERFLOW", "FAIL", "SET", "i8", "0", "-9223372036854775808", "OVERFLOW", "WRAP", "SET", "i8", "0", "-9223372036854775808", "GET", "i8", "0"},
			[]any{int64(0), int64(127), int64(127), int64(127), int64(127), int64(-128), nil, int64(-128), int64(0)}},
		// Every operation is parsed before BITFIELD_RO refuses a write.
		{[]string{"BITFIELD_RO", "f", "SET", "i16", "0", "+5"}, harness.Err("ERR value is not an integer or out of range")},
		{[]string{"BITFIELD_RO", "f", "SET", "i8", "0", "1", "GET", "i99", "0"}, harness.Err("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")},
		{[]string{"BITFIELD_RO", "f", "SET", "i8", "0", "1", "FOO"}, harness.Err("ERR syntax error")},
		{[]string{"BITFIELD_RO", "f", "SET", "i8", "0", "1", "OVERFLOW", "BAD"}, harness.Err("ERR Invalid OVERFLOW type specified")},
		{[]string{"BITFIELD_RO", "s", "SET", "i8", "0", "1", "GET", "u8", "0"}, harness.Err("ERR BITFIELD_RO only supports the GET subcommand")},
		{[]string{"PFADD", "h", "a", "b", "c"}, int64(1)},
		{[]string{"PFADD", "h", "a"}, int64(0)},
		{[]string{"PFCOUNT", "h"}, int64(3)},
		{[]string{"PFADD", "s", "x"}, harness.Err("WRONGTYPE Key is not a valid HyperLogLog string value.")},
		{[]string{"PFMERGE", "h2", "h", "nokey"}, harness.Status("OK")},
		{[]string{"PFCOUNT", "h2", "h"}, int64(3)},
	} {
		if got := r.Do(tc.args...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %#v, want %#v", tc.args, got, tc.want)
		}
	}
	args := []string{"PFADD", "many"}
	for i := 0; i < 10000; i++ {
		args = append(args, strconv.Itoa(i))
	}
	r.Do(args...)
	n := r.Do("PFCOUNT", "many").(int64)
	if n < 9700 || n > 10300 {
		t.Fatalf("PFCOUNT of 10000 distinct = %d, outside 3%%", n)
	}
}

// PFDEBUG shows an HLL's encoding as Redis 8.0.2 does: the same sparse
// opcodes for the same elements, GETREG and TODENSE converting to dense.
func TestPFDebug(t *testing.T) {
	regs := make([]string, 16384)
	for i := range regs {
		regs[i] = ":0\r\n"
	}
	// a, b and c hash to registers 8436 (1), 12711 (2) and 15780 (1).
	regs[8436], regs[12711], regs[15780] = ":1\r\n", ":2\r\n", ":1\r\n"
	getreg := "*16384\r\n" + strings.Join(regs, "")
	runTable(t, []exchange{
		{"PFADD h a b c", harness.Integer(1)},
		{"PFDEBUG ENCODING h", "+sparse\r\n"},
		{"PFDEBUG DECODE h", harness.Bulk("Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603")},
		{"PFDEBUG GETREG h", getreg},
		{"PFDEBUG ENCODING h", "+dense\r\n"},
		{"PFDEBUG DECODE h", harness.ErrReply("ERR HLL encoding is not sparse")},
		{"PFDEBUG TODENSE h", harness.Integer(0)},
		{"PFCOUNT h", harness.Integer(3)},
		{"PFADD h2 a", harness.Integer(1)},
		{"PFDEBUG TODENSE h2", harness.Integer(1)},
		{"PFDEBUG TODENSE h2", harness.Integer(0)},
		{"PFADD h2 b c", harness.Integer(1)},
		{"PFDEBUG GETREG h2", getreg},
		{"PFDEBUG GETREG h x", harness.ErrReply("ERR wrong number of arguments for 'pfdebug' command")},
		{"PFDEBUG nosuch h", harness.ErrReply("ERR Unknown PFDEBUG subcommand 'nosuch'")},
		{"PFDEBUG nosuch nokey", harness.ErrReply("ERR The specified key does not exist")},
		{"SET s x", okReply},
		{"PFDEBUG ENCODING s", harness.ErrReply("WRONGTYPE Key is not a valid HyperLogLog string value.")},
		{"LPUSH l x", harness.Integer(1)},
		{"PFDEBUG DECODE l", wrongType},
		// Not PFDEBUG SIMD with a bad argument: Redis 8.0.2 answers it
		// twice (the error, then "+disabled").
		{"PFDEBUG SIMD off", "+disabled\r\n"},
		{"PFSELFTEST x", harness.ErrReply("ERR wrong number of arguments for 'pfselftest' command")},
	})
}

// A sparse HLL cut off after the first byte of an XZERO opcode: Redis reads
// the second byte from the NUL that ends its strings, so "Z:16383" and a lone
// 0x40 cover the registers exactly. Counting, merging, decoding and
// converting it are as in Redis 8.0.2, and so is a PFADD into that last
// opcode, which Redis writes one byte past the end of the string (the
// string loses the new opcode).
func TestHLLHalfXZeroMatchesRedis(t *testing.T) {
	half := "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xfe\x40"
	differBytes(t, [][]string{
		{"SET", "h", half}, {"PFDEBUG", "DECODE", "h"}, {"PFCOUNT", "h"}, {"GET", "h"},
		{"SET", "h", half}, {"PFCOUNT", "h", "nokey"}, {"PFMERGE", "m", "h"}, {"GET", "m"},
		{"PFADD", "h", "a"}, {"GET", "h"}, {"PFCOUNT", "h"},
		// x8784 hashes to register 16383, the one the lone byte covers.
		{"PFADD", "h", "x8784"}, {"GET", "h"}, {"PFCOUNT", "h"},
		{"SET", "h", half}, {"PFDEBUG", "TODENSE", "h"}, {"PFCOUNT", "h"},
		{"SET", "h", half}, {"PFMERGE", "h", "h"}, {"GET", "h"},
		{"PFADD", "h2", "x8784", "a"}, {"PFMERGE", "h", "h2"}, {"GET", "h"}, {"PFCOUNT", "h"},
	})
}

// PFSELFTEST runs Redis's self-test of the encodings (about half a second;
// minutes under the race detector, which has nothing to find in it that
// internal/value/hll's TestSelfTest does not).
func TestPFSelfTest(t *testing.T) {
	if harness.RaceEnabled {
		t.Skip("CPU-bound for minutes under the race detector")
	}
	harness.Start(t).Raw(t).Expect(harness.Status("OK"), "PFSELFTEST")
}
