package rdb

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// fileKeys reads a whole file into db -> key -> Key.
type fileKeys struct {
	keys  map[int]map[string]*Key
	aux   map[string]string
	funcs []string
	dbs   []int
}

func readAll(t testing.TB, r io.Reader, now int64) (*fileKeys, FileStats, error) {
	t.Helper()
	out := &fileKeys{keys: map[int]map[string]*Key{}, aux: map[string]string{}}
	st, err := ReadFile(r, now, FileHandler{
		Aux:      func(k, v []byte) error { out.aux[string(k)] = string(v); return nil },
		Function: func(c []byte) error { out.funcs = append(out.funcs, string(c)); return nil },
		DB:       func(db int, _, _ int64) error { out.dbs = append(out.dbs, db); return nil },
		Key: func(k *Key) error {
			if out.keys[k.DB] == nil {
				out.keys[k.DB] = map[string]*Key{}
			}
			c := *k
			c.Key = append([]byte(nil), k.Key...)
			out.keys[k.DB][string(k.Key)] = &c
			return nil
		},
	})
	return out, st, err
}

// TestReadFileRedis802 reads a file Redis 8.0.2 saved (testdata/rdbfile/gen.sh).
func TestReadFileRedis802(t *testing.T) {
	f, err := os.Open("testdata/rdbfile/redis-8.0.2.rdb")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	now := time.Now().UnixMilli()
	got, st, err := readAll(t, f, now)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != 12 || !st.Checksum || got.aux["redis-ver"] != "8.0.2" {
		t.Fatalf("stats %+v aux %v", st, got.aux)
	}
	if len(got.funcs) != 1 || !strings.HasPrefix(got.funcs[0], "#!lua name=mylib\n") {
		t.Fatalf("functions %q", got.funcs)
	}
	want := map[string]string{ // key -> kind
		"s:int": "string", "s:neg": "string", "s:raw": "string", "s:lzf": "string",
		"l:small": "list", "l:big": "list",
		"set:int": "set", "set:lp": "set", "set:ht": "set",
		"z:lp": "zset", "z:sl": "zset",
		"h:lp": "hash", "h:ht": "hash", "h:ttl": "hash", "h:ttlbig": "hash",
		"st": "stream", "ttl:s": "string", "ttl:l": "list", "gone": "string",
	}
	checkKeys(t, got.keys[0], want)
	checkKeys(t, got.keys[5], map[string]string{"db5:k": "string", "db5:h": "hash"})
	if e := got.keys[0]["ttl:s"].Expire; e != 4102444800123 {
		t.Errorf("ttl:s expires %d", e)
	}
	if e := got.keys[0]["ttl:l"].Entry.Expire; e != 4102444801000 {
		t.Errorf("ttl:l expires %d", e)
	}
	if g := got.keys[0]["gone"]; g.Expire == 0 || !g.Entry.Expired(now) {
		t.Errorf("gone expires %d: want a time passed", g.Expire)
	}
	if s := string(got.keys[0]["s:lzf"].Entry.Bytes()); s != strings.Repeat("abcdefgh", 40) {
		t.Errorf("s:lzf = %q", s)
	}
	if got.dbs[0] != 0 || got.dbs[len(got.dbs)-1] != 5 {
		t.Errorf("SELECTDB %v", got.dbs)
	}
}

// TestReadFileValkey811 reads a file Valkey 8.1.1 saved (RDB version 11).
func TestReadFileValkey811(t *testing.T) {
	f, err := os.Open("testdata/rdbfile/valkey-8.1.1.rdb")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, st, err := readAll(t, f, time.Now().UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != 11 || !st.Checksum || got.aux["valkey-ver"] != "8.1.1" {
		t.Fatalf("stats %+v aux %v", st, got.aux)
	}
	if len(got.keys[0]) != 17 || len(got.keys[5]) != 2 {
		t.Fatalf("keys: %d in db 0, %d in db 5", len(got.keys[0]), len(got.keys[5]))
	}
}

func checkKeys(t *testing.T, got map[string]*Key, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d keys, want %d", len(got), len(want))
	}
	for k, kind := range want {
		e := got[k]
		if e == nil {
			t.Errorf("key %q missing", k)
			continue
		}
		if g := e.Entry.Kind.String(); g != kind {
			t.Errorf("key %q: kind %s, want %s", k, g, kind)
		}
	}
}

// fileBuilder makes synthetic files.
type fileBuilder struct{ w writer }

func newFile(version int) *fileBuilder {
	b := &fileBuilder{}
	b.w.b = append(b.w.b, []byte("REDIS")...)
	b.w.b = append(b.w.b, []byte(strings.Repeat("0", 4-len(itoa(version)))+itoa(version))...)
	return b
}

func itoa(n int) string { return string(appendInt(nil, n)) }
func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

