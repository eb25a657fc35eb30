package ai

import (
	"cmp"
	"math"
	"slices"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/vector/filter"
)

// MemKind is a memory's type.
type MemKind uint8

// Memory kinds: working (short-term, per session, expiring), episodic
// (events) and semantic (facts, preferences).
const (
	Working MemKind = iota
	Episodic
	Semantic
)

// KindNames are the kinds' names in commands and replies.
var KindNames = [...]string{"working", "episodic", "semantic"}

// MemoryOptions configure a memory namespace.
type MemoryOptions struct {
	VectorOptions
	Dedup      float64 // distance within which an added memory merges into an existing one; < 0: never
	HalfLife   int64   // recency half-life in ms
	WorkingMax int     // working memories kept per session
	WorkingTTL int64   // default time to live of working memories, ms (0: none)
}

// Defaults of a memory namespace.
const (
	DefaultDedup      = 0.05
	DefaultHalfLife   = 7 * 24 * 3600 * 1000
	DefaultWorkingMax = 32
	DefaultWorkingTTL = 3600 * 1000
	// DedupBoost is what a merged duplicate adds to the memory's importance.
	DedupBoost = 0.1
)

type mentry struct {
	item
	text, attrs, session string
	kind                 MemKind
	importance           float64 // changed under the write lock only
	created              int64
	access               atomic.Int64
	ttl                  int64
}

// Memory is one agent memory namespace.
type Memory struct {
	opt MemoryOptions
	store[*mentry]
	sessions map[string][]*mentry // working memories per session, oldest first
	text     int64                // bytes of the memories' texts, under mu
}

// bytes is what the memory's texts take.
func (e *mentry) bytes() int64 { return int64(len(e.text) + len(e.attrs) + len(e.session)) }

func newMemory(o MemoryOptions) (*Memory, error) {
	if math.IsNaN(o.Dedup) || (o.Dedup >= 0 && CheckThreshold(o.Metric, o.Dedup) != nil) ||
		o.HalfLife <= 0 || o.WorkingMax <= 0 || o.WorkingTTL < 0 {
		return nil, ErrConfigValue
	}
	m := &Memory{opt: o, sessions: map[string][]*mentry{}}
	if err := m.store.init(o.VectorOptions, m.unindex); err != nil {
		return nil, err
	}
	m.opt.VectorOptions = m.store.opt
	return m, nil
}

func (m *Memory) unindex(e *mentry) {
	m.text -= e.bytes()
	if e.kind != Working {
		return
	}
	l := slices.DeleteFunc(m.sessions[e.session], func(x *mentry) bool { return x == e })
	if len(l) == 0 {
		delete(m.sessions, e.session)
	} else {
		m.sessions[e.session] = l
	}
}

// Options returns the namespace's configuration.
func (m *Memory) Options() MemoryOptions { return m.opt }

// MemAdd is a memory to add. TTL 0: the default (WorkingTTL for working
// memories, none for others), -1: none. Dedup NaN: the namespace's; < 0:
// no de-duplication. At, when not 0, is the creation time (imports).
type MemAdd struct {
	Text, Attrs, Session string
	Vector               []float32
	Kind                 MemKind
	Importance           float64
	TTL                  int64
	Dedup                float64
	At                   int64
	ID                   uint64 // restore only
}

// Record is a memory as replies show it. Distance and Score are set by
// Recall only.
type Record struct {
	ID                          uint64
	Text, Attrs, Session        string
	Kind                        MemKind
	Importance                  float64
	Created, LastAccess, Expire int64
	Distance                    float32
	Score                       float64
}

func (e *mentry) record() Record {
	return Record{ID: e.id, Text: e.text, Attrs: e.attrs, Session: e.session, Kind: e.kind,
		Importance: e.importance, Created: e.created, LastAccess: e.access.Load(), Expire: e.expire.at.Load()}
}

