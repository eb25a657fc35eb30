// Package hotkv is a typed Go client for HotKV's own command families: the
// prompt cache (PCACHE.*), semantic caches (SCACHE.*) and agent memory
// (AMEM.*) and named vector indexes (VSIM.CREATEINDEX, VSIM.SEARCH, ...).
// It wraps a go-redis client, so connection pooling, pipelines and
// RESP2/RESP3 come from there; every Redis command stays available on the
// wrapped client. Redis 8 vector sets (VADD, VSIM, ...) are keys and need
// nothing from here: go-redis v9.10+ has typed methods for them
// (Redis().VAdd, Redis().VSimWithScores, ...).
package hotkv

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Client issues HotKV commands through a go-redis client.
type Client struct {
	rdb redis.UniversalClient
}

// New wraps rdb.
func New(rdb redis.UniversalClient) *Client { return &Client{rdb: rdb} }

// Redis returns the wrapped client.
func (c *Client) Redis() redis.UniversalClient { return c.rdb }

func (c *Client) do(ctx context.Context, args ...any) (any, error) {
	return c.rdb.Do(ctx, args...).Result()
}

// mapReply runs a command whose reply is a map, or nil (then both results
// are nil).
func (c *Client) mapReply(ctx context.Context, args ...any) (reply, error) {
	v, err := c.do(ctx, args...)
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return toReply(v)
}

// fp32 encodes a vector as the little-endian float32 blob of FP32.
func fp32(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return string(b)
}

func vecArgs(v []float32) []any { return []any{"FP32", fp32(v)} }

// ttlArgs is an entry's EX/PX argument: 0 keeps the default, a negative
// duration means no expiry.
func ttlArgs(d time.Duration) []any {
	switch {
	case d < 0:
		return []any{"PERSIST"}
	case d == 0:
		return nil
	case d%time.Second == 0:
		return []any{"EX", int64(d / time.Second)}
	}
	return []any{"PX", max(d.Milliseconds(), 1)}
}

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }

// reply is a map reply, read alike from RESP3 maps and RESP2 flat arrays.
type reply map[string]any

func toReply(v any) (reply, error) {
	out := reply{}
	switch m := v.(type) {
	case map[any]any:
		for k, x := range m {
			out[fmt.Sprint(k)] = x
		}
	case []any:
		if len(m)%2 != 0 {
			return nil, fmt.Errorf("hotkv: odd map reply of %d elements", len(m))
		}
		for i := 0; i < len(m); i += 2 {
			out[fmt.Sprint(m[i])] = m[i+1]
		}
	default:
		return nil, fmt.Errorf("hotkv: unexpected reply %T", v)
	}
	return out, nil
}

func (r reply) str(k string) string {
	if s, ok := r[k].(string); ok {
		return s
	}
	return ""
}

func (r reply) int(k string) int64 {
	switch v := r[k].(type) {
	case int64:
		return v
	case string:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	case bool:
		if v {
			return 1
		}
	}
	return 0
}

func (r reply) float(k string) float64 { return toFloat(r[k]) }

// toFloat reads a double: a float in RESP3, a bulk string in RESP2.
func toFloat(x any) float64 {
	switch v := x.(type) {
	case float64:
		return v
	case int64:
		return float64(v)
	case string:
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	return 0
}

func (r reply) bool(k string) bool { return r.int(k) != 0 }

func toReplies(v any) ([]reply, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("hotkv: unexpected reply %T", v)
	}
	out := make([]reply, len(l))
	for i, x := range l {
		r, err := toReply(x)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// Index options shared by semantic caches and memory namespaces.
type IndexOptions struct {
	Dim    int
	Metric string // COSINE (default), L2 or IP
	Type   string // FLOAT32 (default), INT8 or BINARY
	M, EF  int    // 0: server defaults
}

// args renders the options; ef names the EF option (EF_CONSTRUCTION for
// VSIM.CREATEINDEX).
func (o IndexOptions) args(ef string) []any {
	a := []any{"DIM", o.Dim}
	if o.Metric != "" {
		a = append(a, "METRIC", o.Metric)
	}
	if o.Type != "" {
		a = append(a, "TYPE", o.Type)
	}
	if o.M != 0 {
		a = append(a, "M", o.M)
	}
	if o.EF != 0 {
		a = append(a, ef, o.EF)
	}
	return a
}
