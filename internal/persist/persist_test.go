package persist

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/value/hash"
	"github.com/hotkv/hotkv/internal/value/hll"
	"github.com/hotkv/hotkv/internal/value/list"
	"github.com/hotkv/hotkv/internal/value/set"
	"github.com/hotkv/hotkv/internal/value/stream"
	"github.com/hotkv/hotkv/internal/value/vset"
	"github.com/hotkv/hotkv/internal/value/zset"
	"github.com/hotkv/hotkv/internal/vector/quant"
	"github.com/hotkv/hotkv/internal/vector/vindex"
)

// sample returns one entry of every kind and encoding, keyed by name.
func sample() map[string]*keyspace.Entry {
	m := map[string]*keyspace.Entry{}
	str := func(name string, b []byte, exp int64) {
		e := keyspace.NewString(b)
		e.Expire = exp
		m[name] = e
	}
	str("str", []byte("hello"), 0)
	str("empty", []byte{}, 0)
	str("volatile", []byte("12345"), 1<<42)
	str("binary", []byte{0, 1, 2, 255, '\r', '\n'}, 0)
	str("big", bytes.Repeat([]byte("x"), 100000), 0)
	h := hll.New()
	for i := range 100 {
		hll.Add(&h, fmt.Appendf(nil, "e%d", i))
	}
	str("hll", h, 0)

	l := list.New()
	for i := range 1000 {
		l.PushBack(fmt.Appendf(nil, "item-%d", i))
	}
	m["list"] = &keyspace.Entry{Kind: keyspace.KindList, Obj: l}
	small := list.New()
	small.PushBack([]byte("a"), []byte(""), []byte("c"))
	m["smalllist"] = &keyspace.Entry{Kind: keyspace.KindList, Obj: small, Expire: 99}

	hs := hash.New()
	hs.Set([]byte("f1"), []byte("v1"))
	hs.Set([]byte("f2"), []byte(""))
	hs.Set([]byte("f3"), []byte("v3"))
	hs.SetExpiry([]byte("f3"), 1<<41)
	hs.MarkExpiry() // as HEXPIRE does
	m["hash"] = &keyspace.Entry{Kind: keyspace.KindHash, Obj: hs}
	bh := hash.New()
	bh.MarkExpiry()
	for i := range 600 {
		bh.Set(fmt.Appendf(nil, "field%d", i), bytes.Repeat([]byte{byte(i)}, i%80))
		if i%7 == 0 {
			bh.SetExpiry(fmt.Appendf(nil, "field%d", i), int64(1<<40+i))
		}
	}
	m["bighash"] = &keyspace.Entry{Kind: keyspace.KindHash, Obj: bh}

	ints := set.New([]byte("1"), 3)
	for _, v := range []string{"1", "-5", "9223372036854775807"} {
		ints.Add([]byte(v))
	}
	m["intset"] = &keyspace.Entry{Kind: keyspace.KindSet, Obj: ints}
	lp := set.New([]byte("a"), 2)
	lp.Add([]byte("a"))
	lp.Add([]byte("b"))
	m["lpset"] = &keyspace.Entry{Kind: keyspace.KindSet, Obj: lp}
	hts := set.New([]byte("m"), 1000)
	for i := range 1000 {
		hts.Add(fmt.Appendf(nil, "m%d", i))
	}
	m["htset"] = &keyspace.Entry{Kind: keyspace.KindSet, Obj: hts}

	z := zset.New(1, 1)
	z.Set("a", 1)
	z.Set("b", math.Inf(-1))
	z.Set("c", math.Inf(1))
	z.Set("d", 1)
	z.Set("e", -2.5)
	m["zset"] = &keyspace.Entry{Kind: keyspace.KindZSet, Obj: z}
	bz := zset.New(500, 10)
	for i := range 500 {
		bz.Set(fmt.Sprintf("member:%d", i), float64(i%50)/3)
	}
	m["bigzset"] = &keyspace.Entry{Kind: keyspace.KindZSet, Obj: bz}
	m["vset"] = &keyspace.Entry{Kind: keyspace.KindVectorSet, Obj: sampleVSet(20, quant.Q8, 0)}
	m["reduced"] = &keyspace.Entry{Kind: keyspace.KindVectorSet, Obj: sampleVSet(3, quant.F32, 10), Expire: 7}
	m["stream"] = &keyspace.Entry{Kind: keyspace.KindStream, Obj: sampleStream()}
	m["emptystream"] = &keyspace.Entry{Kind: keyspace.KindStream, Obj: stream.New(), Expire: 5}
	return m
}

