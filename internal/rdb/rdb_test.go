package rdb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/value/hash"
	"github.com/hotkv/hotkv/internal/value/list"
	"github.com/hotkv/hotkv/internal/value/set"
	"github.com/hotkv/hotkv/internal/value/stream"
	"github.com/hotkv/hotkv/internal/value/zset"
)

func TestCRC64(t *testing.T) {
	// The check value of crc-64-jones, as Redis's crc64 self-test.
	if got := CRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64 = %#x", got)
	}
	// The footer of Redis's DUMP of "hello".
	data := []byte("\x00\x05hello\x0c\x00")
	if got := CRC64(0, data); got != 0x43be1e9fb6eb04a8 {
		t.Fatalf("crc64 = %#x", got)
	}
	if CRC64(CRC64(0, data[:4]), data[4:]) != CRC64(0, data) {
		t.Fatal("crc64 does not continue")
	}
}

func TestLZF(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
		ok   bool
	}{
		// What Redis writes for 100 'a's: a literal "aa", a 264-byte-capable
		// back reference, a literal "aa".
		{"\x01aa\xe0W\x00\x01aa", 100, strings.Repeat("a", 100), true},
		{"\x02abc", 3, "abc", true},
		{"\x02abc\x20\x02", 6, "abcabc", true}, // back reference of 3 at distance 3
		{"\x02abc", 2, "", false},              // longer than announced
		{"\x02abc", 4, "", false},              // shorter than announced
		{"\x02ab", 3, "", false},               // truncated literal
		{"\x20\x00", 3, "", false},             // reference before the start
		{"\x00a\xe0", 300, "", false},          // truncated long reference
		{"\x00a\x20", 3, "", false},            // missing offset byte
	} {
		out, ok := lzfDecompress([]byte(c.in), c.n)
		if ok != c.ok || ok && string(out) != c.want {
			t.Errorf("lzf(%q, %d) = %q, %v", c.in, c.n, out, ok)
		}
	}
}

func TestListpackRoundTrip(t *testing.T) {
	var vals [][]byte
	for _, n := range []int64{0, 1, 127, 128, -1, -4096, 4095, 4096, -4097, 32767, -32768, 32768,
		8388607, -8388608, 8388608, math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, math.MaxInt64, math.MinInt64} {
		vals = append(vals, []byte(strconv.FormatInt(n, 10)))
	}
	for _, n := range []int{0, 1, 63, 64, 120, 125, 126, 127, 4095, 4096, 16380, 16383, 20000} {
		vals = append(vals, bytes.Repeat([]byte{'x'}, n))
	}
	vals = append(vals, []byte("007"), []byte("-0"), []byte("+1"), []byte("99999999999999999999"))
	lp := newListpack()
	for _, v := range vals {
		lp.add(v)
	}
	es, ok := listpack(lp.bytes())
	if !ok || len(es) != len(vals) {
		t.Fatalf("listpack: ok %v, %d elements", ok, len(es))
	}
	for i, e := range es {
		if !bytes.Equal(e.bytes(), vals[i]) {
			t.Errorf("element %d = %q, want %q", i, e.bytes(), vals[i])
		}
	}
	// Every truncation and every single-byte change is either refused or
	// decodes without panicking.
	b := lp.bytes()
	for i := range b {
		listpack(b[:i])
		c := slices.Clone(b)
		c[i] ^= 0x5a
		listpack(c)
	}
}

// zl builds a ziplist of strings (short ones) and int8s, for the old types.
func zl(vals ...any) []byte {
	b := make([]byte, zlHeader)
	prev, last := 0, zlHeader
	for _, v := range vals {
		start := len(b)
		b = append(b, byte(prev))
		switch v := v.(type) {
		case string:
			b = append(b, byte(len(v)))
			b = append(b, v...)
		case int:
			if v >= 0 && v <= 12 {
				b = append(b, 0xf1+byte(v))
			} else {
				b = append(b, 0xfe, byte(int8(v)))
			}
		}
		prev, last = len(b)-start, start
	}
	b = append(b, 0xff)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	binary.LittleEndian.PutUint32(b[4:], uint32(last))
	binary.LittleEndian.PutUint16(b[8:], uint16(len(vals)))
	return b
}

// payload wraps a value with the version and CRC footer.
func payload(typ byte, value []byte) []byte {
	p := append([]byte{typ}, value...)
	p = binary.LittleEndian.AppendUint16(p, Version)
	return binary.LittleEndian.AppendUint64(p, CRC64(0, p))
}

func blob(b []byte) []byte {
	w := &writer{}
	w.raw(b)
	return w.b
}

