package vector

import (
	"encoding/binary"
	"fmt"
	"math"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/bench/dataset"
	"github.com/hotkv/hotkv/internal/bench/groundtruth"
	"github.com/hotkv/hotkv/internal/bench/respclient"
)

// fake is a tiny server for both engines' commands that searches exactly,
// so recall through it must be 1.
type fake struct {
	mu    sync.Mutex
	known map[string]bool
	vecs  map[string]map[string][]float32
	dims  map[string]int
}

func startFake(t *testing.T, known ...string) string {
	t.Helper()
	f := &fake{known: map[string]bool{}, vecs: map[string]map[string][]float32{}, dims: map[string]int{}}
	for _, k := range known {
		f.known[k] = true
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go f.serve(c)
		}
	}()
	return ln.Addr().String()
}

func (f *fake) serve(c net.Conn) {
	defer c.Close()
	r := respclient.NewReader(c, 4096, false)
	for {
		v, err := r.Read()
		if err != nil {
			return
		}
		arr, _ := v.([]any)
		args := make([]string, len(arr))
		for i, a := range arr {
			args[i], _ = a.(string)
		}
		if _, err := c.Write([]byte(f.do(args))); err != nil {
			return
		}
	}
}

func blob(s string) []float32 {
	v := make([]float32, len(s)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32([]byte(s[4*i:])))
	}
	return v
}

func bulk(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }

func (f *fake) do(a []string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	name := strings.ToUpper(a[0])
	switch {
	case name == "PING":
		return "+PONG\r\n"
	case name == "INFO":
		return bulk("# Memory\r\nused_memory:1234\r\nused_memory_human:1.21K\r\n")
	case name == "COMMAND":
		out := fmt.Sprintf("*%d\r\n", len(a)-2)
		for _, n := range a[2:] {
			if f.known[strings.ToUpper(n)] {
				out += "*1\r\n" + bulk(n)
			} else {
				out += "*-1\r\n"
			}
		}
		return out
	case !f.known[name]:
		return "-ERR unknown command '" + a[0] + "'\r\n"
	case name == "DEL", name == "VSIM.DROPINDEX":
		delete(f.vecs, a[1])
		return ":1\r\n"
	case name == "VSIM.CREATEINDEX":
		f.vecs[a[1]] = map[string][]float32{}
		f.dims[a[1]], _ = strconv.Atoi(a[3])
		return "+OK\r\n"
	case name == "VADD": // VADD key FP32 blob id [CAS] NOQUANT EF n M m
		opts := a[5:]
		if len(opts) > 0 && opts[0] == "CAS" {
			opts = opts[1:]
		}
		if a[2] != "FP32" || len(opts) == 0 || opts[0] != "NOQUANT" {
			return "-ERR syntax error\r\n"
		}
		if f.vecs[a[1]] == nil {
			f.vecs[a[1]] = map[string][]float32{}
		}
		f.vecs[a[1]][a[4]] = blob(a[3])
		f.dims[a[1]] = len(a[3]) / 4
		return ":1\r\n"
	case name == "VSIM.SET": // VSIM.SET name id FP32 blob
		if a[3] != "FP32" || len(a[4])/4 != f.dims[a[1]] {
			return "-ERR vector dimension mismatch\r\n"
		}
		f.vecs[a[1]][a[2]] = blob(a[4])
		return ":1\r\n"
	case name == "VCARD":
		return fmt.Sprintf(":%d\r\n", len(f.vecs[a[1]]))
	case name == "VDIM":
		return fmt.Sprintf(":%d\r\n", f.dims[a[1]])
	case name == "VSIM.INFO":
		return "*4\r\n" + bulk("dim") + fmt.Sprintf(":%d\r\n", f.dims[a[1]]) + bulk("size") + fmt.Sprintf(":%d\r\n", len(f.vecs[a[1]]))
	case name == "VSIM", name == "VSIM.SEARCH": // VSIM key FP32 blob COUNT k EF ef / VSIM.SEARCH name FP32 blob K k EF ef
		if a[2] != "FP32" {
			return "-ERR syntax error\r\n"
		}
		q := blob(a[3])
		k, _ := strconv.Atoi(a[5])
		var ids []string
		for id := range f.vecs[a[1]] {
			ids = append(ids, id)
		}
		dist := func(id string) float64 { return groundtruth.Distance(groundtruth.Cosine, q, f.vecs[a[1]][id]) }
		sort.Slice(ids, func(i, j int) bool {
			di, dj := dist(ids[i]), dist(ids[j])
			if di != dj {
				return di < dj
			}
			x, _ := strconv.Atoi(ids[i])
			y, _ := strconv.Atoi(ids[j])
			return x < y
		})
		ids = ids[:min(k, len(ids))]
		if name == "VSIM" {
			out := fmt.Sprintf("*%d\r\n", len(ids))
			for _, id := range ids {
				out += bulk(id)
			}
			return out
		}
		out := fmt.Sprintf("*%d\r\n", 2*len(ids))
		for _, id := range ids {
			out += bulk(id) + bulk(strconv.FormatFloat(dist(id), 'g', -1, 64))
		}
		return out
	}
	return "-ERR unhandled\r\n"
}

