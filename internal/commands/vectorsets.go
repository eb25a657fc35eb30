package commands

import (
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/value/vset"
	"github.com/hotkv/hotkv/internal/vector/filter"
	"github.com/hotkv/hotkv/internal/vector/quant"
	"github.com/hotkv/hotkv/internal/vector/vstore"
)

// Redis 8 vector sets (VADD, VSIM, ...), argument rules, replies and error
// texts as Redis 8.0.2's modules/vector-sets.
//
// Locking: a vector set is an ordinary key, so its commands run with the
// key's shard locked; writes (VADD, VREM, VSETATTR) are ordered by it. The
// element store underneath is itself safe for concurrent use, so VSIM only
// parses and pins the set under the lock and runs the search, and writes
// its reply, in Ctx.After, once the shard is unlocked: searches of one set
// from many connections run in parallel, alongside its writes, and a long
// search never holds up the other keys of the shard. A DEL meanwhile does not
// disturb it (the search finishes on the set it pinned, as Redis's threaded
// VSIM does).

const (
	vsetDefaultEF    = 100 // VSIM EF
	vsetDefaultCount = 10
	vsetBuildEF      = 200 // VADD EF
	vsetMinM         = 4
	vsetMaxM         = 4096
	vsetMaxEF        = 1_000_000
	vsetMaxRandom    = 1 << 24 // bound on VRANDMEMBER's negative count
)

// errVecDim and errProjDim are VADD's and VSIM's errors for a vector of the
// wrong dimension, and for one that does not fit the set's projection.
func errVecDim(got, want int) string {
	return "ERR Vector dimension mismatch - got " + strconv.Itoa(got) + " but set has " + strconv.Itoa(want)
}

func errProjDim(got, want int) string {
	return "ERR Input dimension mismatch for projection - got " + strconv.Itoa(got) + " but projection expects " + strconv.Itoa(want)
}

func lookupVset(x *cmdtable.Ctx, key []byte, read bool) (*vset.Set, bool) {
	return typed[*vset.Set](x, key, keyspace.KindVectorSet, read)
}

// vsetElement finds the element args[2] of the set at args[1] for a read;
// ok is false after answering WRONGTYPE, or null for a missing key or
// element.
func vsetElement(x *cmdtable.Ctx) (s *vset.Set, id uint32, ok bool) {
	s, ok = lookupVset(x, x.Args[1], true)
	if !ok {
		return nil, 0, false
	}
	if s != nil {
		id, ok = s.ID(string(x.Args[2]))
	}
	if s == nil || !ok {
		x.W.Null()
		return nil, 0, false
	}
	return s, id, true
}

func vadd(x *cmdtable.Ctx) {
	a := x.Args
	if len(a) < 5 {
		vecArity(x, "VADD")
		return
	}
	v, rdim, consumed, ok := parseVector(a, 2, true)
	if !ok {
		x.Error(errVecSpec)
		return
	}
	if len(a)-2-consumed < 1 {
		vecArity(x, "VADD")
		return
	}
	elem := a[2+consumed]
	q, m, ef := quant.Q8, int64(16), int64(vsetBuildEF)
	var attrs []byte
	setAttrs := false
	for j := 3 + consumed; j < len(a); j++ {
		opt := strings.ToUpper(string(a[j]))
		switch {
		case opt == "CAS": // inserts never block the shard for long: nothing to do
		case opt == "EF" && j+1 < len(a):
			j++
			if n, ok := cmdtable.ParseInt(a[j]); !ok || n <= 0 || n > vsetMaxEF {
				x.Error(errInvalidEF)
				return
			} else {
				ef = n
			}
		case opt == "M" && j+1 < len(a):
			j++
			if n, ok := cmdtable.ParseInt(a[j]); !ok || n < vsetMinM || n > vsetMaxM {
				x.Error("ERR invalid M")
				return
			} else {
				m = n
			}
		case opt == "SETATTR" && j+1 < len(a):
			j++
			attrs, setAttrs = a[j], true
		case opt == "NOQUANT":
			q = quant.F32
		case opt == "BIN":
			q = quant.Bin
		case opt == "Q8":
			q = quant.Q8
		default:
			x.Error("ERR invalid option after element")
			return
		}
	}
	key := a[1]
	s, ok := lookupVset(x, key, false)
	if !ok {
		return
	}
	created := s == nil
	if created {
		dim, in := len(v), 0
		if rdim > 0 {
			dim, in = rdim, len(v)
		}
		var err error
		if s, err = vset.New(dim, q, int(m), int(ef), in); err != nil {
			x.Error("ERR unable to create a Vector Set: system resources issue?")
			return
		}
	} else {
		cfg := s.Index().Config()
		switch {
		case cfg.Quant != q:
			x.Error("ERR asked quantization mismatch with existing vector set")
			return
		case cfg.M != int(m):
			x.Error("ERR asked M value mismatch with existing vector set")
			return
		case s.InDim == 0 && cfg.Dim != len(v) || s.InDim > 0 && cfg.Dim != rdim:
			x.Error(errVecDim(len(v), cfg.Dim))
			return
		case rdim > 0 && s.InDim == 0:
			x.Error("ERR cannot add projection to existing set without projection")
			return
		case s.InDim > 0 && len(v) != s.InDim:
			x.Error(errProjDim(len(v), s.InDim))
			return
		}
	}
	if s.InDim > 0 {
		v = s.Project(v)
	}
	added, err := s.Set(string(elem), v, string(attrs), setAttrs)
	if err != nil { // cannot happen: dimensions were checked
		x.Error("ERR " + err.Error())
		return
	}
	if created {
		x.Shard(key).Put(key, &keyspace.Entry{Kind: keyspace.KindVectorSet, Obj: s})
	}
	x.W.Bool(added)
}

