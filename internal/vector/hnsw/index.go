package hnsw

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/vector/distance"
	"github.com/hotkv/hotkv/internal/vector/quant"
)

// Metric is how distance between vectors is measured. Smaller is closer.
type Metric uint8

const (
	// Cosine distance, 1 - cos(a, b), in [0, 2]. Vectors are stored
	// normalised and compared by dot product.
	Cosine Metric = iota
	// L2 is the squared Euclidean distance.
	L2
	// InnerProduct distance is 1 - a·b.
	InnerProduct
)

// Defaults, as Redis vector sets and hnswlib use them.
const (
	DefaultM              = 16
	DefaultEfConstruction = 200
	// MaxLevel is the highest layer a node can reach (16 layers, as Redis).
	MaxLevel = 15
	// levelP is the probability that a node reaches the next layer up. The
	// paper's 1/M (1/16) leaves the upper layers thin; with 1/4, as Redis
	// vector sets use, the walk down reaches layer 0 much nearer the query
	// on hard data: GloVe 100-d, 100k, in-order build, recall@10 at ef 40
	// went from 0.715 to 0.821 and at ef 500 from 0.977 to 0.997, for 19%
	// more build CPU and 28 more bytes per vector (docs/bench/vector-engine.md).
	levelP = 0.25
)

// Config describes an index. Zero fields take the defaults.
type Config struct {
	Dim            int
	M              int // links per node on upper layers; layer 0 has 2*M
	EfConstruction int
	Metric         Metric
	Quant          quant.Kind
	// Rerank keeps a float32 copy of every quantized vector and re-ranks
	// search results on it (costs dim*4 bytes per vector).
	Rerank bool
	// Seed makes the level assignment reproducible.
	Seed uint64
}

var (
	// ErrDimension: a vector's length differs from the index's dimension.
	ErrDimension = errors.New("hnsw: vector dimension mismatch")
	// ErrConfig: Dim not positive, M outside 2..4096, an unknown metric or
	// coding, or binary codes with a metric other than cosine.
	ErrConfig = errors.New("hnsw: invalid configuration")
)

// Result is a search hit.
type Result struct {
	ID   uint32
	Dist float32
}

// Node states.
const (
	stateFree    uint32 = iota // never used, or reclaimed
	stateLive                  // inserted (or being inserted)
	stateDeleted               // being deleted, or waiting to be reclaimed
)

// node is the per-node record. Its mutex serialises writers of the node's
// link lists; readers do not take it.
type node struct {
	mu    sync.Mutex
	state atomic.Uint32
	// inDeg counts the links pointing at this node on all layers, so that
	// a delete knows when it has found and removed every one of them.
	inDeg atomic.Int32
	in0   atomic.Int32 // the links on layer 0 alone
	// linked is set once an insert has given the node its own links on
	// every layer. Before that its lower lists may still be empty, so a walk
	// must not descend through it (see greedy).
	linked atomic.Bool
	// gen counts the times the id has been reclaimed, so that an id kept
	// beyond the epoch it was read in (a pending delete's neighbours) can
	// be told from a new node that reuses it.
	gen   atomic.Uint32
	upper uint32 // record in upper[level] holding layers 1..level
	norm  float32
	level uint8
}

// Index is an HNSW graph. All methods are safe for concurrent use.
type Index struct {
	dim, m, m0, efc int
	metric          Metric
	format          quant.Format
	rerank          bool
	exactDot        bool // distance is 1 - dot (cosine, inner product)
	mL              float64

	nodes  slab[node]
	links0 slab[uint32] // per node: count, then up to m0 ids
	// dist0 caches, per layer-0 link slot, the distance from the node to
	// the linked one (NaN: not known), so that adding a link to a full list
	// does not fetch every linked vector again. Read and written under the
	// owner's lock only.
	dist0 slab[float32]
	// upper[L] holds, for each node of level L, layers 1..L: L lists of
	// count plus up to m ids.
	upper [MaxLevel + 1]slab[uint32]
	codes slab[uint64]
	exact slab[float32] // float32 copies, with Rerank on quantized codes

	// entry is the entry point: id | level<<32 | hasEntry. Writers hold
	// entryMu; readers load it.
	entry   atomic.Uint64
	entryMu sync.Mutex

	mu        sync.Mutex // allocation: ids, upper records, levels, slab growth
	next      atomic.Uint32
	free      []uint32
	limbo     [2][]uint32
	upperNext [MaxLevel + 1]uint32
	upperFree [MaxLevel + 1][]uint32
	rng       *rand.Rand
	src       *rand.PCG // rng's state, saved with the graph

	epoch reclaimer
	live  atomic.Int64
	// deleting counts nodes in stateDeleted: while it is zero, searches
	// need not check whether a node they reach is live.
	deleting  atomic.Int64
	codeLines int // cache lines a code spans

	poolMu sync.Mutex
	pool   []*searcher

	pendMu  sync.Mutex
	pending []pendingDelete
	purging bool // a background purge is running
	purgeMu sync.Mutex

	fullScans atomic.Int64 // purge passes (tests watch this)
}

