package hotkv

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// VectorIndexOptions configure a named vector index. IndexOptions.EF is
// the build effort (EF_CONSTRUCTION); Rerank keeps float32 copies beside
// INT8 or BINARY codes so that distances are exact.
type VectorIndexOptions struct {
	IndexOptions
	Rerank bool
}

// CreateVectorIndex is VSIM.CREATEINDEX.
func (c *Client) CreateVectorIndex(ctx context.Context, name string, o VectorIndexOptions) error {
	a := append([]any{"VSIM.CREATEINDEX", name}, o.IndexOptions.args("EF_CONSTRUCTION")...)
	if o.Rerank {
		a = append(a, "RERANK")
	}
	_, err := c.do(ctx, a...)
	return err
}

// SetVector is VSIM.SET: it stores id's vector and attributes (a JSON
// object, or "" for none), replacing both, and reports whether id is new.
func (c *Client) SetVector(ctx context.Context, index, id string, vec []float32, attrs string) (bool, error) {
	a := append([]any{"VSIM.SET", index, id}, vecArgs(vec)...)
	if attrs != "" {
		a = append(a, "ATTRS", attrs)
	}
	n, err := c.rdb.Do(ctx, a...).Int64()
	return n == 1, err
}

// SetVectors is VSIM.MSET: all or nothing; it returns how many ids are new.
// Attributes of replaced ids go, as with SetVector.
func (c *Client) SetVectors(ctx context.Context, index string, vecs map[string][]float32) (int64, error) {
	if len(vecs) == 0 {
		return 0, nil
	}
	a := []any{"VSIM.MSET", index, "FP32"}
	for id, v := range vecs {
		a = append(a, id, fp32(v))
	}
	return c.rdb.Do(ctx, a...).Int64()
}

// SearchOptions refine VSIM.SEARCH; zero values take the server defaults
// (K 10, EF 100, FILTER-EF K×100). Filter is an expression over the
// attributes; WithAttribs fills SearchHit.Attrs.
type SearchOptions struct {
	K, EF, FilterEF int
	Filter          string
	WithAttribs     bool
}

// SearchHit is a VSIM.SEARCH result. Distance is in the index metric's
// convention (smaller is nearer); Attrs is "" when the id has none.
type SearchHit struct {
	ID       string
	Distance float64
	Attrs    string
}

// SearchVectors is VSIM.SEARCH: nearest first.
func (c *Client) SearchVectors(ctx context.Context, index string, vec []float32, o SearchOptions) ([]SearchHit, error) {
	a := append([]any{"VSIM.SEARCH", index}, vecArgs(vec)...)
	if o.K > 0 {
		a = append(a, "K", o.K)
	}
	if o.EF > 0 {
		a = append(a, "EF", o.EF)
	}
	if o.Filter != "" {
		a = append(a, "FILTER", o.Filter)
	}
	if o.FilterEF > 0 {
		a = append(a, "FILTER-EF", o.FilterEF)
	}
	per := 2
	if o.WithAttribs {
		a = append(a, "WITHATTRIBS")
		per = 3
	}
	l, err := c.rdb.Do(ctx, a...).Slice()
	if err != nil {
		return nil, err
	}
	if len(l)%per != 0 {
		return nil, fmt.Errorf("hotkv: VSIM.SEARCH reply of %d elements", len(l))
	}
	hits := make([]SearchHit, 0, len(l)/per)
	for i := 0; i < len(l); i += per {
		h := SearchHit{ID: fmt.Sprint(l[i]), Distance: toFloat(l[i+1])}
		if per == 3 {
			h.Attrs, _ = l[i+2].(string)
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// StoredVector is VSIM.GET's reply. Cosine indexes give the vector back
// de-normalised; INT8 and BINARY ones without RERANK approximately.
type StoredVector struct {
	Vector []float32
	Attrs  string // "" when none
}

// GetVector is VSIM.GET; it returns nil when the index has no such id.
func (c *Client) GetVector(ctx context.Context, index, id string) (*StoredVector, error) {
	l, err := c.rdb.Do(ctx, "VSIM.GET", index, id).Slice()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var vec []any
	if len(l) == 2 {
		vec, _ = l[0].([]any)
	}
	if vec == nil {
		return nil, fmt.Errorf("hotkv: unexpected VSIM.GET reply %v", l)
	}
	sv := &StoredVector{Vector: make([]float32, len(vec))}
	for i, x := range vec {
		// The server widens float32 to double, so this narrowing is exact.
		sv.Vector[i] = float32(toFloat(x))
	}
	sv.Attrs, _ = l[1].(string)
	return sv, nil
}

// DeleteVectors is VSIM.DEL; it returns how many ids went.
func (c *Client) DeleteVectors(ctx context.Context, index string, ids ...string) (int64, error) {
	a := []any{"VSIM.DEL", index}
	for _, id := range ids {
		a = append(a, id)
	}
	return c.rdb.Do(ctx, a...).Int64()
}

// DropVectorIndex is VSIM.DROPINDEX.
func (c *Client) DropVectorIndex(ctx context.Context, name string) error {
	_, err := c.do(ctx, "VSIM.DROPINDEX", name)
	return err
}

// VectorIndexInfo is VSIM.INFO's reply. Bytes is the index's memory.
type VectorIndexInfo struct {
	Name, Metric, Type                      string
	Dim, M, EFConstruction, MaxLevel        int
	Rerank                                  bool
	Size, Attributes, Bytes, BytesPerVector int64
}

// VectorIndexInfo is VSIM.INFO.
func (c *Client) VectorIndexInfo(ctx context.Context, name string) (VectorIndexInfo, error) {
	r, err := c.mapReply(ctx, "VSIM.INFO", name)
	if err != nil {
		return VectorIndexInfo{}, err
	}
	return VectorIndexInfo{Name: r.str("name"), Metric: r.str("metric"), Type: r.str("type"),
		Dim: int(r.int("dim")), M: int(r.int("m")), EFConstruction: int(r.int("ef_construction")),
		MaxLevel: int(r.int("max_level")), Rerank: r.bool("rerank"), Size: r.int("size"),
		Attributes: r.int("attributes"), Bytes: r.int("bytes"), BytesPerVector: r.int("bytes_per_vector")}, nil
}

// VectorIndexes is VSIM.LIST: the index names, sorted.
func (c *Client) VectorIndexes(ctx context.Context) ([]string, error) {
	return c.rdb.Do(ctx, "VSIM.LIST").StringSlice()
}