// vsimQuery is a parsed VSIM, run after the shard is unlocked.
type vsimQuery struct {
	set                     *vset.Set
	vec                     []float32
	q                       vstore.Query
	withScores, withAttribs bool
}

func vsim(x *cmdtable.Ctx) {
	a := x.Args
	if len(a) < 4 {
		vecArity(x, "VSIM")
		return
	}
	s, ok := lookupVset(x, a[1], true)
	if !ok {
		return
	}
	if s == nil {
		x.W.Array(0)
		return
	}
	r := &vsimQuery{set: s}
	var n int
	if strings.EqualFold(string(a[2]), "ELE") {
		id, ok := s.ID(string(a[3]))
		if !ok {
			x.Error("ERR element not found in set")
			return
		}
		r.vec = s.Index().Vector(id, make([]float32, s.Dim()))
		n = 2
	} else {
		v, _, consumed, ok := parseVector(a, 2, false)
		if !ok {
			x.Error(errVecSpec)
			return
		}
		if s.InDim > 0 && len(v) != s.Dim() {
			if len(v) != s.InDim {
				x.Error(errProjDim(len(v), s.InDim))
				return
			}
			v = s.Project(v)
		}
		r.vec, n = v, consumed
	}
	if len(r.vec) != s.Dim() {
		x.Error(errVecDim(len(r.vec), s.Dim()))
		return
	}
	if !parseVsimOptions(x, a[2+n:], r) {
		return
	}
	x.After = func() { r.reply(x) }
}

// parseVsimOptions reads VSIM's options; false after an error reply.
func parseVsimOptions(x *cmdtable.Ctx, opts [][]byte, r *vsimQuery) bool {
	eps := 2.0
	syn := searchSyntax{count: "COUNT", count0: vsetDefaultCount, ef0: vsetDefaultEF,
		errSyntax: "ERR syntax error in VSIM command", own: func(opt string, arg []byte) (int, string) {
			switch {
			case opt == "WITHSCORES":
				r.withScores = true
			case opt == "TRUTH":
				r.q.Exact = true
			case opt == "NOTHREAD":
			case opt == "EPSILON" && arg != nil:
				var ok bool
				if eps, ok = filter.ParseNumber(string(arg)); !ok || eps <= 0 {
					return 1, "ERR invalid EPSILON"
				}
				return 1, ""
			default:
				return -1, ""
			}
			return 0, ""
		}}
	var ok bool
	if r.withAttribs, ok = parseSearchOptions(x, opts, syn, &r.q); !ok {
		return false
	}
	if eps < 2 {
		r.q.MaxDist = float32(eps)
	}
	return true
}

func (r *vsimQuery) reply(x *cmdtable.Ctx) {
	hits, err := r.set.Search(r.vec, r.q)
	if err != nil { // cannot happen: the dimension was checked
		x.Error("ERR " + err.Error())
		return
	}
	w := x.W
	both := r.withScores && r.withAttribs
	switch {
	case w.Proto == 3 && (r.withScores || r.withAttribs):
		w.Map(len(hits))
	default:
		per := 1
		if r.withScores {
			per++
		}
		if r.withAttribs {
			per++
		}
		w.Array(len(hits) * per)
	}
	for _, h := range hits {
		w.BulkString(h.Name)
		if both && w.Proto == 3 {
			w.Array(2)
		}
		if r.withScores {
			// Rounding can put a distance a hair outside [0, 2].
			w.Double(min(max(1-float64(h.Dist)/2, 0), 1))
		}
		if r.withAttribs {
			writeAttrs(w, h.Attrs)
		}
	}
}

