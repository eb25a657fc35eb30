package commands

import (
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/vector/hnsw"
	"github.com/hotkv/hotkv/internal/vector/quant"
	"github.com/hotkv/hotkv/internal/vector/vindex"
	"github.com/hotkv/hotkv/internal/vector/vstore"
)

// HotKV's named vector indexes (VECTOR-API.md, docs/commands/vectors.md):
// VSIM.CREATEINDEX, VSIM.SET, VSIM.MSET, VSIM.SEARCH, VSIM.GET, VSIM.DEL,
// VSIM.DROPINDEX, VSIM.INFO, VSIM.LIST. They name no keys, so the
// dispatcher takes no shard lock: each index synchronises itself (see
// package vstore), and inserts and searches run in parallel on every core.

const (
	errNoIndex       = "ERR no such index"
	vindexDefaultK   = 10
	vindexDefaultEF  = 100
	vindexParallelAt = 64 // VSIM.MSET batches at least this large insert on every core
)

var metricNames = map[string]hnsw.Metric{"COSINE": hnsw.Cosine, "L2": hnsw.L2, "IP": hnsw.InnerProduct}

var typeNames = map[string]quant.Kind{"FLOAT32": quant.F32, "INT8": quant.Q8, "BINARY": quant.Bin}

func metricName(m hnsw.Metric) string {
	for n, v := range metricNames {
		if v == m {
			return n
		}
	}
	return "UNKNOWN"
}

func typeName(k quant.Kind) string {
	for n, v := range typeNames {
		if v == k {
			return n
		}
	}
	return "UNKNOWN"
}

// getIndex returns the index named by args[1], or answers "no such index".
func getIndex(x *cmdtable.Ctx) *vindex.Index {
	ix := x.Indexes.Get(string(x.Args[1]))
	if ix == nil {
		x.Error(errNoIndex)
	}
	return ix
}