func TestOldTypes(t *testing.T) {
	zipmap := []byte("\x02\x01a\x01\x00x\x01b\x02\x01yzQ\xff") // a=x, b=yz (one free byte)
	intsetBlob := appendIntset(nil, []int64{-3, 5, 70000})
	for _, c := range []struct {
		name string
		p    []byte
		want string
	}{
		{"list ziplist", payload(typeListZiplist, blob(zl("a", 3, -100, "bc"))), "list [a 3 -100 bc]"},
		{"list quicklist", payload(typeListQuicklist, append([]byte{2}, append(blob(zl("a")), blob(zl(1, 2))...)...)), "list [a 1 2]"},
		{"list linked", payload(typeList, []byte("\x02\x01a\xc0\x07")), "list [a 7]"},
		{"set intset", payload(typeSetIntset, blob(intsetBlob)), "set [-3 5 70000]"},
		{"set plain", payload(typeSet, []byte("\x02\x01a\x01b")), "set [a b]"},
		{"zset ziplist", payload(typeZSetZiplist, blob(zl("a", "1.5", "b", -2))), "zset [b:-2 a:1.5]"},
		{"zset text scores", payload(typeZSet, []byte("\x02\x01a\x031.5\x01b\xfe")), "zset [a:1.5 b:+Inf]"},
		{"hash ziplist", payload(typeHashZiplist, blob(zl("f", "v", "g", 1))), "hash [f=v g=1]"},
		{"hash zipmap", payload(typeHashZipmap, blob(zipmap)), "hash [a=x b=yz]"},
	} {
		e, err := Load(c.p, 0)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := describe(e); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestBadPayloads(t *testing.T) {
	lp := newListpack()
	lp.add([]byte("a"))
	lp.add([]byte("a"))
	dupSet := lp.bytes()
	for _, c := range []struct {
		name string
		p    []byte
		err  error
	}{
		{"unknown type", payload(8, []byte{1}), ErrBadData},
		{"module type", payload(7, []byte{1}), ErrBadData},
		{"truncated string", payload(typeString, []byte{20, 'a'}), ErrBadData}, // runs past the footer too
		{"empty list", payload(typeList, []byte{0}), ErrBadData},
		{"duplicate set member", payload(typeSetListpack, blob(dupSet)), ErrBadData},
		{"duplicate hash field", payload(typeHash, []byte("\x02\x01a\x01x\x01a\x01y")), ErrBadData},
		{"unsorted intset", payload(typeSetIntset, blob(append(appendIntset(nil, []int64{1, 2})[:8], 2, 0, 1, 0))), ErrBadData},
		{"odd hash listpack", payload(typeHashListpack, blob(dupSet[:len(dupSet)-3])), ErrBadData},
		{"NaN score", payload(typeZSet2, append([]byte("\x01\x01a"), binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.NaN()))...)), ErrBadData},
		{"huge count", payload(typeSet, []byte("\x80\xff\xff\xff\xff\x01a")), ErrBadData},
		{"expired field", payload(typeHashListpackEx, append(make([]byte, 8), blob(func() []byte {
			w := newListpack()
			w.add([]byte("f"))
			w.add([]byte("v"))
			w.addInt(1)
			return w.bytes()
		}())...)), ErrExpired},
	} {
		if _, err := Load(c.p, 1000); err != c.err {
			t.Errorf("%s: %v, want %v", c.name, err, c.err)
		}
	}
	good := payload(typeString, []byte("\x01a"))
	if !Verify(good) {
		t.Fatal("good payload refused")
	}
	bad := slices.Clone(good)
	bad[len(bad)-1] ^= 1
	newer := payload(typeString, []byte("\x01a"))
	binary.LittleEndian.PutUint16(newer[len(newer)-10:], Version+1)
	binary.LittleEndian.PutUint64(newer[len(newer)-8:], CRC64(0, newer[:len(newer)-8]))
	for _, p := range [][]byte{bad, newer, good[:9], nil} {
		if Verify(p) {
			t.Errorf("Verify(%q) passed", p)
		}
	}
}