func vrem(x *cmdtable.Ctx) {
	if len(x.Args) != 3 {
		vecArity(x, "VREM")
		return
	}
	s, ok := lookupVset(x, x.Args[1], false)
	if !ok {
		return
	}
	if s == nil {
		x.W.Bool(false)
		return
	}
	removed := s.Delete(string(x.Args[2]))
	if removed && s.Len() == 0 {
		// Redis's module deletes the emptied key without a del event.
		x.Shard(x.Args[1]).Delete(x.Args[1], x.Now)
	}
	x.W.Bool(removed)
}

func vcard(x *cmdtable.Ctx) {
	if len(x.Args) != 2 {
		vecArity(x, "VCARD")
		return
	}
	if s, ok := lookupVset(x, x.Args[1], true); ok {
		if s == nil {
			x.W.Int(0)
		} else {
			x.W.Int(int64(s.Len()))
		}
	}
}

func vdim(x *cmdtable.Ctx) {
	if len(x.Args) != 2 {
		vecArity(x, "VDIM")
		return
	}
	if s, ok := lookupVset(x, x.Args[1], true); ok {
		if s == nil {
			x.Error("ERR key does not exist")
		} else {
			x.W.Int(int64(s.Dim()))
		}
	}
}

func vemb(x *cmdtable.Ctx) {
	a := x.Args
	if len(a) < 3 {
		vecArity(x, "VEMB")
		return
	}
	raw := false
	for _, o := range a[3:] {
		if !strings.EqualFold(string(o), "RAW") {
			x.Error("ERR invalid option")
			return
		}
		raw = true
	}
	s, id, ok := vsetElement(x)
	if !ok {
		return
	}
	idx := s.Index()
	if !raw {
		writeVector(x.W, s.VectorOf(id))
		return
	}
	f := idx.Format()
	code := idx.Code(id)
	q8 := f.Kind() == quant.Q8
	if q8 {
		x.W.Array(4)
	} else {
		x.W.Array(3)
	}
	x.W.Simple(f.Kind().String())
	x.W.Bulk(f.Raw(code))
	writeFloat32(x.W, idx.Norm(id))
	if q8 {
		writeFloat32(x.W, quant.Range(code))
	}
}

func vsetattr(x *cmdtable.Ctx) {
	if len(x.Args) != 4 {
		vecArity(x, "VSETATTR")
		return
	}
	s, ok := lookupVset(x, x.Args[1], false)
	if !ok {
		return
	}
	x.W.Bool(s != nil && s.SetAttrs(string(x.Args[2]), string(x.Args[3])))
}

func vgetattr(x *cmdtable.Ctx) {
	if len(x.Args) != 3 {
		vecArity(x, "VGETATTR")
		return
	}
	s, ok := lookupVset(x, x.Args[1], true)
	if !ok {
		return
	}
	var attrs string
	if s != nil {
		attrs, _ = s.Attrs(string(x.Args[2]))
	}
	writeAttrs(x.W, attrs)
}

func vlinks(x *cmdtable.Ctx) {
	a := x.Args
	if len(a) < 3 || len(a) > 4 || len(a) == 4 && !strings.EqualFold(string(a[3]), "WITHSCORES") {
		vecArity(x, "VLINKS")
		return
	}
	scores := len(a) == 4
	s, id, ok := vsetElement(x)
	if !ok {
		return
	}
	idx := s.Index()
	top := idx.Level(id)
	x.W.Array(top + 1)
	for l := top; l >= 0; l-- {
		type link struct {
			name string
			id   uint32
		}
		var links []link
		for _, n := range idx.Links(id, l) {
			if e := s.Element(n); e != nil {
				links = append(links, link{e.Name, n})
			}
		}
		if scores {
			x.W.Map(len(links))
		} else {
			x.W.Array(len(links))
		}
		for _, k := range links {
			x.W.BulkString(k.name)
			if scores {
				// Redis computes the similarity as a C float.
				writeFloat32(x.W, 1-idx.Distance(id, k.id)/2)
			}
		}
	}
}

func vinfo(x *cmdtable.Ctx) {
	if len(x.Args) != 2 {
		vecArity(x, "VINFO")
		return
	}
	s, ok := lookupVset(x, x.Args[1], true)
	if !ok {
		return
	}
	if s == nil {
		x.W.NullArray()
		return
	}
	idx := s.Index()
	cfg := idx.Config()
	n := s.Len()
	bytes := s.Bytes()
	w := x.W
	// Redis's nine fields, then HotKV's memory figures.
	w.Map(11)
	w.Simple("quant-type")
	w.Simple(cfg.Quant.String())
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"hnsw-m", int64(cfg.M)}, {"vector-dim", int64(cfg.Dim)}, {"projection-input-dim", int64(s.InDim)},
		{"size", int64(n)}, {"max-level", int64(max(idx.MaxLevel(), 0))}, {"attributes-count", int64(s.AttrCount())},
		{"vset-uid", int64(s.UID)}, {"hnsw-max-node-uid", int64(s.Inserts())},
		{"memory-bytes", bytes}, {"bytes-per-vector", bytes / int64(max(n, 1))},
	} {
		w.Simple(f.name)
		w.Int(f.v)
	}
}