const hasEntry = 1 << 63

// New returns an empty index.
func New(c Config) (*Index, error) {
	if c.M == 0 {
		c.M = DefaultM
	}
	if c.EfConstruction == 0 {
		c.EfConstruction = DefaultEfConstruction
	}
	if c.Dim <= 0 || c.M < 2 || c.M > 4096 || c.EfConstruction < 1 ||
		c.Metric > InnerProduct || c.Quant > quant.Bin ||
		(c.Quant == quant.Bin && c.Metric != Cosine) {
		// Sign bits only approximate angles, so binary codes go with cosine.
		return nil, ErrConfig
	}
	x := &Index{
		dim:      c.Dim,
		m:        c.M,
		m0:       2 * c.M,
		efc:      c.EfConstruction,
		metric:   c.Metric,
		format:   quant.NewFormat(c.Quant, c.Dim),
		rerank:   c.Rerank && c.Quant != quant.F32,
		exactDot: c.Metric != L2,
		mL:       1 / math.Log(1/levelP),
		src:      rand.NewPCG(c.Seed, 0x9e3779b97f4a7c15),
	}
	x.rng = rand.New(x.src)
	x.codeLines = (x.format.Bytes() + 63) / 64
	x.nodes.init(1)
	x.links0.init(1 + x.m0)
	x.dist0.init(x.m0)
	for l := 1; l <= MaxLevel; l++ {
		x.upper[l].init(l * (1 + x.m))
	}
	x.codes.init(x.format.Words())
	stride := 0
	if x.rerank {
		stride = c.Dim
	}
	x.exact.init(stride)
	return x, nil
}

// Config returns the index's configuration (with defaults filled in).
func (x *Index) Config() Config {
	return Config{Dim: x.dim, M: x.m, EfConstruction: x.efc, Metric: x.metric,
		Quant: x.format.Kind(), Rerank: x.rerank}
}

// Len returns the number of vectors in the index.
func (x *Index) Len() int { return int(x.live.Load()) }

func (x *Index) node(id uint32) *node { return &x.nodes.at(id)[0] }

// links returns node id's list on a layer: count, then the ids. Its words
// are accessed atomically.
func (x *Index) links(id uint32, level int) []uint32 {
	if level == 0 {
		return x.links0.at(id)
	}
	n := x.node(id)
	rec := x.upper[n.level].at(n.upper)
	w := 1 + x.m
	return rec[(level-1)*w : level*w]
}

func (x *Index) maxLinks(level int) int {
	if level == 0 {
		return x.m0
	}
	return x.m
}

func (x *Index) code(id uint32) []uint64 { return x.codes.at(id) }

// dist is the distance between two codes.
func (x *Index) dist(a, b []uint64) float32 {
	if x.format.Kind() == quant.F32 {
		if x.exactDot {
			return 1 - distance.Dot(quant.AsF32(a, x.dim), quant.AsF32(b, x.dim))
		}
		return distance.L2Sq(quant.AsF32(a, x.dim), quant.AsF32(b, x.dim))
	}
	if x.exactDot {
		return 1 - x.format.Dot(a, b)
	}
	return x.format.L2Sq(a, b)
}

// exactDist is the distance between two float32 vectors (prepared as
// stored: normalised for cosine).
func (x *Index) exactDist(a, b []float32) float32 {
	if x.exactDot {
		return 1 - distance.Dot(a, b)
	}
	return distance.L2Sq(a, b)
}

func (x *Index) entryPoint() (id uint32, level int, ok bool) {
	e := x.entry.Load()
	return uint32(e), int(e>>32) & 0xff, e&hasEntry != 0
}

func (x *Index) setEntry(id uint32, level int) {
	x.entry.Store(uint64(id) | uint64(level)<<32 | hasEntry)
}

// randomLevel draws a node's level: floor(-ln(U)·mL), as in the paper.
// Called with x.mu held.
func (x *Index) randomLevel() int {
	l := int(-math.Log(1-x.rng.Float64()) * x.mL)
	return min(l, MaxLevel)
}

// alloc reserves an id (reusing reclaimed ones first) and its storage.
func (x *Index) alloc() (id uint32, level int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.free) == 0 {
		x.reclaim()
	}
	if n := len(x.free); n > 0 {
		id = x.free[n-1]
		x.free = x.free[:n-1]
	} else {
		id = x.next.Load()
		n := int(id) + 1
		x.nodes.grow(n)
		x.links0.grow(n)
		x.dist0.grow(n)
		x.codes.grow(n)
		x.exact.grow(n)
		x.next.Store(id + 1)
	}
	level = x.randomLevel()
	nd := x.node(id)
	nd.level = uint8(level)
	if level > 0 {
		if f := x.upperFree[level]; len(f) > 0 {
			nd.upper = f[len(f)-1]
			x.upperFree[level] = f[:len(f)-1]
		} else {
			nd.upper = x.upperNext[level]
			x.upperNext[level]++
			x.upper[level].grow(int(x.upperNext[level]))
		}
	}
	return id, level
}

