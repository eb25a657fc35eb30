package rdb

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/value/list"
)

// TestFileWriter writes blocks of two databases in an interleaved order
// and reads the file back opcode by opcode: one SELECTDB per change of
// database, RESIZEDB once per database, keys that load, EOF and a CRC-64
// of everything before it.
func TestFileWriter(t *testing.T) {
	now := int64(1_700_000_000_000)
	str := keyspace.NewString([]byte("value"))
	vol := keyspace.NewString([]byte("12"))
	vol.Expire = now + 5000
	l := list.New()
	l.PushBack([]byte("a"))
	lst := &keyspace.Entry{Kind: keyspace.KindList, Obj: l}
	unsupported := &keyspace.Entry{Kind: keyspace.KindVectorSet}

	var blocks [][]byte
	block := func(db int, keys ...any) {
		b := AppendBlock(nil, db)
		for i := 0; i < len(keys); i += 2 {
			var err error
			b, err = AppendKey(b, []byte(keys[i].(string)), keys[i+1].(*keyspace.Entry), now)
			if err != nil {
				t.Fatal(err)
			}
		}
		blocks = append(blocks, b)
	}
	block(0, "s", str, "v", vol)
	block(0, "l", lst)
	block(2, "x", str)
	block(0, "y", str)
	if b, err := AppendKey([]byte("keep"), []byte("vs"), unsupported, now); err != ErrUnsupported || string(b) != "keep" {
		t.Fatalf("vector set: %q, %v", b, err)
	}

	var out bytes.Buffer
	fw := NewFileWriter(&out, []DBSize{{4, 1}, {0, 0}, {1, 0}})
	if err := fw.Header(FileInfo{RedisVer: "8.0.2", Ctime: 1, UsedMem: 2, ReplID: "abc", ReplOffset: 42, ReplStreamDB: 0}); err != nil {
		t.Fatal(err)
	}
	fw.Functions(Seal(append([]byte{opFunction2}, AppendString(nil, []byte("#!lua name=l\n"))...)))
	for _, b := range blocks {
		if err := fw.Block(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.End(); err != nil {
		t.Fatal(err)
	}
	f := out.Bytes()
	if fw.Len() != int64(len(f)) {
		t.Fatalf("Len %d, wrote %d", fw.Len(), len(f))
	}
	if got := binary.LittleEndian.Uint64(f[len(f)-8:]); got != CRC64(0, f[:len(f)-8]) {
		t.Fatal("bad checksum")
	}
	if string(f[:9]) != "REDIS0012" {
		t.Fatalf("magic %q", f[:9])
	}
	r := &reader{b: f[9 : len(f)-8]}
	aux := map[string]string{}
	var trace []string
	var keys []string
	for !r.bad && r.left() > 0 {
		op := r.byte()
		switch op {
		case opAux:
			k, v := r.str(), r.str()
			aux[string(k)] = string(v)
		case opFunction2:
			trace = append(trace, "fn:"+string(r.str()))
		case opSelectDB:
			trace = append(trace, "select:"+string(rune('0'+r.length())))
		case opResizeDB:
			n, e := r.length(), r.length()
			trace = append(trace, "resize:"+string(rune('0'+n))+"/"+string(rune('0'+e)))
		case opEOF:
			trace = append(trace, "eof")
		case opExpireTimeMS:
			if at := int64(r.fixed64()); at != now+5000 {
				t.Fatalf("expire %d", at)
			}
			trace = append(trace, "ttl")
		default:
			k := r.str()
			// The value is the rest of the record: load it as a DUMP payload.
			rest := append([]byte{op}, r.b[r.off:]...)
			e, err := Load(Seal(rest), now)
			if err != nil {
				t.Fatalf("key %q: %v", k, err)
			}
			n, _ := encode(e, now)
			r.off += len(n.b) - 1
			keys = append(keys, string(k))
			trace = append(trace, "key:"+string(k))
		}
	}
	want := []string{"fn:#!lua name=l\n", "select:0", "resize:4/1", "key:s", "ttl", "key:v", "key:l",
		"select:2", "resize:1/0", "key:x", "select:0", "key:y", "eof"}
	if r.bad || len(trace) != len(want) {
		t.Fatalf("trace %q (bad %v)", trace, r.bad)
	}
	for i := range want {
		if trace[i] != want[i] {
			t.Fatalf("trace %q, want %q", trace, want)
		}
	}
	for k, v := range map[string]string{"redis-ver": "8.0.2", "redis-bits": "64", "ctime": "1", "used-mem": "2",
		"repl-id": "abc", "repl-offset": "42", "repl-stream-db": "0", "aof-base": "0"} {
		if aux[k] != v {
			t.Errorf("aux %s = %q, want %q", k, aux[k], v)
		}
	}
}