func vrandmember(x *cmdtable.Ctx) {
	a := x.Args
	if len(a) != 2 && len(a) != 3 {
		vecArity(x, "VRANDMEMBER")
		return
	}
	count, withCount := int64(1), len(a) == 3
	if withCount {
		var ok bool
		if count, ok = cmdtable.ParseInt(a[2]); !ok {
			x.Error("ERR COUNT value is not an integer")
			return
		}
		if count == 0 {
			x.W.Array(0)
			return
		}
		if count < -vsetMaxRandom {
			// Redis would try to send them all; a reply this size is
			// only a way to exhaust memory.
			x.Error(errOutOfRange)
			return
		}
	}
	s, ok := lookupVset(x, a[1], true)
	if !ok {
		return
	}
	if s == nil {
		if withCount {
			x.W.Array(0)
		} else {
			x.W.Null()
		}
		return
	}
	if !withCount {
		x.W.BulkString(s.Random().Name)
		return
	}
	if count < 0 {
		n := -count
		x.W.Array(int(n))
		for range n {
			x.W.BulkString(s.Random().Name)
		}
		return
	}
	names := s.Sample(int(min(count, int64(s.Len()))))
	x.W.Array(len(names))
	for _, n := range names {
		x.W.BulkString(n)
	}
}

func vismember(x *cmdtable.Ctx) {
	if len(x.Args) != 3 {
		vecArity(x, "VISMEMBER")
		return
	}
	if s, ok := lookupVset(x, x.Args[1], true); ok {
		x.W.Bool(s != nil && s.Contains(string(x.Args[2])))
	}
}

func init() {
	const g = "vectorset"
	r, w := cmdtable.ReadOnly, cmdtable.Write
	vc := func(name string, f cmdtable.Flags, run func(*cmdtable.Ctx), since, summary, args string) *cmdtable.Cmd {
		return &cmdtable.Cmd{Name: name, Arity: -1, Flags: f, First: 1, Last: 1, Step: 1, Run: run, Group: g,
			Since: since, Summary: summary, Args: args, ACL: []string{"vectorset"}}
	}
	cmdtable.Register(
		cmdtable.AsSent.Of(vc("vadd", w|cmdtable.DenyOOM, vadd, "8.0.0", "Adds one or more elements to a vector set, or updates its vector if it exists.",
			"key [REDUCE dim] (FP32 vector | VALUES num vector) element [CAS] [NOQUANT | Q8 | BIN] [EF build-exploration-factor] [SETATTR attributes] [M numlinks]")),
		vc("vsim", r, vsim, "8.0.0", "Returns the elements most similar to a vector or to an element of a vector set.",
			"key (ELE element | FP32 vector | VALUES num vector) [WITHSCORES] [WITHATTRIBS] [COUNT num] [EPSILON delta] [EF search-exploration-factor] [FILTER expression] [FILTER-EF max-filtering-effort] [TRUTH] [NOTHREAD]"),
		cmdtable.AsSent.Of(vc("vrem", w, vrem, "8.0.0", "Removes an element from a vector set.", "key element")),
		vc("vcard", r|cmdtable.Fast, vcard, "8.0.0", "Returns the number of elements in a vector set.", "key"),
		vc("vdim", r|cmdtable.Fast, vdim, "8.0.0", "Returns the dimension of the vectors in a vector set.", "key"),
		vc("vemb", r|cmdtable.Fast, vemb, "8.0.0", "Returns the vector of an element of a vector set.", "key element [RAW]"),
		cmdtable.AsSent.Of(vc("vsetattr", w|cmdtable.Fast, vsetattr, "8.0.0", "Sets or removes the JSON attributes of an element of a vector set.", "key element json")),
		vc("vgetattr", r|cmdtable.Fast, vgetattr, "8.0.0", "Returns the JSON attributes of an element of a vector set.", "key element"),
		vc("vlinks", r|cmdtable.Fast, vlinks, "8.0.0", "Returns the neighbours of an element in each layer of a vector set's HNSW graph.", "key element [WITHSCORES]"),
		vc("vinfo", r|cmdtable.Fast, vinfo, "8.0.0", "Returns information about a vector set.", "key"),
		vc("vrandmember", r, vrandmember, "8.0.0", "Returns one or more random elements of a vector set.", "key [count]"),
		vc("vismember", r, vismember, "8.2.0", "Determines whether an element belongs to a vector set.", "key element"),
	)
}
