package commands

import (
	"math"
	"strconv"

	"github.com/hotkv/hotkv/internal/ai"
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/resp"
	"github.com/hotkv/hotkv/internal/vector/filter"
)

// SCACHE.*: semantic caches. Distances are the metric's (COSINE: 1-cos in
// [0, 2]; L2: squared Euclidean; IP: 1-dot) and every reply field holding
// one is named "distance".

// errNoCache is package ai's text, answered when the lookup finds none.
var errNoCache = ai.ErrNoCache.Error()

// DefaultSemThreshold is the default distance threshold (RedisVL's).
const defaultSemThreshold = 0.1

func scacheCreate(x *cmdtable.Ctx) {
	o := opts{args: x.Args, i: 2}
	s := ai.SemOptions{Threshold: defaultSemThreshold, Refresh: true}
	for o.more() {
		switch {
		case o.index(&s.VectorOptions):
		case o.kw("threshold"):
			s.Threshold = o.float()
		case o.kw("ttl"):
			s.TTL = o.seconds()
		case o.kw("maxentries"):
			s.MaxEntries = int(o.int(0, math.MaxInt32))
		case o.kw("norefresh"):
			s.Refresh = false
		default:
			o.fail(cmdtable.ErrSyntax)
		}
	}
	if o.err == "" {
		o.err = checkIndex(&s.VectorOptions)
	}
	if o.err == "" {
		if err := ai.CheckThreshold(s.Metric, s.Threshold); err != nil {
			o.err = err.Error()
		}
	}
	if o.err != "" {
		x.Error(o.err)
		return
	}
	if err := x.AI.CreateSem(string(x.Args[1]), s); err != nil {
		x.Error(err.Error())
		return
	}
	x.W.OK()
}

func semCache(x *cmdtable.Ctx) *ai.SemCache {
	c := x.AI.Sem(string(x.Args[1]))
	if c == nil {
		x.Error(errNoCache)
	}
	return c
}

// parseSemStore parses SCACHE.STORE's arguments after the cache name:
// prompt response vector [ATTRS json] [EX s | PX ms | PERSIST].
func parseSemStore(args [][]byte) (ai.SemStore, string) {
	s := ai.SemStore{Prompt: string(args[0]), Response: string(args[1])}
	o := opts{args: args, i: 2}
	s.Vector = o.vector()
	msg := o.options(func() bool {
		switch {
		case o.kw("attrs"):
			s.Attrs = o.str()
		case o.ttl(&s.TTL):
		default:
			return false
		}
		return true
	})
	return s, msg
}

func scacheStore(x *cmdtable.Ctx) {
	aiCall(x, parseSemStore, semCache, func(s ai.SemStore, c *ai.SemCache) error {
		s.Follow = x.Master
		id, evicted, err := c.Store(s, x.Now)
		if err != nil {
			return err
		}
		if len(evicted) > 0 {
			propagateEvicted(x, SemRemoval(string(x.Args[1]), evicted...), "SCACHE.STORE")
		}
		x.W.Int(int64(id))
		return nil
	})
}

// SemRemoval is SCACHE.INVALIDATE of the entries ids of cache name: how
// the removal of entries its MAXENTRIES or maxmemory evicted is logged and
// sent to replicas.
func SemRemoval(name string, ids ...uint64) [][]byte {
	args := [][]byte{[]byte("SCACHE.INVALIDATE"), []byte(name), []byte("ID")}
	for _, id := range ids {
		args = append(args, strconv.AppendUint(nil, id, 10))
	}
	return args
}

// parseSemLookup parses SCACHE.LOOKUP's arguments after the cache name:
// vector [THRESHOLD t] [FILTER expr] [PROMPT p] [EF ef] [NOREFRESH]. The
// threshold is checked against the metric by the cache.
func parseSemLookup(args [][]byte) (ai.SemLookup, string) {
	q := ai.SemLookup{Threshold: math.NaN()}
	o := opts{args: args}
	q.Vector = o.vector()
	msg := o.options(func() bool {
		switch {
		case o.kw("threshold"):
			q.Threshold = o.float()
		case o.kw("filter"):
			q.Filter = o.filter()
		case o.kw("prompt"):
			p := o.str()
			q.Prompt = &p
		case o.kw("ef"):
			q.EF = int(o.int(1, 1<<20))
		case o.kw("norefresh"):
			q.NoRefresh = true
		default:
			return false
		}
		return true
	})
	return q, msg
}

func scacheLookup(x *cmdtable.Ctx) {
	aiCall(x, parseSemLookup, semCache, func(q ai.SemLookup, c *ai.SemCache) error {
		h, ok, err := c.Lookup(q, x.Now)
		if err == nil {
			writeHit(x.W, h, ok)
		}
		return err
	})
}

// writeHit writes a lookup's answer: a map, or nil on a miss.
func writeHit(w *resp.Writer, h ai.SemHit, ok bool) {
	if !ok {
		w.Null()
		return
	}
	w.Map(6)
	w.BulkString("id")
	w.Int(int64(h.ID))
	w.BulkString("response")
	w.BulkString(h.Response)
	w.BulkString("prompt")
	w.BulkString(h.Prompt)
	w.BulkString("distance")
	w.Double(float64(h.Distance))
	w.BulkString("match")
	if h.Exact {
		w.BulkString("exact")
	} else {
		w.BulkString("semantic")
	}
	w.BulkString("attributes")
	writeAttrs(w, h.Attrs)
}

