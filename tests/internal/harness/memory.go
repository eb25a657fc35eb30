package harness

import (
	"context"
	"github.com/redis/go-redis/v9"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RandBlob is the FP32 encoding of a random vector of dim components.
func RandBlob(rng *rand.Rand, dim int) string {
	v := make([]float32, dim)
	for i := range v {
		v[i] = rng.Float32() - 0.5
	}
	return VSBlob(v...)
}

// Fill writes n keys prefix:0..n-1 with size-byte values, 500 per pipeline,
// and returns the first error reply.
func Fill(ctx context.Context, c *redis.Client, prefix string, from, n, size int, ttl time.Duration) error {
	val := strings.Repeat("v", size)
	for i := from; i < from+n; i += 500 {
		p := c.Pipeline()
		for j := i; j < min(i+500, from+n); j++ {
			p.Set(ctx, prefix+":"+strconv.Itoa(j), val, ttl)
		}
		if _, err := p.Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// InfoField is a numeric INFO field, read through a go-redis client.
func InfoField(t *testing.T, c *redis.Client, section, field string) int64 {
	t.Helper()
	txt, err := c.Info(context.Background(), section).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(txt, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("%s=%q", field, v)
			}
			return n
		}
	}
	t.Fatalf("INFO %s has no %s", section, field)
	return 0
}

// AIInfo is the integer field of a PCACHE.INFO or SCACHE.INFO reply.
func AIInfo(t *testing.T, c *redis.Client, cmd, name, field string) int64 {
	t.Helper()
	m, err := c.Do(context.Background(), cmd, name).Result()
	if err != nil {
		t.Fatal(err)
	}
	v, ok := m.(map[any]any)[field].(int64)
	if !ok {
		t.Fatalf("%s %s: no integer %s in %v", cmd, name, field, m)
	}
	return v
}
