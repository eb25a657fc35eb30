package memory

import (
	"context"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

func TestMemoryUsageReplies(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "SET", "foo", "bar")
	for _, tc := range []struct {
		args []string
		want any
	}{
		{[]string{"MEMORY", "USAGE", "nokey"}, nil},
		{[]string{"MEMORY", "USAGE", "foo", "SAMPLES"}, harness.Err("ERR syntax error")},
		{[]string{"MEMORY", "USAGE", "foo", "SAMPLES", "x"}, harness.Err("ERR value is not an integer or out of range")},
		{[]string{"MEMORY", "USAGE", "foo", "SAMPLES", "-1"}, harness.Err("ERR syntax error")},
		{[]string{"MEMORY", "USAGE", "foo", "BAR", "1"}, harness.Err("ERR syntax error")},
		{[]string{"MEMORY", "USAGE"}, harness.Err("ERR wrong number of arguments for 'memory|usage' command")},
		{[]string{"MEMORY", "PURGE"}, harness.Status("OK")},
		{[]string{"MEMORY", "NOPE"}, harness.Err("ERR unknown subcommand 'NOPE'. Try MEMORY HELP.")},
	} {
		r.Expect(tc.want, tc.args...)
	}
	// Not counted as keyspace hits or misses, as in Redis.
	if h, m := s.InfoInt(t, "stats", "keyspace_hits"), s.InfoInt(t, "stats", "keyspace_misses"); h != 0 || m != 0 {
		t.Errorf("keyspace_hits %d, keyspace_misses %d after MEMORY USAGE only", h, m)
	}
	small := r.Do("MEMORY", "USAGE", "foo").(int64)
	r.Expect(harness.Status("OK"), "SET", "big", strings.Repeat("x", 10000))
	if big := r.Do("MEMORY", "USAGE", "big", "SAMPLES", "0").(int64); small < 16 || small > 128 || big < 10000 || big > 11000 {
		t.Errorf("MEMORY USAGE: 3-byte string %d, 10000-byte string %d", small, big)
	}
}

// MEMORY USAGE of a large collection is within a factor of 1.5 of what
// building it added to the heap.
func TestMemoryUsageEstimates(t *testing.T) {
	s := harness.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	heap := func() int64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.HeapAlloc)
	}
	const n = 50_000
	for _, tc := range []struct {
		name string
		add  func(p redis.Pipeliner, i int)
	}{
		{"hash", func(p redis.Pipeliner, i int) { p.HSet(ctx, "h", "field:"+strconv.Itoa(i), "value") }},
		{"set", func(p redis.Pipeliner, i int) { p.SAdd(ctx, "s", "member:"+strconv.Itoa(i)) }},
		{"zset", func(p redis.Pipeliner, i int) {
			p.ZAdd(ctx, "z", redis.Z{Score: float64(i), Member: "member:" + strconv.Itoa(i)})
		}},
		{"list", func(p redis.Pipeliner, i int) { p.RPush(ctx, "l", "element:"+strconv.Itoa(i)) }},
	} {
		key := tc.name[:1]
		before := heap()
		for i := 0; i < n; i += 1000 {
			p := c.Pipeline()
			for j := i; j < i+1000; j++ {
				tc.add(p, j)
			}
			if _, err := p.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		grew := heap() - before
		est, err := c.MemoryUsage(ctx, key, 0).Result()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: estimate %d, heap grew %d", tc.name, est, grew)
		if r := float64(est) / float64(grew); r < 1/1.5 || r > 1.5 {
			t.Errorf("%s of %d: MEMORY USAGE %d, heap grew %d (ratio %.2f)", tc.name, n, est, grew, r)
		}
	}
}

// redis-cli --memkeys samples keys with MEMORY USAGE.
func TestRedisCLIMemkeys(t *testing.T) {
	cli := harness.RedisCLI(t)
	s := harness.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	for i := range 20 {
		c.RPush(ctx, "list:"+strconv.Itoa(i), strings.Repeat("x", 100*(i+1)))
	}
	out, err := exec.Command(cli, "-h", "127.0.0.1", "-p", harness.Port(s.Addr), "--memkeys").CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli --memkeys: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "failed") || !strings.Contains(string(out), `Biggest   list found '"list:19"'`) {
		t.Fatalf("redis-cli --memkeys:\n%s", out)
	}
}

// A connection that sent one very large command keeps none of its buffers
// once the command has run, as Redis frees a client's arguments after each
// command and shrinks its query buffer, and they are reclaimed without
// further traffic: a DEL of 100,000 absent keys left 6 MB on the connection
// for good (the argument lists, the key positions and, through the last
// command's arguments, the input buffer). A server process of its own:
// used_memory is the process's heap.
func TestLargeCommandBuffersReleased(t *testing.T) {
	harness.OutOfProcess(t)
	_, r := harness.StartReplicaBinary(t)
	used := func() int64 { return int64(harness.InfoFloat(t, harness.InfoFields(t, r, "memory"), "used_memory")) }
	r.Expect(harness.Status("OK"), "MEMORY", "PURGE")
	before := used()
	for _, cmd := range []string{"DEL", "EXISTS", "MGET"} {
		reply := r.Do(withArgs(100_000, func(j int) []string { return []string{"absent:" + strconv.Itoa(j)} }, cmd)...)
		if _, isErr := reply.(harness.Err); isErr {
			t.Fatalf("%s: %v", cmd, reply)
		}
		for end := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			after := used()
			if after <= before+1<<20 {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("after %s of 100,000 keys: used_memory %d, %d before", cmd, after, before)
			}
		}
	}
}