// retire queues a deleted node's id for reuse.
func (x *Index) retire(id uint32) {
	x.mu.Lock()
	defer x.mu.Unlock()
	e := x.epoch.cur.Load() & 1
	x.limbo[e] = append(x.limbo[e], id)
	x.reclaim()
}

// reclaim frees the ids retired in the previous epoch if it has ended.
// Called with x.mu held.
func (x *Index) reclaim() {
	prev := (x.epoch.cur.Load() + 1) & 1
	if len(x.limbo[prev]) == 0 && len(x.limbo[prev^1]) == 0 {
		return
	}
	if !x.epoch.advance() {
		return
	}
	for _, id := range x.limbo[prev] {
		nd := x.node(id)
		if nd.level > 0 {
			x.upperFree[nd.level] = append(x.upperFree[nd.level], nd.upper)
		}
		nd.gen.Add(1)
		nd.state.Store(stateFree)
		x.deleting.Add(-1)
		x.free = append(x.free, id)
	}
	x.limbo[prev] = x.limbo[prev][:0]
}

// Pin is a hold on node ids, from Index.Pin.
type Pin uint32

// Pin keeps every id that is in the index at some moment from now on (or
// that a search returns) from being reused until Unpin, so that a caller
// may still map it to what it stands for: a deleted node's id otherwise
// goes to the next vector added. Every Pin must be undone, soon: pinned ids
// are not reused, and the index grows instead.
func (x *Index) Pin() Pin { return Pin(x.epoch.enter()) }

// Unpin ends a Pin.
func (x *Index) Unpin(p Pin) { x.epoch.exit(uint32(p)) }

// Contains reports whether id is a vector in the index.
func (x *Index) Contains(id uint32) bool {
	return id < x.next.Load() && x.node(id).state.Load() == stateLive
}

// Level returns the top layer of node id (which must be in the index).
func (x *Index) Level(id uint32) int { return int(x.node(id).level) }

// MaxLevel returns the top layer of the graph, -1 when empty.
func (x *Index) MaxLevel() int {
	if _, l, ok := x.entryPoint(); ok {
		return l
	}
	return -1
}

// Norm returns the length the vector of node id had before it was
// normalised (cosine), for callers that give vectors back.
func (x *Index) Norm(id uint32) float32 { return x.node(id).norm }

// Vector writes the vector node id stores into dst (Dim elements) and
// returns it: normalised for cosine, decoded from its quantized form (exact
// when Rerank keeps a copy).
func (x *Index) Vector(id uint32, dst []float32) []float32 {
	if cap(dst) < x.dim {
		dst = make([]float32, x.dim)
	}
	dst = dst[:x.dim]
	if x.rerank {
		copy(dst, x.exact.at(id))
	} else {
		x.format.Decode(dst, x.code(id))
	}
	return dst
}

// Code returns the stored code of node id (see package quant); it must not
// be modified.
func (x *Index) Code(id uint32) []uint64 { return x.code(id) }

// Format returns the coding of the stored vectors.
func (x *Index) Format() quant.Format { return x.format }

// Links returns a copy of node id's neighbours on a layer.
func (x *Index) Links(id uint32, level int) []uint32 {
	return readLinks(nil, x.links(id, level))
}

// Distance returns the distance between two nodes, on their stored codes.
func (x *Index) Distance(a, b uint32) float32 { return x.dist(x.code(a), x.code(b)) }

// Bytes returns the memory the index holds: slabs, free lists and search
// scratch space.
func (x *Index) Bytes() int64 {
	x.mu.Lock()
	b := x.nodes.bytes + x.links0.bytes + x.dist0.bytes + x.codes.bytes + x.exact.bytes
	for l := 1; l <= MaxLevel; l++ {
		b += x.upper[l].bytes + int64(cap(x.upperFree[l]))*4
	}
	b += int64(cap(x.free)+cap(x.limbo[0])+cap(x.limbo[1])) * 4
	x.mu.Unlock()
	x.poolMu.Lock()
	for _, s := range x.pool {
		b += s.bytes()
	}
	x.poolMu.Unlock()
	return b
}

// readLinks appends the ids of a link list to dst, reading atomically: a
// concurrent writer may be rewriting the list, and every id seen is one that
// was in it during this call.
func readLinks(dst []uint32, l []uint32) []uint32 {
	n := min(int(atomic.LoadUint32(&l[0])), len(l)-1)
	for i := 1; i <= n; i++ {
		dst = append(dst, atomic.LoadUint32(&l[i]))
	}
	return dst
}

// writeLinks replaces a link list; the caller holds the owner's lock.
func writeLinks(l []uint32, ids []uint32) {
	for i, id := range ids {
		atomic.StoreUint32(&l[1+i], id)
	}
	atomic.StoreUint32(&l[0], uint32(len(ids)))
}

func hasLink(l []uint32, id uint32) bool {
	n := min(int(atomic.LoadUint32(&l[0])), len(l)-1)
	for i := 1; i <= n; i++ {
		if atomic.LoadUint32(&l[i]) == id {
			return true
		}
	}
	return false
}
