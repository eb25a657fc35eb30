package hotkv

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/redis/go-redis/v9"
)

// PromptCacheOptions configure a prompt cache namespace.
type PromptCacheOptions struct {
	TTL        time.Duration // default entry lifetime; 0: none
	MaxEntries int64         // 0: unbounded (LRU eviction beyond)
	MaxBytes   int64         // bound on stored response bytes; 0: unbounded
	NoRefresh  bool          // hits do not restart an entry's lifetime
}

// CreatePromptCache is PCACHE.CREATE.
func (c *Client) CreatePromptCache(ctx context.Context, ns string, o PromptCacheOptions) error {
	a := []any{"PCACHE.CREATE", ns}
	if o.TTL > 0 {
		a = append(a, "TTL", secs(o.TTL))
	}
	if o.MaxEntries > 0 {
		a = append(a, "MAXENTRIES", o.MaxEntries)
	}
	if o.MaxBytes > 0 {
		a = append(a, "MAXBYTES", o.MaxBytes)
	}
	if o.NoRefresh {
		a = append(a, "NOREFRESH")
	}
	_, err := c.do(ctx, a...)
	return err
}

// Prompt names a cached response: the server hashes namespace, model,
// parameters (in any order) and text together.
type Prompt struct {
	Text   string
	Model  string
	Params map[string]string
}

func (p Prompt) args(cmd, ns string) []any {
	a := []any{cmd, ns, p.Text}
	return append(a, p.opts()...)
}

func (p Prompt) opts() []any {
	var a []any
	if p.Model != "" {
		a = append(a, "MODEL", p.Model)
	}
	if len(p.Params) > 0 {
		names := make([]string, 0, len(p.Params))
		for n := range p.Params {
			names = append(names, n)
		}
		sort.Strings(names)
		a = append(a, "PARAMS", len(names))
		for _, n := range names {
			a = append(a, n, p.Params[n])
		}
	}
	return a
}

// SetPrompt is PCACHE.SET: ttl 0 takes the namespace default, a negative
// ttl means none. It reports whether the entry is new.
func (c *Client) SetPrompt(ctx context.Context, ns string, p Prompt, response string, ttl time.Duration) (bool, error) {
	a := append([]any{"PCACHE.SET", ns, p.Text, response}, p.opts()...)
	n, err := c.rdb.Do(ctx, append(a, ttlArgs(ttl)...)...).Int64()
	return n == 1, err
}

// GetPrompt is PCACHE.GET; ok is false on a miss.
func (c *Client) GetPrompt(ctx context.Context, ns string, p Prompt) (response string, ok bool, err error) {
	s, err := c.rdb.Do(ctx, p.args("PCACHE.GET", ns)...).Text()
	if errors.Is(err, redis.Nil) {
		return "", false, nil
	}
	return s, err == nil, err
}

// DeletePrompt is PCACHE.DEL.
func (c *Client) DeletePrompt(ctx context.Context, ns string, p Prompt) (bool, error) {
	n, err := c.rdb.Do(ctx, p.args("PCACHE.DEL", ns)...).Int64()
	return n == 1, err
}

// PromptCacheInfo is PCACHE.INFO's reply.
type PromptCacheInfo struct {
	Entries, Bytes, Hits, Misses, Sets, Evicted, Expired int64
	TTL                                                  time.Duration
	MaxEntries, MaxBytes                                 int64
	Refresh                                              bool
}

// PromptCacheInfo is PCACHE.INFO.
func (c *Client) PromptCacheInfo(ctx context.Context, ns string) (PromptCacheInfo, error) {
	r, err := c.mapReply(ctx, "PCACHE.INFO", ns)
	if err != nil {
		return PromptCacheInfo{}, err
	}
	return PromptCacheInfo{Entries: r.int("entries"), Bytes: r.int("bytes"), Hits: r.int("hits"), Misses: r.int("misses"),
		Sets: r.int("sets"), Evicted: r.int("evicted"), Expired: r.int("expired"),
		TTL:        time.Duration(r.float("ttl") * float64(time.Second)),
		MaxEntries: r.int("maxentries"), MaxBytes: r.int("maxbytes"), Refresh: r.bool("refresh")}, nil
}

// DropPromptCache is PCACHE.DROP.
func (c *Client) DropPromptCache(ctx context.Context, ns string) error {
	_, err := c.do(ctx, "PCACHE.DROP", ns)
	return err
}

// ChunkPrefix is PCACHE.PREFIX: how many of the keys, from the first,
// exist (the cached prefix of an LLM KV cache stored one key per chunk).
func (c *Client) ChunkPrefix(ctx context.Context, keys ...string) (int, error) {
	a := make([]any, 0, len(keys)+1)
	a = append(a, "PCACHE.PREFIX")
	for _, k := range keys {
		a = append(a, k)
	}
	n, err := c.rdb.Do(ctx, a...).Int64()
	return int(n), err
}
