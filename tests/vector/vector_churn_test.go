package vector

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// vecChurn is one store under churn: how to write, remove, search and
// count it over a connection.
type vecChurn struct {
	create func(c *redis.Client, key string) error // nil: the first write creates it
	set    func(c *redis.Client, key, name string, v []float32) error
	del    func(c *redis.Client, key, name string) (bool, error)
	search func(c *redis.Client, key string, v []float32, k, ef int) ([]string, error)
	card   func(c *redis.Client, key string) (int64, error)
	get    func(c *redis.Client, key, name string) (bool, error)
}

// runVecChurn (issue 24): in each round, on a new key, two writers replace
// the vectors of two thirds of n elements and remove the rest while three
// connections search. Deleted ids are reused by the next inserts, and a
// purge of pending deletes once linked such a reused id on a layer its new
// node lacks: the next walk of that link crashed the server. Afterwards the
// count is what the writers left, the removed elements are gone and the
// others there, and every search hit is a live element.
func runVecChurn(t *testing.T, s *harness.Server, vc vecChurn) {
	const n, dim = 600, 8
	// Five rounds failed 20 runs of 20 before the fix. The race detector
	// makes a round take seconds: one round is enough for it to check.
	rounds := uint64(5)
	if harness.RaceEnabled {
		rounds = 1
	}
	c := s.Client(t, func(o *redis.Options) { o.PoolSize = 1 })
	for round := range rounds {
		key := fmt.Sprint("churn", round)
		if vc.create != nil {
			if err := vc.create(c, key); err != nil {
				t.Fatal(err)
			}
		}
		r := rand.New(rand.NewPCG(9, round))
		data := make([][]float32, n)
		for i := range data {
			data[i] = make([]float32, dim)
			for j := range data[i] {
				data[i][j] = float32(r.NormFloat64())
			}
		}
		for i, v := range data {
			if err := vc.set(c, key, strconv.Itoa(i), v); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		for w := range 2 {
			wg.Go(func() {
				c := s.Client(t, func(o *redis.Options) { o.PoolSize = 1 })
				for i := w; i < n; i += 2 {
					name := strconv.Itoa(i)
					if i%3 == 0 {
						if ok, err := vc.del(c, key, name); !ok || err != nil {
							t.Errorf("remove %s: %v %v", name, ok, err)
							return
						}
					} else if err := vc.set(c, key, name, data[(i+1)%n]); err != nil {
						t.Errorf("replace %s: %v", name, err)
						return
					}
				}
			})
		}
		for range 3 {
			wg.Go(func() {
				c := s.Client(t, func(o *redis.Options) { o.PoolSize = 1 })
				for j := range 100 {
					names, err := vc.search(c, key, data[j], 5, 10)
					if err != nil || len(names) > 5 {
						t.Errorf("search: %v, %d hits", err, len(names))
						return
					}
				}
			})
		}
		wg.Wait()
		s.NoPanics(t)
		if t.Failed() {
			return
		}
		if got, err := vc.card(c, key); err != nil || got != n-n/3 {
			t.Fatalf("round %d: count %d (%v), want %d", round, got, err, n-n/3)
		}
		for i := range n {
			if ok, err := vc.get(c, key, strconv.Itoa(i)); err != nil || ok != (i%3 != 0) {
				t.Fatalf("round %d: element %d present %v (%v), want %v", round, i, ok, err, i%3 != 0)
			}
		}
		for j := range 50 {
			names, err := vc.search(c, key, data[j], 10, 100)
			if err != nil || len(names) != 10 {
				t.Fatalf("round %d: search after the churn: %v, %d hits", round, err, len(names))
			}
			for _, name := range names {
				if i, err := strconv.Atoi(name); err != nil || i%3 == 0 {
					t.Fatalf("round %d: search hit %q is not a live element", round, name)
				}
			}
		}
	}
}

// TestVectorIndexChurnWithSearches: VSIM.SET (replacing), VSIM.DEL and
// VSIM.SEARCH on one named index at once.
func TestVectorIndexChurnWithSearches(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	runVecChurn(t, s, vecChurn{
		create: func(c *redis.Client, key string) error {
			return c.Do(ctx, "VSIM.CREATEINDEX", key, "DIM", 8, "EF_CONSTRUCTION", 40).Err()
		},
		set: func(c *redis.Client, key, name string, v []float32) error {
			return c.Do(ctx, "VSIM.SET", key, name, "FP32", harness.VSBlob(v...)).Err()
		},
		del: func(c *redis.Client, key, name string) (bool, error) {
			n, err := c.Do(ctx, "VSIM.DEL", key, name).Int()
			return n == 1, err
		},
		search: func(c *redis.Client, key string, v []float32, k, ef int) ([]string, error) {
			res, err := c.Do(ctx, "VSIM.SEARCH", key, "FP32", harness.VSBlob(v...), "K", k, "EF", ef).Slice()
			var names []string
			for i := 0; i < len(res); i += 2 {
				names = append(names, fmt.Sprint(res[i]))
			}
			return names, err
		},
		card: func(c *redis.Client, key string) (int64, error) {
			info, err := c.Do(ctx, "VSIM.INFO", key).Result()
			if err != nil {
				return 0, err
			}
			size, ok := info.(map[any]any)["size"].(int64)
			if !ok {
				return 0, fmt.Errorf("no size in VSIM.INFO %v", info)
			}
			return size, nil
		},
		get: func(c *redis.Client, key, name string) (bool, error) {
			err := c.Do(ctx, "VSIM.GET", key, name).Err()
			if err == redis.Nil {
				return false, nil
			}
			return err == nil, err
		},
	})
}

// TestVectorSetChurnWithSearches: VADD (replacing), VREM and VSIM on one
// vector set at once.
func TestVectorSetChurnWithSearches(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	runVecChurn(t, s, vecChurn{
		set: func(c *redis.Client, key, name string, v []float32) error {
			return c.Do(ctx, "VADD", key, "FP32", harness.VSBlob(v...), name, "EF", 40).Err()
		},
		del: func(c *redis.Client, key, name string) (bool, error) {
			return c.Do(ctx, "VREM", key, name).Bool()
		},
		search: func(c *redis.Client, key string, v []float32, k, ef int) ([]string, error) {
			return c.Do(ctx, "VSIM", key, "FP32", harness.VSBlob(v...), "COUNT", k, "EF", ef).StringSlice()
		},
		card: func(c *redis.Client, key string) (int64, error) {
			return c.Do(ctx, "VCARD", key).Int64()
		},
		get: func(c *redis.Client, key, name string) (bool, error) {
			err := c.Do(ctx, "VEMB", key, name).Err()
			if err == redis.Nil {
				return false, nil
			}
			return err == nil, err
		},
	})
}