// Add stores a memory, or merges it into an existing one of the same kind
// (and session, for working memories) within the de-duplication distance:
// that one's importance rises and its last access becomes now. It returns
// the memory's id and whether it is new. Nothing changes on error.
func (m *Memory) Add(a MemAdd, now int64) (uint64, bool, error) {
	if err := checkVector(&m.opt.VectorOptions, a.Vector); err != nil {
		return 0, false, err
	}
	if err := checkAttrs(a.Attrs); err != nil {
		return 0, false, err
	}
	if len(a.Text)+len(a.Session) > MaxTextBytes {
		return 0, false, ErrTooLarge
	}
	if a.Kind > Semantic {
		return 0, false, ErrMemoryKind
	}
	if a.Kind == Working && a.Session == "" {
		return 0, false, ErrNeedsSession
	}
	if !(a.Importance >= 0 && a.Importance <= 1) {
		return 0, false, ErrImportance
	}
	dedup := a.Dedup
	if math.IsNaN(dedup) {
		dedup = m.opt.Dedup
	} else if dedup >= 0 && CheckThreshold(m.opt.Metric, dedup) != nil {
		return 0, false, ErrThreshold
	}
	ttl := a.TTL
	if ttl == 0 && a.Kind == Working {
		ttl = m.opt.WorkingTTL
	}
	ttl = max(ttl, 0)
	created := now
	if a.At != 0 {
		created = a.At
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	if dedup >= 0 {
		same := func(e *mentry) bool { return e.kind == a.Kind && (a.Kind != Working || e.session == a.Session) }
		if res := m.search(a.Vector, 1, m.opt.EF, now, same); len(res) > 0 && float64(res[0].Dist) <= dedup {
			e := m.byNode[res[0].ID]
			e.importance = min(1, max(e.importance, a.Importance)+DedupBoost)
			e.access.Store(max(e.access.Load(), created))
			if e.ttl > 0 {
				e.expire.at.Store(now + e.ttl)
			}
			return e.id, false, nil
		}
	}
	e := &mentry{text: a.Text, attrs: a.Attrs, session: a.Session, kind: a.Kind,
		importance: a.Importance, created: created, ttl: ttl}
	e.access.Store(created)
	if ttl > 0 {
		e.expire.at.Store(now + ttl)
	}
	if err := m.insert(a.Vector, e, a.ID); err != nil {
		return 0, false, err
	}
	m.text += e.bytes()
	if e.kind == Working {
		l := append(m.sessions[e.session], e)
		m.sessions[e.session] = l
		if len(l) > m.opt.WorkingMax {
			m.remove(l[0])
		}
	}
	return e.id, true, nil
}

// Recall is a recall request. Weights are for similarity, recency and
// importance; HalfLife 0 takes the namespace's.
type Recall struct {
	Vector     []float32
	K          int
	Weights    [3]float64
	HalfLife   int64
	Kinds      uint8 // bit per MemKind; 0 = all
	Session    string
	Filter     *filter.Expr
	Candidates int // nearest memories re-scored; 0: max(4k, 50)
	NoTouch    bool
}

// Recall returns the k memories with the highest score
//
//	w_sim·similarity + w_rec·0.5^(idle/half-life) + w_imp·importance
//
// among the nearest candidates (similarity as Similarity defines it, idle
// the time since the last access), best first, and makes now their last
// access unless NoTouch.
func (m *Memory) Recall(r Recall, now int64) ([]Record, error) {
	if err := checkVector(&m.opt.VectorOptions, r.Vector); err != nil {
		return nil, err
	}
	for _, w := range r.Weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, ErrWeights
		}
	}
	if r.K <= 0 {
		return nil, nil
	}
	half := r.HalfLife
	if half <= 0 {
		half = m.opt.HalfLife
	}
	cand := r.Candidates
	if cand <= 0 {
		cand = max(4*r.K, 50)
	}
	cand = max(cand, r.K)
	m.sweepIfDue(now)
	m.mu.RLock()
	defer m.mu.RUnlock()
	ok := func(e *mentry) bool {
		return (r.Kinds == 0 || r.Kinds&(1<<e.kind) != 0) && (r.Session == "" || e.session == r.Session) &&
			(r.Filter == nil || r.Filter.Eval(e.attrs))
	}
	res := m.search(r.Vector, cand, max(cand, m.opt.EF), now, ok)
	out := make([]Record, 0, len(res))
	for _, h := range res {
		e := m.byNode[h.ID]
		rec := e.record()
		idle := float64(max(now-rec.LastAccess, 0))
		rec.Distance = reported(m.opt.Metric, h.Dist)
		rec.Score = r.Weights[0]*Similarity(m.opt.Metric, h.Dist) +
			r.Weights[1]*math.Exp2(-idle/float64(half)) + r.Weights[2]*e.importance
		out = append(out, rec)
	}
	slices.SortStableFunc(out, func(a, b Record) int {
		return cmp.Compare(b.Score, a.Score)
	})
	out = out[:min(r.K, len(out))]
	if !r.NoTouch {
		for i := range out {
			m.byID[out[i].ID].access.Store(now)
		}
	}
	return out, nil
}