func (b *fileBuilder) op(o byte) *fileBuilder      { b.w.b = append(b.w.b, o); return b }
func (b *fileBuilder) len(n uint64) *fileBuilder   { b.w.length(n); return b }
func (b *fileBuilder) str(s string) *fileBuilder   { b.w.str([]byte(s)); return b }
func (b *fileBuilder) raw(p ...byte) *fileBuilder  { b.w.b = append(b.w.b, p...); return b }
func (b *fileBuilder) u64(v uint64) *fileBuilder   { b.w.fixed64(v); return b }
func (b *fileBuilder) kv(k, v string) *fileBuilder { return b.op(typeString).str(k).str(v) }

// end appends EOF and the checksum (0: none).
func (b *fileBuilder) end(withCRC bool) []byte {
	b.w.b = append(b.w.b, opEOF)
	crc := uint64(0)
	if withCRC {
		crc = CRC64(0, b.w.b)
	}
	return binary.LittleEndian.AppendUint64(b.w.b, crc)
}

// moduleID builds a module type ID from its name and encoding version.
func moduleID(name string, encver uint64) uint64 {
	const cset = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var id uint64
	for _, c := range []byte(name) {
		id = id<<6 | uint64(strings.IndexByte(cset, c))
	}
	return id<<10 | encver
}

func TestReadFileOpcodes(t *testing.T) {
	now := int64(1_700_000_000_000)
	tests := []struct {
		name  string
		file  []byte
		err   string // substring of the error, "" for none
		check func(t *testing.T, got *fileKeys, st FileStats)
	}{
		{"empty", newFile(12).end(true), "", func(t *testing.T, got *fileKeys, st FileStats) {
			if st.Keys != 0 || !st.Checksum || st.Bytes != 9+1+8 {
				t.Errorf("%+v", st)
			}
		}},
		{"no checksum", newFile(12).kv("a", "1").end(false), "", func(t *testing.T, got *fileKeys, st FileStats) {
			if st.Checksum || got.keys[0]["a"] == nil {
				t.Errorf("%+v %v", st, got.keys)
			}
		}},
		{"version 4 has no checksum", newFile(4).kv("a", "1").op(opEOF).w.b, "", nil},
		{"aux", newFile(12).op(opAux).str("redis-ver").str("8.0.2").op(opAux).str("ctime").str("1700000000").end(true), "", func(t *testing.T, got *fileKeys, st FileStats) {
			if got.aux["redis-ver"] != "8.0.2" || got.aux["ctime"] != "1700000000" {
				t.Errorf("aux %v", got.aux)
			}
		}},
		{"selectdb resizedb slot info", newFile(12).op(opSelectDB).len(3).op(opResizeDB).len(2).len(1).op(opSlotInfo).len(100).len(2).len(1).kv("a", "1").
			op(opSelectDB).len(300).kv("b", "2").end(true), "", func(t *testing.T, got *fileKeys, st FileStats) {
			if got.keys[3]["a"] == nil || got.keys[300]["b"] == nil || len(got.dbs) != 2 {
				t.Errorf("keys %v dbs %v", got.keys, got.dbs)
			}
		}},
		{"expiretime ms and s", newFile(12).op(opExpireTimeMS).u64(1_800_000_000_123).kv("ms", "1").op(opExpireTime).raw(0x00, 0xf1, 0x53, 0x65).kv("s", "1").kv("none", "1").end(true), "", func(t *testing.T, got *fileKeys, st FileStats) {
			k := got.keys[0]
			if k["ms"].Expire != 1_800_000_000_123 || k["s"].Expire != 0x6553f100*1000 || k["none"].Expire != 0 {
				t.Errorf("ms %d s %d none %d", k["ms"].Expire, k["s"].Expire, k["none"].Expire)
			}
		}},
		{"idle freq", newFile(12).op(opIdle).len(1000).kv("i", "1").op(opFreq).raw(42).kv("f", "1").kv("n", "1").end(true), "", func(t *testing.T, got *fileKeys, st FileStats) {
			k := got.keys[0]
			if k["i"].Idle != 1000 || k["i"].Freq != -1 || k["f"].Freq != 42 || k["f"].Idle != -1 || k["n"].Idle != -1 || k["n"].Freq != -1 {
				t.Errorf("i %+v f %+v n %+v", k["i"], k["f"], k["n"])
			}
		}},
		{"function2", newFile(12).op(opFunction2).str("#!lua name=x\nredis.register_function('f', function() end)").end(true), "", func(t *testing.T, got *fileKeys, st FileStats) {
			if len(got.funcs) != 1 {
				t.Errorf("funcs %q", got.funcs)
			}
		}},
		{"integer and lzf keys", newFile(12).op(typeString).str("123").str("v").end(true), "", func(t *testing.T, got *fileKeys, st FileStats) {
			if got.keys[0]["123"] == nil {
				t.Errorf("keys %v", got.keys)
			}
		}},
		{"expired hash skipped", newFile(12).op(typeHashMetadata).str("h").u64(1000).len(1).len(1).str("f").str("v").end(true), "", func(t *testing.T, got *fileKeys, st FileStats) {
			if st.EmptyKeys != 1 || st.Keys != 0 {
				t.Errorf("%+v", st)
			}
		}},
		{"module aux", newFile(12).op(opModuleAux).len(moduleID("ReJSON-RL", 3)).len(2).len(2).end(true), "module type 'ReJSON-RL'", nil},
		{"module value", newFile(12).op(typeModule2).str("k").len(moduleID("ReJSON-RL", 3)).end(true), "value of module type 'ReJSON-RL'", nil},
		{"vector set", newFile(12).op(typeModule2).str("k").len(moduleID("vectorset", 0)).end(true), "a vector set (Redis 8's module type 'vectorset')", nil},
		{"function pre-GA", newFile(12).op(opFunctionPreGA).str("x").end(true), "pre-release", nil},
		{"hash pre-GA", newFile(12).op(typeHashListpackExPreGA).str("k").end(true), "pre-release", nil},
		{"unknown type", newFile(12).op(30).str("k").end(true), "unknown value type 30", nil},
		{"bad checksum", append(newFile(12).kv("a", "1").end(true)[:20], 1, 2, 3, 4, 5, 6, 7, 8), "checksum", nil},
		{"bad magic", []byte("REDIX0012\xff"), "not an RDB file", nil},
		{"too new", newFile(13).end(true), "version 13", nil},
		{"bad value", newFile(12).op(typeSetIntset).str("k").str("xx").end(true), `key "k": bad value`, nil},
		{"bad length", newFile(12).op(typeString).raw(0x82).end(true), "bad length byte 0x82", nil},
		{"truncated", newFile(12).kv("a", "1").w.b, "truncated", nil},
		{"huge length, short file", newFile(12).op(typeString).str("k").raw(0x81, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff).w.b, "truncated", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, st, err := readAll(t, bytes.NewReader(tc.file), now)
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				var fe *FileError
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.As(err, &fe) {
					t.Fatalf("error %v, want a FileError with %q", err, tc.err)
				}
			}
			if tc.check != nil {
				tc.check(t, got, st)
			}
		})
	}
}