// sampleStream has deleted entries, groups with consumers and pending
// entries, and counters set by XSETID.
func sampleStream() *stream.Stream {
	s := stream.New()
	for i := range 250 {
		s.Add(stream.ID{Ms: uint64(1000 + i/3), Seq: uint64(i % 3)}, [][]byte{[]byte("n"), fmt.Appendf(nil, "%d", i), []byte(""), []byte("\x00")})
	}
	s.Delete(stream.ID{Ms: 1010, Seq: 1})
	s.LastID = stream.ID{Ms: 5000, Seq: 7}
	g, _ := s.CreateGroup([]byte("workers"), stream.ID{Ms: 1020}, 61)
	alice, _ := g.CreateConsumer([]byte("alice"), 111)
	bob, _ := g.CreateConsumer([]byte("bob"), 222)
	bob.ActiveTime = 333
	g.Assign(stream.ID{Ms: 1001, Seq: 2}, alice, 444, 3)
	g.Assign(stream.ID{Ms: 1010, Seq: 1}, bob, 555, 1) // deleted since delivery
	g.Assign(stream.ID{Ms: 1002}, bob, 666, 9)
	s.CreateGroup([]byte("idle"), stream.ID{}, stream.Invalid)
	return s
}

// dump is a canonical text form of an entry, for comparing.
func dump(t *testing.T, e *keyspace.Entry) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s exp=%d enc=%s\n", e.Kind, e.Expire, e.Encoding())
	switch o := e.Obj.(type) {
	case nil:
		fmt.Fprintf(&b, "%q", e.Bytes())
	case *list.List:
		o.Range(0, o.Len()-1, func(v []byte) bool { fmt.Fprintf(&b, "%q,", v); return true })
	case *hash.Hash:
		var lines []string
		o.Range(func(f, v []byte) bool {
			lines = append(lines, fmt.Sprintf("%q=%q@%d", f, v, o.Expiry(f)))
			return true
		})
		sortStrings(lines)
		b.WriteString(strings.Join(lines, ","))
	case *set.Set:
		var lines []string
		o.Range(func(m []byte) bool { lines = append(lines, string(m)); return true })
		sortStrings(lines)
		b.WriteString(strings.Join(lines, ","))
	case *vset.Set:
		fmt.Fprintf(&b, "%d %v\n%s", o.InDim, o.Projection(), dumpStore(o.Store))
	case *zset.ZSet:
		for it := o.At(0); it.Valid(); it.Next() {
			fmt.Fprintf(&b, "%s:%v,", it.Member(), it.Score())
		}
	case *stream.Stream:
		o.Range(stream.ID{}, stream.MaxID, false, func(e stream.Entry) bool {
			fmt.Fprintf(&b, "%s %q,", e.ID, e.Fields())
			return true
		})
		fmt.Fprintf(&b, "\nlast=%s maxdel=%s added=%d\n", o.LastID, o.MaxDeleted, o.EntriesAdded)
		for _, g := range o.Groups() {
			fmt.Fprintf(&b, "group %s %s %d:", g.Name, g.LastID, g.EntriesRead)
			for _, c := range g.Consumers() {
				fmt.Fprintf(&b, " %s/%d/%d/%d", c.Name, c.SeenTime, c.ActiveTime, c.PendingCount())
			}
			g.EachPending(stream.ID{}, stream.MaxID, func(p *stream.Pending) bool {
				fmt.Fprintf(&b, " %s@%s/%d/%d", p.ID, p.Consumer.Name, p.DeliveryTime, p.DeliveryCount)
				return true
			})
			b.WriteByte('\n')
		}
	default:
		t.Fatalf("unexpected object %T", o)
	}
	return b.String()
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// writeSnapshot encodes entries into a snapshot with one block per database.
func writeSnapshot(t *testing.T, dbs map[int]map[string]*keyspace.Entry) []byte {
	t.Helper()
	b := AppendHeader(nil, SnapshotMagic)
	keys := 0
	for db, m := range dbs {
		blk := BeginKeys(b, db)
		for k, e := range m {
			if err := blk.Add(k, e); err != nil {
				t.Fatal(err)
			}
		}
		keys += blk.Keys
		b = blk.Finish()
	}
	return AppendEnd(b, len(dbs), keys)
}

