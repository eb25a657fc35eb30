package ai

import (
	"encoding/json"
	"math"

	"github.com/hotkv/hotkv/internal/vector/hnsw"
	"github.com/hotkv/hotkv/internal/vector/quant"
)

// MaxTextBytes bounds each stored prompt, response, memory text and
// attributes document: oversized entries are refused whole.
const MaxTextBytes = 64 << 20

// VectorOptions are the index settings shared by semantic caches and
// memory namespaces.
type VectorOptions struct {
	Dim    int
	Metric hnsw.Metric
	Quant  quant.Kind
	M      int // 0: hnsw.DefaultM
	EF     int // search breadth, 0: DefaultEF
}

// DefaultEF is the default search breadth (candidates explored on layer 0).
const DefaultEF = 64

func (o *VectorOptions) index() (*hnsw.Index, error) {
	if o.EF == 0 {
		o.EF = DefaultEF
	}
	if o.Dim <= 0 || o.Dim > 1<<16 || o.EF < 1 || o.M < 0 || o.M > 4096 {
		return nil, ErrConfigValue
	}
	x, err := hnsw.New(hnsw.Config{Dim: o.Dim, M: o.M, Metric: o.Metric, Quant: o.Quant})
	if err != nil {
		return nil, ErrConfigValue
	}
	return x, nil
}

// checkVector refuses what the index cannot compare meaningfully.
func checkVector(o *VectorOptions, v []float32) error {
	if len(v) != o.Dim {
		return ErrDim
	}
	zero := true
	for _, f := range v {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return ErrBadVector
		}
		if f != 0 {
			zero = false
		}
	}
	if zero && o.Metric == hnsw.Cosine {
		return ErrZeroVector
	}
	return nil
}

// CheckThreshold validates a distance threshold for a metric: cosine
// distances lie in [0, 2], squared L2 distances are never negative, inner
// product distances 1-dot can be any number.
func CheckThreshold(m hnsw.Metric, t float64) error {
	switch {
	case math.IsNaN(t) || math.IsInf(t, 0):
		return ErrThreshold
	case m == hnsw.Cosine && (t < 0 || t > 2):
		return ErrThreshold
	case m == hnsw.L2 && t < 0:
		return ErrThreshold
	}
	return nil
}

// Similarity maps a distance to [0, 1], 1 meaning identical, for ranking:
// cosine 1-d/2, L2 1/(1+d), inner product the dot product (1-d) clamped.
func Similarity(m hnsw.Metric, d float32) float64 {
	switch m {
	case hnsw.Cosine:
		return min(max(1-float64(d)/2, 0), 1)
	case hnsw.L2:
		return 1 / (1 + max(float64(d), 0))
	}
	return min(max(1-float64(d), 0), 1)
}

// reported is a distance as replies show it: rounding can make a cosine
// or L2 distance slightly negative, an inner-product one can really be.
func reported(m hnsw.Metric, d float32) float32 {
	if m == hnsw.InnerProduct {
		return d
	}
	return max(d, 0)
}

// checkAttrs accepts "" (no attributes) or a JSON object.
func checkAttrs(a string) error {
	if a == "" {
		return nil
	}
	if len(a) > MaxTextBytes {
		return ErrTooLarge
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(a), &m) != nil || m == nil {
		return ErrAttrs
	}
	return nil
}

// MetricNames and QuantNames are the names commands and replies use,
// indexed by hnsw.Metric and quant.Kind.
var (
	MetricNames = [...]string{hnsw.Cosine: "COSINE", hnsw.L2: "L2", hnsw.InnerProduct: "IP"}
	QuantNames  = [...]string{quant.F32: "FLOAT32", quant.Q8: "INT8", quant.Bin: "BINARY"}
)