func TestModuleName(t *testing.T) {
	for _, n := range []string{"vectorset", "ReJSON-RL", "MBbloom--"} {
		if g := ModuleName(moduleID(n, 5)); g != n {
			t.Errorf("%s: %s", n, g)
		}
	}
}

// TestReadFileTruncatedAnywhere cuts the Redis file at every offset: each
// cut is a FileError naming an offset within the cut, never a panic.
func TestReadFileTruncatedAnywhere(t *testing.T) {
	b, err := os.ReadFile("testdata/rdbfile/redis-8.0.2.rdb")
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n++ {
		_, _, err := readAll(t, bytes.NewReader(b[:n]), 0)
		var fe *FileError
		if !errors.As(err, &fe) || fe.Offset > int64(n) {
			t.Fatalf("cut at %d: %v", n, err)
		}
	}
}

// TestReadFileStopsAtEnd leaves what follows the checksum unread, as a
// replica needs when the RDB is followed by the command stream.
func TestReadFileStopsAtEnd(t *testing.T) {
	f := newFile(12).kv("a", "1").end(true)
	br := bufioReader(append(f, "+more"...))
	if _, _, err := readAll(t, br, 0); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(br)
	if string(rest) != "+more" {
		t.Fatalf("left %q", rest)
	}
}

func FuzzReadFile(f *testing.F) {
	for _, name := range []string{"redis-8.0.2.rdb", "valkey-8.1.1.rdb"} {
		if b, err := os.ReadFile("testdata/rdbfile/" + name); err == nil {
			f.Add(b)
		}
	}
	f.Add(newFile(12).op(opSelectDB).len(1).op(opExpireTimeMS).u64(5).op(opIdle).len(3).kv("a", "1").op(opFunction2).str("x").end(false))
	f.Fuzz(func(t *testing.T, b []byte) {
		ReadFile(bytes.NewReader(b), 0, FileHandler{Key: func(k *Key) error {
			if k.Entry == nil || k.Entry.Kind == 0 {
				t.Fatal("key without a value")
			}
			return nil
		}})
	})
}

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }

// TestCRC64 checks Redis's test vector and the eight-byte steps against the
// byte-at-a-time loop at every length and alignment.
func TestCRC64Slicing(t *testing.T) {
	if c := CRC64(0, []byte("123456789")); c != 0xe9c6d914c4b8d9ca {
		t.Fatalf("CRC64(123456789) = %x", c)
	}
	b := make([]byte, 100)
	for i := range b {
		b[i] = byte(i*31 + 7)
	}
	for i := 0; i < len(b); i++ {
		for j := i; j <= len(b); j++ {
			want := uint64(0x1234)
			for _, c := range b[i:j] {
				want = crcTable[byte(want)^c] ^ want>>8
			}
			if got := CRC64(0x1234, b[i:j]); got != want {
				t.Fatalf("[%d:%d]: %x, want %x", i, j, got, want)
			}
		}
	}
}