func TestSnapshotRoundTrip(t *testing.T) {
	in := sample()
	file := writeSnapshot(t, map[int]map[string]*keyspace.Entry{0: in, 5: {"other": in["str"]}})
	got := map[string]*keyspace.Entry{}
	st, err := ReadSnapshot(bytes.NewReader(file), func(db int, key []byte, e *keyspace.Entry) error {
		got[fmt.Sprint(db, "/", string(key))] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Keys != len(in)+1 || st.Blocks != 2 || st.Bytes != int64(len(file)) {
		t.Fatalf("stats %+v for %d keys, %d bytes", st, len(in)+1, len(file))
	}
	for k, e := range in {
		g := got["0/"+k]
		if g == nil {
			t.Fatalf("%s missing", k)
		}
		if want, have := dump(t, e), dump(t, g); want != have {
			t.Errorf("%s:\nwant %.300s\nhave %.300s", k, want, have)
		}
	}
	if got["5/other"] == nil {
		t.Error("key of database 5 missing")
	}
}

// Decoded values share no memory with the file buffer, which is reused.
func TestDecodedValuesOwnTheirBytes(t *testing.T) {
	in := sample()
	file := writeSnapshot(t, map[int]map[string]*keyspace.Entry{0: in})
	got := map[string]*keyspace.Entry{}
	_, err := ReadSnapshot(bytes.NewReader(file), func(_ int, key []byte, e *keyspace.Entry) error {
		got[string(key)] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]string{}
	for k, e := range got {
		before[k] = dump(t, e)
	}
	clear(file)
	for k, e := range got {
		if dump(t, e) != before[k] {
			t.Errorf("%s changed when the input was overwritten", k)
		}
	}
}

func TestSnapshotDamage(t *testing.T) {
	file := writeSnapshot(t, map[int]map[string]*keyspace.Entry{0: sample()})
	load := func(b []byte) error {
		_, err := ReadSnapshot(bytes.NewReader(b), func(int, []byte, *keyspace.Entry) error { return nil })
		return err
	}
	for _, cut := range []int{0, 5, headerSize, headerSize + 3, len(file) / 2, len(file) - 1} {
		var fe *FormatError
		if err := load(file[:cut]); !errors.As(err, &fe) {
			t.Errorf("cut at %d: %v", cut, err)
		}
	}
	// One flipped bit anywhere is caught; the offset names the damaged block.
	for _, at := range []int{3, 10, headerSize + 1, headerSize + 40, len(file) - 2} {
		bad := bytes.Clone(file)
		bad[at] ^= 0x10
		var fe *FormatError
		if err := load(bad); !errors.As(err, &fe) || fe.Offset > int64(at) {
			t.Errorf("flip at %d: %v", at, err)
		}
	}
	// A missing block is caught by the end block's counts.
	two := writeSnapshot(t, map[int]map[string]*keyspace.Entry{0: {"a": sample()["str"]}, 1: {"b": sample()["str"]}})
	blk := BeginKeys(nil, 0)
	blk.Add("a", sample()["str"])
	one := blk.Finish()
	cut := bytes.Replace(two, one, nil, 1)
	if len(cut) == len(two) {
		t.Fatal("block not found")
	}
	if err := load(cut); err == nil || !strings.Contains(err.Error(), "end block") {
		t.Errorf("missing block: %v", err)
	}
}

func logFile(recs ...[]LogCommand) []byte {
	b := AppendHeader(nil, LogMagic)
	for _, r := range recs {
		var start int
		b, start = BeginRecord(b)
		for _, c := range r {
			b = AppendCommand(b, c.DB, c.Now, c.Args)
		}
		b = SealRecord(b, start)
	}
	return b
}

func args(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, a := range s {
		out[i] = []byte(a)
	}
	return out
}

func readAll(b []byte) ([]string, int64, error) {
	var got []string
	end, err := ReadLog(bytes.NewReader(b), func(cmds []LogCommand) error {
		var parts []string
		for _, c := range cmds {
			parts = append(parts, fmt.Sprintf("%d@%d:%s", c.DB, c.Now, bytes.Join(c.Args, []byte(" "))))
		}
		got = append(got, strings.Join(parts, ";"))
		return nil
	})
	return got, end, err
}

func TestLogRoundTripAndDamage(t *testing.T) {
	file := logFile(
		[]LogCommand{{0, 1000, args("set", "k", "v")}},
		[]LogCommand{{3, 1001, args("incr", "n")}, {3, 1001, args("lpush", "l", "", "\x00\xff")}},
		[]LogCommand{{15, -1, args("del", "k")}},
	)
	want := []string{"0@1000:set k v", "3@1001:incr n;3@1001:lpush l  \x00\xff", "15@-1:del k"}
	got, end, err := readAll(file)
	if err != nil || end != int64(len(file)) || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %q end %d err %v", got, end, err)
	}
	lastStart := len(logFile([]LogCommand{{0, 1000, args("set", "k", "v")}}, []LogCommand{{3, 1001, args("incr", "n")}, {3, 1001, args("lpush", "l", "", "\x00\xff")}}))

	// A torn last record: everything before it loads, ErrTruncated says where.
	for cut := lastStart + 1; cut < len(file); cut++ {
		got, end, err := readAll(file[:cut])
		if !errors.Is(err, ErrTruncated) || end != int64(lastStart) || len(got) != 2 {
			t.Fatalf("cut at %d: %v end %d got %d", cut, err, end, len(got))
		}
	}
	bad := bytes.Clone(file)
	bad[len(bad)-1] ^= 1 // garbage in the last record only: a torn write too
	if _, _, err := readAll(bad); !errors.Is(err, ErrTruncated) {
		t.Errorf("damaged last record: %v", err)
	}
	// Damage in the middle is corruption at that record's offset.
	bad = bytes.Clone(file)
	bad[headerSize+recordHead+2] ^= 1
	_, _, err = readAll(bad)
	var fe *FormatError
	if !errors.As(err, &fe) || errors.Is(err, ErrTruncated) || fe.Offset != headerSize {
		t.Errorf("damaged first record: %v", err)
	}
	// A damaged length that points past the end is not a torn write.
	bad = bytes.Clone(file)
	bad[headerSize+2] = 0x7f
	if _, _, err = readAll(bad); !errors.As(err, &fe) || errors.Is(err, ErrTruncated) || fe.Offset != headerSize {
		t.Errorf("damaged length: %v", err)
	}
}

func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "dump.hkv")
	os.WriteFile(snap, writeSnapshot(t, map[int]map[string]*keyspace.Entry{0: sample()}), 0o644)
	if msg, err := CheckFile(snap); err != nil || !strings.Contains(msg, "snapshot OK") {
		t.Errorf("%q %v", msg, err)
	}
	log := filepath.Join(dir, "log.aof")
	os.WriteFile(log, logFile([]LogCommand{{0, 1, args("set", "a", "b")}}), 0o644)
	if msg, err := CheckFile(log); err != nil || !strings.Contains(msg, "1 commands in 1 records") {
		t.Errorf("%q %v", msg, err)
	}
	os.WriteFile(log, []byte("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"), 0o644)
	if _, err := CheckFile(log); err == nil || !strings.Contains(err.Error(), "not a HotKV file") {
		t.Errorf("RESP text: %v", err)
	}
}

