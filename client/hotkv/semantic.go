package hotkv

import (
	"context"
	"time"
)

// SemanticCacheOptions configure a semantic cache. Threshold is a distance
// in the metric's convention (COSINE: 1-cos in [0, 2]); 0 takes the
// server default (0.1).
type SemanticCacheOptions struct {
	IndexOptions
	Threshold  float64
	TTL        time.Duration
	MaxEntries int
	NoRefresh  bool
}

// CreateSemanticCache is SCACHE.CREATE.
func (c *Client) CreateSemanticCache(ctx context.Context, name string, o SemanticCacheOptions) error {
	a := append([]any{"SCACHE.CREATE", name}, o.IndexOptions.args("EF")...)
	if o.Threshold != 0 {
		a = append(a, "THRESHOLD", o.Threshold)
	}
	if o.TTL > 0 {
		a = append(a, "TTL", secs(o.TTL))
	}
	if o.MaxEntries > 0 {
		a = append(a, "MAXENTRIES", o.MaxEntries)
	}
	if o.NoRefresh {
		a = append(a, "NOREFRESH")
	}
	_, err := c.do(ctx, a...)
	return err
}

// SemanticEntry is what SCACHE.STORE stores. Attributes is a JSON object
// (or empty); TTL 0 takes the cache default, negative means none.
type SemanticEntry struct {
	Prompt, Response string
	Vector           []float32
	Attributes       string
	TTL              time.Duration
}

// Store is SCACHE.STORE; it returns the entry id.
func (c *Client) Store(ctx context.Context, name string, e SemanticEntry) (int64, error) {
	a := append([]any{"SCACHE.STORE", name, e.Prompt, e.Response}, vecArgs(e.Vector)...)
	if e.Attributes != "" {
		a = append(a, "ATTRS", e.Attributes)
	}
	return c.rdb.Do(ctx, append(a, ttlArgs(e.TTL)...)...).Int64()
}

// LookupOptions refine SCACHE.LOOKUP. Threshold nil takes the cache's;
// Prompt, when set, is tried as an exact match first; Filter is an
// expression over the attributes (`.user == "alice"`).
type LookupOptions struct {
	Threshold *float64
	Filter    string
	Prompt    string
	EF        int
	NoRefresh bool
}

// SemanticHit is a lookup's answer. Distance is in the cache metric's
// convention; Exact is true for a match of the exact prompt.
type SemanticHit struct {
	ID                           int64
	Response, Prompt, Attributes string
	Distance                     float64
	Exact                        bool
}

// Lookup is SCACHE.LOOKUP; it returns nil on a miss.
func (c *Client) Lookup(ctx context.Context, name string, vec []float32, o LookupOptions) (*SemanticHit, error) {
	a := append([]any{"SCACHE.LOOKUP", name}, vecArgs(vec)...)
	if o.Threshold != nil {
		a = append(a, "THRESHOLD", *o.Threshold)
	}
	if o.Filter != "" {
		a = append(a, "FILTER", o.Filter)
	}
	if o.Prompt != "" {
		a = append(a, "PROMPT", o.Prompt)
	}
	if o.EF > 0 {
		a = append(a, "EF", o.EF)
	}
	if o.NoRefresh {
		a = append(a, "NOREFRESH")
	}
	r, err := c.mapReply(ctx, a...)
	if r == nil {
		return nil, err
	}
	return &SemanticHit{ID: r.int("id"), Response: r.str("response"), Prompt: r.str("prompt"),
		Attributes: r.str("attributes"), Distance: r.float("distance"), Exact: r.str("match") == "exact"}, nil
}

// Invalidate is SCACHE.INVALIDATE name ID ...; it returns how many went.
func (c *Client) Invalidate(ctx context.Context, name string, ids ...int64) (int64, error) {
	a := []any{"SCACHE.INVALIDATE", name, "ID"}
	for _, id := range ids {
		a = append(a, id)
	}
	return c.rdb.Do(ctx, a...).Int64()
}

// InvalidateWhere is SCACHE.INVALIDATE name FILTER expression.
func (c *Client) InvalidateWhere(ctx context.Context, name, filter string) (int64, error) {
	return c.rdb.Do(ctx, "SCACHE.INVALIDATE", name, "FILTER", filter).Int64()
}

// SemanticCacheInfo is SCACHE.INFO's reply.
type SemanticCacheInfo struct {
	Dim                                                int
	Metric, Type                                       string
	Threshold                                          float64
	Entries, Hits, ExactHits, Misses, Evicted, Expired int64
	HitRatio, AvgHitDistance                           float64
}

// SemanticCacheInfo is SCACHE.INFO.
func (c *Client) SemanticCacheInfo(ctx context.Context, name string) (SemanticCacheInfo, error) {
	r, err := c.mapReply(ctx, "SCACHE.INFO", name)
	if err != nil {
		return SemanticCacheInfo{}, err
	}
	return SemanticCacheInfo{Dim: int(r.int("dim")), Metric: r.str("metric"), Type: r.str("type"),
		Threshold: r.float("threshold_distance"), Entries: r.int("entries"), Hits: r.int("hits"),
		ExactHits: r.int("exact_hits"), Misses: r.int("misses"), Evicted: r.int("evicted"), Expired: r.int("expired"),
		HitRatio: r.float("hit_ratio"), AvgHitDistance: r.float("avg_hit_distance")}, nil
}

// DropSemanticCache is SCACHE.DROP.
func (c *Client) DropSemanticCache(ctx context.Context, name string) error {
	_, err := c.do(ctx, "SCACHE.DROP", name)
	return err
}