// redisPayloads are DUMP replies of Redis 8.0.2, one per type and encoding.
func redisPayloads(t testing.TB) map[string][]byte {
	files, err := filepath.Glob("testdata/redis/*.dump")
	if err != nil || len(files) == 0 {
		t.Fatalf("no payloads: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".dump")] = b
	}
	return out
}

func TestRedisPayloads(t *testing.T) {
	encodings := map[string]string{
		"list-listpack": "listpack", "list-quicklist": "quicklist", "set-intset": "intset",
		"set-listpack": "listpack", "set-hashtable": "hashtable", "zset-listpack": "listpack",
		"zset-skiplist": "skiplist", "hash-listpack": "listpack", "hash-hashtable": "hashtable",
		"hash-listpackex": "listpackex", "hash-metadata": "hashtable",
	}
	for name, p := range redisPayloads(t) {
		if !Verify(p) {
			t.Errorf("%s: Verify failed", name)
			continue
		}
		e, err := Load(p, 0)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if enc := encodings[name]; enc != "" && e.Encoding() != enc {
			t.Errorf("%s: encoding %s, want %s", name, e.Encoding(), enc)
		}
		again := roundTrip(t, e)
		if describe(again) != describe(e) {
			t.Errorf("%s: round trip changed it:\n%s\n%s", name, describe(e), describe(again))
		}
		if name == "hash-listpackex" || strings.HasPrefix(name, "string") {
			// HotKV writes what Redis wrote (short of LZF compression).
			if d, _ := Dump(e, 0); name != "string-lzf" && !bytes.Equal(d, p) {
				t.Errorf("%s: dump differs:\n%q\n%q", name, d, p)
			}
		}
	}
}

func roundTrip(t testing.TB, e *keyspace.Entry) *keyspace.Entry {
	t.Helper()
	p, err := Dump(e, 0)
	if err != nil {
		t.Fatalf("dump: %v", err)
	}
	if !Verify(p) {
		t.Fatal("own payload fails Verify")
	}
	e2, err := Load(p, 0)
	if err != nil {
		t.Fatalf("reload %q: %v", p, err)
	}
	return e2
}

// describe renders a value canonically (unordered collections sorted), to
// compare values across a round trip.
func describe(e *keyspace.Entry) string {
	var items []string
	switch v := e.Obj.(type) {
	case nil:
		return fmt.Sprintf("string %q", e.Bytes())
	case *list.List:
		v.Range(0, v.Len()-1, func(b []byte) bool { items = append(items, string(b)); return true })
	case *set.Set:
		v.Range(func(m []byte) bool { items = append(items, string(m)); return true })
		slices.Sort(items)
	case *zset.ZSet:
		for it := v.At(0); it.Valid(); it.Next() {
			items = append(items, fmt.Sprintf("%s:%v", it.Member(), it.Score()))
		}
	case *hash.Hash:
		v.Range(func(f, val []byte) bool {
			s := string(f) + "=" + string(val)
			if at := v.Expiry(f); at != 0 {
				s += fmt.Sprintf("@%d", at)
			}
			items = append(items, s)
			return true
		})
		slices.Sort(items)
	case *stream.Stream:
		v.Range(stream.ID{}, stream.MaxID, false, func(en stream.Entry) bool {
			items = append(items, fmt.Sprintf("%s%q", en.ID, en.Fields()))
			return true
		})
		items = append(items, fmt.Sprintf("last=%s maxdel=%s added=%d", v.LastID, v.MaxDeleted, v.EntriesAdded))
		for _, g := range v.Groups() {
			items = append(items, fmt.Sprintf("group %q last=%s read=%d", g.Name, g.LastID, g.EntriesRead))
			for _, c := range g.Consumers() {
				items = append(items, fmt.Sprintf("consumer %q seen=%d active=%d", c.Name, c.SeenTime, c.ActiveTime))
				c.EachPending(stream.ID{}, stream.MaxID, func(p *stream.Pending) bool {
					items = append(items, fmt.Sprintf("pending %s at=%d n=%d", p.ID, p.DeliveryTime, p.DeliveryCount))
					return true
				})
			}
		}
	}
	return fmt.Sprintf("%s %v", e.Kind, items)
}

// FuzzRestore feeds mutated payloads to the decoder: it must never panic,
// and a payload it accepts must dump to one that loads to the same value.
func FuzzRestore(f *testing.F) {
	for _, p := range redisPayloads(f) {
		f.Add(p[:len(p)-footer]) // the fuzzer mutates the value; the footer is added back
	}
	f.Add([]byte{typeListZiplist, 0x0f, 0x0f, 0, 0, 0, 0x0a, 0, 0, 0, 1, 0, 0, 0xf2, 0xff})
	f.Fuzz(func(t *testing.T, value []byte) {
		if len(value) == 0 {
			return
		}
		e, err := Load(payload(value[0], value[1:]), 1)
		if err != nil {
			return
		}
		want := describe(e)
		if got := describe(roundTrip(t, e)); got != want {
			t.Fatalf("round trip changed the value:\n%s\n%s", want, got)
		}
	})
}