func vindexCreate(x *cmdtable.Ctx) {
	a := x.Args
	c := hnsw.Config{M: hnsw.DefaultM, EfConstruction: hnsw.DefaultEfConstruction}
	intOpt := func(j int, lo, hi int64, name string) (int, bool) {
		n, ok := cmdtable.ParseInt(a[j])
		if !ok || n < lo || n > hi {
			x.Error("ERR " + name + " must be an integer between " + strconv.FormatInt(lo, 10) + " and " + strconv.FormatInt(hi, 10))
			return 0, false
		}
		return int(n), true
	}
	for j := 2; j < len(a); j++ {
		opt := strings.ToUpper(string(a[j]))
		more := j+1 < len(a)
		var ok bool
		switch {
		case opt == "DIM" && more:
			j++
			if c.Dim, ok = intOpt(j, 1, maxVectorDim, "DIM"); !ok {
				return
			}
		case opt == "M" && more:
			j++
			if c.M, ok = intOpt(j, vsetMinM, vsetMaxM, "M"); !ok {
				return
			}
		case opt == "EF_CONSTRUCTION" && more:
			j++
			if c.EfConstruction, ok = intOpt(j, 1, vsetMaxEF, "EF_CONSTRUCTION"); !ok {
				return
			}
		case opt == "METRIC" && more:
			j++
			if c.Metric, ok = metricNames[strings.ToUpper(string(a[j]))]; !ok {
				x.Error(errMetric)
				return
			}
		case opt == "TYPE" && more:
			j++
			if c.Quant, ok = typeNames[strings.ToUpper(string(a[j]))]; !ok {
				x.Error(errQuantType)
				return
			}
		case opt == "RERANK":
			c.Rerank = true
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
	if c.Dim == 0 {
		x.Error(errDimRequired)
		return
	}
	if c.Quant == quant.Bin && c.Metric != hnsw.Cosine {
		x.Error("ERR TYPE BINARY requires METRIC COSINE")
		return
	}
	if _, err := x.Indexes.Create(string(a[1]), c); err != nil {
		x.Error("ERR " + err.Error())
		return
	}
	x.W.OK()
}

// indexVector parses a vector argument for an index and checks it against
// the index: its dimension, and no zero vector under cosine. It answers the
// error itself.
func indexVector(x *cmdtable.Ctx, ix *vindex.Index, args [][]byte, i int) (v []float32, consumed int, ok bool) {
	v, _, consumed, ok = parseVector(args, i, false)
	if !ok {
		x.Error(errVecSpec)
		return nil, 0, false
	}
	return v, consumed, checkIndexVector(x, ix, v)
}

func checkIndexVector(x *cmdtable.Ctx, ix *vindex.Index, v []float32) bool {
	switch ix.Check(v, false) {
	case nil:
		return true
	case vstore.ErrZero:
		x.Error("ERR zero vector has no direction under METRIC COSINE")
	default:
		x.Error("ERR vector dimension mismatch - got " + strconv.Itoa(len(v)) + " but index has " + strconv.Itoa(ix.Dim()))
	}
	return false
}

// checkAttrs refuses attributes that are not a JSON object ("" is none).
func checkAttrs(x *cmdtable.Ctx, b []byte) bool {
	if len(b) == 0 {
		return true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil || obj == nil {
		x.Error("ERR ATTRS must be a JSON object")
		return false
	}
	return true
}

func vindexSet(x *cmdtable.Ctx) {
	ix := getIndex(x)
	if ix == nil {
		return
	}
	a := x.Args
	v, n, ok := indexVector(x, ix, a, 3)
	if !ok {
		return
	}
	var attrs []byte
	switch rest := a[3+n:]; {
	case len(rest) == 0:
	case len(rest) == 2 && strings.EqualFold(string(rest[0]), "ATTRS"):
		if attrs = rest[1]; !checkAttrs(x, attrs) {
			return
		}
	default:
		x.Error(cmdtable.ErrSyntax)
		return
	}
	added, err := ix.Set(string(a[2]), v, string(attrs), true)
	if err != nil {
		x.Error("ERR " + err.Error())
		return
	}
	x.W.Int(b2i(added))
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func vindexMSet(x *cmdtable.Ctx) {
	ix := getIndex(x)
	if ix == nil {
		return
	}
	a := x.Args
	fp32 := strings.EqualFold(string(a[2]), "FP32")
	per := 1 // arguments per vector
	if !fp32 {
		if !strings.EqualFold(string(a[2]), "VALUES") || len(a) < 4 {
			x.Error(cmdtable.ErrSyntax)
			return
		}
		n, ok := cmdtable.ParseInt(a[3])
		if !ok || n < 1 || n > maxVectorDim {
			x.Error(errVecSpec)
			return
		}
		per = int(n)
	}
	items := a[3:]
	if !fp32 {
		items = a[4:]
	}
	if len(items) == 0 || len(items)%(1+per) != 0 {
		x.Error(cmdtable.WrongArgs(string(a[0])))
		return
	}
	// Validate everything first: a bad vector anywhere stores nothing. A
	// repeated id keeps its last vector.
	type item struct {
		id string
		v  []float32
	}
	batch := make([]item, 0, len(items)/(1+per))
	pos := map[string]int{}
	for j := 0; j < len(items); j += 1 + per {
		var v []float32
		var ok bool
		if fp32 {
			v, ok = decodeFP32(items[j+1])
		} else {
			v, ok = parseValues(items[j+1 : j+1+per])
		}
		if !ok || vstore.CheckVector(v, false) != nil {
			x.Error(errVecSpec)
			return
		}
		if !checkIndexVector(x, ix, v) {
			return
		}
		id := string(items[j])
		if p, dup := pos[id]; dup {
			batch[p].v = v
			continue
		}
		pos[id] = len(batch)
		batch = append(batch, item{id, v})
	}
	var added, failed int64
	var mu sync.Mutex
	insert := func(part []item) {
		var n, bad int64
		for _, it := range part {
			ok, err := ix.Set(it.id, it.v, "", true)
			if err != nil {
				bad++
			} else if ok {
				n++
			}
		}
		mu.Lock()
		added += n
		failed += bad
		mu.Unlock()
	}
	workers := min(runtime.GOMAXPROCS(0), len(batch)/vindexParallelAt+1)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(batch)/workers, (w+1)*len(batch)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			insert(batch[lo:hi])
		}()
	}
	wg.Wait()
	if failed > 0 { // cannot happen: vectors were checked
		x.Error("ERR internal error storing vectors")
		return
	}
	x.W.Int(added)
}

// vindexQuery is a parsed VSIM.SEARCH.
type vindexQuery struct {
	vec         []float32
	q           vstore.Query
	withAttribs bool
}

// parseSearch reads VSIM.SEARCH's arguments after the index name; it
// answers errors itself.
func parseSearch(x *cmdtable.Ctx, ix *vindex.Index) (*vindexQuery, bool) {
	a := x.Args
	v, n, ok := indexVector(x, ix, a, 2)
	if !ok {
		return nil, false
	}
	r := &vindexQuery{vec: v}
	syn := searchSyntax{count: "K", count0: vindexDefaultK, ef0: vindexDefaultEF, errSyntax: cmdtable.ErrSyntax}
	if r.withAttribs, ok = parseSearchOptions(x, a[2+n:], syn, &r.q); !ok {
		return nil, false
	}
	return r, true
}

func vindexSearch(x *cmdtable.Ctx) {
	ix := getIndex(x)
	if ix == nil {
		return
	}
	r, ok := parseSearch(x, ix)
	if !ok {
		return
	}
	hits, err := ix.Search(r.vec, r.q)
	if err != nil {
		x.Error("ERR " + err.Error())
		return
	}
	per := 2
	if r.withAttribs {
		per = 3
	}
	x.W.Array(per * len(hits))
	for _, h := range hits {
		x.W.BulkString(h.Name)
		writeFloat32(x.W, h.Dist)
		if r.withAttribs {
			writeAttrs(x.W, h.Attrs)
		}
	}
}

func vindexGet(x *cmdtable.Ctx) {
	ix := getIndex(x)
	if ix == nil {
		return
	}
	v, e, ok := ix.Get(string(x.Args[2]))
	if !ok {
		x.W.Null()
		return
	}
	x.W.Array(2)
	writeVector(x.W, v)
	writeAttrs(x.W, e.Attrs)
}

func vindexDel(x *cmdtable.Ctx) {
	ix := getIndex(x)
	if ix == nil {
		return
	}
	var n int64
	for _, id := range x.Args[2:] {
		if ix.Delete(string(id)) {
			n++
		}
	}
	x.W.Int(n)
}

func vindexDrop(x *cmdtable.Ctx) {
	if !x.Indexes.Drop(string(x.Args[1])) {
		x.Error(errNoIndex)
		return
	}
	x.W.OK()
}

func vindexInfo(x *cmdtable.Ctx) {
	ix := getIndex(x)
	if ix == nil {
		return
	}
	c := ix.Index().Config()
	n := ix.Len()
	bytes := ix.Bytes()
	w := x.W
	w.Map(12)
	w.BulkString("name")
	w.BulkString(ix.Name)
	w.BulkString("dim")
	w.Int(int64(c.Dim))
	w.BulkString("metric")
	w.BulkString(metricName(c.Metric))
	w.BulkString("type")
	w.BulkString(typeName(c.Quant))
	w.BulkString("rerank")
	w.Int(b2i(ix.Index().Config().Rerank && c.Quant != quant.F32))
	w.BulkString("m")
	w.Int(int64(c.M))
	w.BulkString("ef_construction")
	w.Int(int64(c.EfConstruction))
	w.BulkString("size")
	w.Int(int64(n))
	w.BulkString("attributes")
	w.Int(int64(ix.AttrCount()))
	w.BulkString("max_level")
	w.Int(int64(max(ix.Index().MaxLevel(), 0)))
	w.BulkString("bytes")
	w.Int(bytes)
	w.BulkString("bytes_per_vector")
	w.Int(bytes / int64(max(n, 1)))
}

func vindexList(x *cmdtable.Ctx) {
	names := x.Indexes.Names()
	x.W.Array(len(names))
	for _, n := range names {
		x.W.BulkString(n)
	}
}

func init() {
	const g = "vector-index"
	r, w := cmdtable.ReadOnly, cmdtable.Write
	vi := func(name string, arity int, f cmdtable.Flags, run func(*cmdtable.Ctx), summary, args string) *cmdtable.Cmd {
		return &cmdtable.Cmd{Name: name, Arity: arity, Flags: f, Run: run, Group: g, Since: "0.1.0",
			Summary: summary, Args: args, ACL: []string{"vectorset"}}
	}
	cmdtable.Register(
		cmdtable.AsSent.Of(vi("vsim.createindex", -4, w, vindexCreate, "Creates a named vector index (HotKV): dimension, metric, graph degree, build effort and storage type.",
			"name DIM dim [METRIC COSINE | L2 | IP] [M m] [EF_CONSTRUCTION n] [TYPE FLOAT32 | INT8 | BINARY] [RERANK]")),
		cmdtable.AsSent.Of(vi("vsim.set", -5, w|cmdtable.DenyOOM, vindexSet, "Inserts an id with its vector and attributes into a named vector index, or replaces them.",
			"name id (VALUES n v1 ... vn | FP32 blob) [ATTRS json]")),
		cmdtable.AsSent.Of(vi("vsim.mset", -5, w|cmdtable.DenyOOM, vindexMSet, "Inserts or replaces many ids with their vectors in a named vector index; nothing is stored if any vector is invalid.",
			"name (VALUES n | FP32) id vector [id vector ...]")),
		vi("vsim.search", -4, r, vindexSearch, "Returns the ids nearest to a vector in a named vector index, with their distances.",
			"name (VALUES n v1 ... vn | FP32 blob) [K k] [EF ef] [FILTER expression] [FILTER-EF n] [WITHATTRIBS]"),
		vi("vsim.get", 3, r|cmdtable.Fast, vindexGet, "Returns the vector and attributes of an id in a named vector index.", "name id"),
		cmdtable.AsSent.Of(vi("vsim.del", -3, w|cmdtable.Fast, vindexDel, "Removes ids from a named vector index.", "name id [id ...]")),
		cmdtable.AsSent.Of(vi("vsim.dropindex", 2, w, vindexDrop, "Deletes a named vector index and everything in it.", "name")),
		vi("vsim.info", 2, r|cmdtable.Fast, vindexInfo, "Returns the configuration, size and memory of a named vector index.", "name"),
		vi("vsim.list", 1, r, vindexList, "Lists the named vector indexes.", ""),
	)
}