func TestEnginesEndToEnd(t *testing.T) {
	all := dataset.Clustered(330, 8, 1)
	base, queries := all.Slice(0, 300), all.Slice(300, 330)
	truth := groundtruth.Compute(groundtruth.Cosine, base, queries, 5, nil)
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			e, _ := Lookup(name)
			addr := startFake(t, append(e.Commands(), "DEL")...)
			tg := Target{Addr: addr, Engine: e, Timeout: 2 * time.Second,
				Index: Index{Name: "idx", Dim: 8, Metric: groundtruth.Cosine, M: 16, EFConstruction: 200}}
			if err := tg.Check(); err != nil {
				t.Fatal(err)
			}
			l, err := Load(tg, base, 4, nil)
			if err != nil || l.Vectors != 300 || l.UsedMemory != 1234 {
				t.Fatalf("load %+v %v", l, err)
			}
			if err := CheckExisting(tg, base); err != nil {
				t.Fatal(err)
			}
			if err := CheckExisting(tg, dataset.Uniform(300, 4, 1)); err == nil || !strings.Contains(err.Error(), "dimension mismatch") {
				t.Fatalf("mismatch: %v", err)
			}
			rec, err := Recall(tg, queries, truth, 5, []int{10, 20}, nil)
			if err != nil || len(rec) != 2 || rec[0].Recall != 1 || rec[1].Recall != 1 {
				t.Fatalf("recall %+v %v", rec, err)
			}
			grid, err := Grid(tg, queries, GridOptions{K: 5, EFs: []int{10, 20}, Clients: []int{1, 3}, Duration: 30 * time.Millisecond, Runs: 1})
			if err != nil || len(grid) != 4 {
				t.Fatalf("grid %+v %v", grid, err)
			}
			for _, g := range grid {
				if g.Median.Ops == 0 || g.Median.Errors != 0 {
					t.Fatalf("point %+v", g)
				}
			}
		})
	}
}

func TestUnsupportedServer(t *testing.T) {
	addr := startFake(t) // knows no vector command
	for _, name := range Names() {
		e, _ := Lookup(name)
		err := Target{Addr: addr, Engine: e, Timeout: time.Second}.Check()
		if err == nil || !strings.Contains(err.Error(), "does not support "+e.Commands()[0]) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Lookup("faiss"); err == nil || !slices.ContainsFunc(Names(), func(n string) bool { return strings.Contains(err.Error(), n) }) {
		t.Errorf("unknown engine: %v", err)
	}
}

func TestRedisRejectsOtherMetrics(t *testing.T) {
	e, _ := Lookup("redis")
	if err := e.Create(nil, Index{Metric: groundtruth.L2}); err == nil || !strings.Contains(err.Error(), "cosine") {
		t.Fatal(err)
	}
}

// TestRedisCAS: engine redis loads the fast way (CAS), redis-nocas on the
// main thread (the recall Redis's graph reaches); both store float32.
func TestRedisCAS(t *testing.T) {
	for name, want := range map[string]bool{"redis": true, "redis-nocas": false} {
		e, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		req := string(e.AppendInsert(nil, Index{Name: "k", M: 16, EFConstruction: 200}, 7, []float32{1, 2}))
		if strings.Contains(req, "$3\r\nCAS\r\n") != want || !strings.Contains(req, "$7\r\nNOQUANT\r\n") {
			t.Errorf("%s: %q", name, req)
		}
	}
}