// scacheInvalidate is SCACHE.INVALIDATE name (ID id [id ...] | FILTER expr).
func scacheInvalidate(x *cmdtable.Ctx) {
	o := opts{args: x.Args, i: 2}
	var ids []uint64
	var f *filter.Expr
	switch {
	case o.kw("id"):
		ids = o.idList()
	case o.kw("filter"):
		f = o.filter()
		if o.more() {
			o.fail(cmdtable.ErrSyntax)
		}
	default:
		o.fail(cmdtable.ErrSyntax)
	}
	if o.err != "" {
		x.Error(o.err)
		return
	}
	c := semCache(x)
	if c == nil {
		return
	}
	if f != nil {
		x.W.Int(int64(c.DeleteMatching(f, x.Now)))
		return
	}
	x.W.Int(int64(c.Delete(ids, x.Now)))
}

func scacheInfo(x *cmdtable.Ctx) {
	c := semCache(x)
	if c == nil {
		return
	}
	p, s := c.Options(), c.Stats(x.Now)
	writeInfo(x.W, append(indexInfo(p.VectorOptions),
		info{"threshold_distance", p.Threshold}, info{"ttl", float64(p.TTL) / 1000},
		info{"maxentries", p.MaxEntries}, info{"refresh", p.Refresh}, info{"entries", s.Entries},
		info{"hits", s.Hits}, info{"exact_hits", s.ExactHits}, info{"misses", s.Misses},
		info{"hit_ratio", s.HitRatio}, info{"avg_hit_distance", s.AvgHitDistance},
		info{"evicted", s.Evicted}, info{"expired", s.Expired}, info{"index_bytes", s.IndexBytes})...)
}

func scacheDrop(x *cmdtable.Ctx) {
	if !x.AI.DropSem(string(x.Args[1])) {
		x.Error(errNoCache)
		return
	}
	x.W.OK()
}

func init() {
	const g = "ai"
	w, r := cmdtable.Write|cmdtable.DenyOOM, cmdtable.ReadOnly
	cmdtable.Register(
		&cmdtable.Cmd{Name: "scache.create", Arity: -4, Flags: w, Effects: cmdtable.AsSent, Run: scacheCreate, Group: g, Since: "1.0.0",
			Summary: "Creates a semantic cache. THRESHOLD is a distance (COSINE: 1-cos in 0..2, default 0.1).",
			Args:    "name DIM dim [METRIC COSINE | L2 | IP] [TYPE FLOAT32 | INT8 | BINARY] [THRESHOLD distance] [TTL seconds] [MAXENTRIES count] [NOREFRESH] [M links] [EF breadth]"},
		&cmdtable.Cmd{Name: "scache.store", Arity: -6, Flags: w, Effects: cmdtable.Recorded, Run: scacheStore, Group: g, Since: "1.0.0",
			Summary: "Stores a response with its prompt's embedding; the same prompt and attributes again replace it. Returns the entry id.",
			Args:    "name prompt response (VALUES dim value [value ...] | FP32 blob) [ATTRS json] [EX seconds | PX milliseconds | PERSIST]"},
		&cmdtable.Cmd{Name: "scache.lookup", Arity: -4, Flags: r, Run: scacheLookup, Group: g, Since: "1.0.0",
			Summary: "Returns the closest entry within the distance threshold (id, response, prompt, distance, match, attributes) or nil.",
			Args:    "name (VALUES dim value [value ...] | FP32 blob) [THRESHOLD distance] [FILTER expression] [PROMPT prompt] [EF breadth] [NOREFRESH]"},
		&cmdtable.Cmd{Name: "scache.invalidate", Arity: -4, Flags: cmdtable.Write, Effects: cmdtable.AsSent, Run: scacheInvalidate, Group: g, Since: "1.0.0",
			Summary: "Deletes entries by id or by a filter on their attributes. Returns how many.",
			Args:    "name (ID id [id ...] | FILTER expression)"},
		&cmdtable.Cmd{Name: "scache.info", Arity: 2, Flags: r, Run: scacheInfo, Group: g, Since: "1.0.0",
			Summary: "Returns a semantic cache's configuration and statistics (hits, misses, hit ratio, average hit distance...).", Args: "name"},
		&cmdtable.Cmd{Name: "scache.drop", Arity: 2, Flags: cmdtable.Write, Effects: cmdtable.AsSent, Run: scacheDrop, Group: g, Since: "1.0.0",
			Summary: "Deletes a semantic cache.", Args: "name"},
		&cmdtable.Cmd{Name: "scache.list", Arity: 1, Flags: r, Run: func(x *cmdtable.Ctx) { writeNames(x.W, x.AI.SemNames()) },
			Group: g, Since: "1.0.0", Summary: "Lists the semantic caches."},
	)
}