// Get returns a memory by id.
func (m *Memory) Get(id uint64, now int64) (Record, bool) {
	m.sweepIfDue(now)
	m.mu.RLock()
	defer m.mu.RUnlock()
	e := m.byID[id]
	if e == nil || !live(e.expire.at.Load(), now) {
		return Record{}, false
	}
	return e.record(), true
}

// List returns the memories created in [since, until] (0: unbounded) of
// the given kinds (bit per kind, 0 = all) and session ("" = any), oldest
// first, at most count (0 = all).
func (m *Memory) List(since, until int64, kinds uint8, session string, count int, now int64) []Record {
	m.sweepIfDue(now)
	m.mu.RLock()
	var out []Record
	for _, e := range m.byID {
		if e.created < since || (until != 0 && e.created > until) || !live(e.expire.at.Load(), now) ||
			(kinds != 0 && kinds&(1<<e.kind) == 0) || (session != "" && e.session != session) {
			continue
		}
		out = append(out, e.record())
	}
	m.mu.RUnlock()
	slices.SortFunc(out, func(a, b Record) int {
		if c := cmp.Compare(a.Created, b.Created); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if count > 0 && len(out) > count {
		out = out[:count]
	}
	return out
}

// Working returns a session's working-memory buffer, oldest first: the
// last count entries (0 = all).
func (m *Memory) Working(session string, count int, now int64) []Record {
	m.sweepIfDue(now)
	m.mu.RLock()
	defer m.mu.RUnlock()
	l := m.sessions[session]
	if count > 0 && len(l) > count {
		l = l[len(l)-count:]
	}
	out := make([]Record, 0, len(l))
	for _, e := range l {
		if live(e.expire.at.Load(), now) {
			out = append(out, e.record())
		}
	}
	return out
}

// Forget removes memories by id and returns how many existed.
func (m *Memory) Forget(ids []uint64, now int64) int {
	return m.forget(now, func(del func(*mentry)) {
		for _, id := range ids {
			if e := m.byID[id]; e != nil {
				del(e)
			}
		}
	})
}

// forgetWhere removes the memories for which drop is true.
func (m *Memory) forgetWhere(now int64, drop func(*mentry) bool) int {
	return m.forget(now, func(del func(*mentry)) {
		for _, e := range m.byID {
			if drop(e) {
				del(e)
			}
		}
	})
}

func (m *Memory) forget(now int64, each func(del func(*mentry))) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	n := 0
	each(func(e *mentry) { m.remove(e); n++ })
	return n
}

// ForgetMatching removes the memories whose attributes pass f.
func (m *Memory) ForgetMatching(f *filter.Expr, now int64) int {
	return m.forgetWhere(now, func(e *mentry) bool { return f.Eval(e.attrs) })
}

// ForgetBefore removes the memories created before t (unix ms).
func (m *Memory) ForgetBefore(t, now int64) int {
	return m.forgetWhere(now, func(e *mentry) bool { return e.created < t })
}

// ForgetIdle removes the memories not accessed for idle ms.
func (m *Memory) ForgetIdle(idle, now int64) int {
	return m.forgetWhere(now, func(e *mentry) bool { return now-e.access.Load() > idle })
}

// MemStats counts a namespace's memories per kind.
type MemStats struct {
	Kinds      [3]int
	Sessions   int
	Expired    int64
	IndexBytes int64
}

// Stats returns the counts.
func (m *Memory) Stats(now int64) MemStats {
	m.sweepIfDue(now)
	m.mu.RLock()
	defer m.mu.RUnlock()
	s := MemStats{Sessions: len(m.sessions), Expired: m.expired.Load(), IndexBytes: m.idx.Bytes()}
	for _, e := range m.byID {
		s.Kinds[e.kind]++
	}
	return s
}