// FixLog cuts at the first bad record (the torn-tail case is cut the same
// way) and keeps the whole file in .bak; a damaged header is refused.
func TestFixLog(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log.aof")
	good := logFile([]LogCommand{{0, 1, args("set", "a", "b")}})
	file := append(logFile([]LogCommand{{0, 1, args("set", "a", "b")}}, []LogCommand{{0, 2, args("set", "c", "d")}}), good[headerSize:]...)
	file[len(good)+2] ^= 1 // the second record's length: corruption, more data follows
	os.WriteFile(log, file, 0o644)
	records, kept, dropped, err := FixLog(log)
	if now, _ := os.ReadFile(log); err != nil || records != 1 || kept != int64(len(good)) || dropped != int64(len(file)-len(good)) || !bytes.Equal(now, good) {
		t.Fatalf("%d %d %d %v: %q", records, kept, dropped, err, now)
	}
	if bak, _ := os.ReadFile(log + ".bak"); !bytes.Equal(bak, file) {
		t.Fatal("backup differs")
	}
	file = bytes.Clone(good)
	file[3] ^= 1
	os.WriteFile(log, file, 0o644)
	if _, _, _, err := FixLog(log); err == nil || !strings.Contains(err.Error(), "header") {
		t.Fatalf("damaged header: %v", err)
	}
	if now, _ := os.ReadFile(log); !bytes.Equal(now, file) {
		t.Fatal("a refused fix changed the file")
	}
}

func FuzzReadSnapshot(f *testing.F) {
	small := map[string]*keyspace.Entry{}
	for k, e := range sample() {
		if k != "big" && k != "bighash" && k != "htset" && k != "list" {
			small[k] = e
		}
	}
	f.Add(writeSnapshot(&testing.T{}, map[int]map[string]*keyspace.Entry{1: small}))
	f.Add(writeSnapshot(&testing.T{}, map[int]map[string]*keyspace.Entry{0: {"h": small["hash"]}, 2: {"z": small["zset"]}}))
	for _, k := range []string{"hash", "zset", "intset", "lpset", "smalllist", "volatile", "vset", "reduced"} {
		var e Enc // bare entries: mutations of these reach the value decoders
		EncodeEntry(&e, k, small[k])
		f.Add(e.B)
	}
	f.Add(sampleIndexes())
	f.Fuzz(func(t *testing.T, b []byte) {
		ReadSnapshot(bytes.NewReader(b), func(int, []byte, *keyspace.Entry) error { return nil })
		// Block contents behind a valid checksum: decode entries directly.
		d := Dec{B: b}
		for d.Left() > 0 {
			if _, _, err := DecodeEntry(&d); err != nil {
				break
			}
		}
		DecodeIndexes(&Dec{B: b}, vindex.NewRegistry())
	})
}

func FuzzReadLog(f *testing.F) {
	f.Add(logFile([]LogCommand{{0, 1000, args("set", "k", "v")}}, []LogCommand{{2, 5, args("del", "a", "b")}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		ReadLog(bytes.NewReader(b), func([]LogCommand) error { return nil })
	})
}
