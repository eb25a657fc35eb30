package pubsub

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// cacheConn is a RESP3 connection with a client-side cache, usable from any
// goroutine (errors are returned, never fatal). Invalidations are applied
// in the order they arrive between replies, as a caching client does.
type cacheConn struct {
	c     net.Conn
	r     *bufio.Reader
	cache map[string]any // key -> the reply of its read
}

func dialCache(addr string, setup ...[]string) (*cacheConn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	cc := &cacheConn{c: c, r: bufio.NewReader(c), cache: map[string]any{}}
	if _, err := cc.do("HELLO", "3"); err != nil {
		return nil, err
	}
	for _, s := range setup {
		if v, err := cc.do(s...); err != nil || v != harness.Status("OK") && s[0] != "HELLO" {
			return nil, fmt.Errorf("%q: %v %v", s, v, err)
		}
	}
	return cc, nil
}

// do sends one command and returns its reply, applying the pushes read
// before it.
func (c *cacheConn) do(args ...string) (any, error) {
	c.c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.c.Write([]byte(harness.Encode(args...))); err != nil {
		return nil, err
	}
	for {
		v, err := harness.ReadReply(c.r)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", args, err)
		}
		p, ok := v.(harness.Push)
		if !ok {
			return v, nil
		}
		if len(p) == 2 && p[0] == "invalidate" {
			keys, ok := p[1].([]any)
			if !ok {
				clear(c.cache) // FLUSHDB/FLUSHALL
			}
			for _, k := range keys {
				delete(c.cache, k.(string))
			}
		}
	}
}

// read answers a read of key from the cache, or from the server (after
// CLIENT CACHING YES for an OPTIN client), caching the reply.
func (c *cacheConn) read(key string, optin bool) error {
	if _, ok := c.cache[key]; ok {
		return nil
	}
	if optin {
		if _, err := c.do("CLIENT", "CACHING", "YES"); err != nil {
			return err
		}
	}
	cmd := []string{"GET", key}
	if key[0] == 'l' {
		cmd = []string{"LRANGE", key, "0", "-1"}
	}
	v, err := c.do(cmd...)
	if err != nil {
		return err
	}
	c.cache[key] = v
	return nil
}

// TestTrackingStress runs tracking clients of every mode (default, OPTIN,
// NOLOOP with writes of its own, BCAST, REDIRECT to a RESP2 subscriber, one
// blocked in BLMOVE and XREAD, one toggling tracking, short-lived ones)
// against writers of strings, lists and streams, transactions, scripts,
// expiries and FLUSHALL, then checks that every cache that saw its last
// invalidations matches the server. Under -race it also looks for data
// races and lock-order deadlocks in the tracking paths.
func TestTrackingStress(t *testing.T) {
	hot := harness.Start(t)
	const nkeys = 8
	keys := make([]string, 0, nkeys+2)
	for i := range nkeys {
		keys = append(keys, "k"+strconv.Itoa(i))
	}
	keys = append(keys, "la", "lb")
	var (
		stop    atomic.Bool
		wg      sync.WaitGroup
		errMu   sync.Mutex
		firstEr error
	)
	fail := func(err error) {
		errMu.Lock()
		if firstEr == nil {
			firstEr = err
		}
		errMu.Unlock()
		stop.Store(true)
	}
	run := func(f func(rng *rand.Rand) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(rand.New(rand.NewPCG(rand.Uint64(), 1))); err != nil {
				fail(err)
			}
		}()
	}
	key := func(rng *rand.Rand) string { return keys[rng.IntN(nkeys)] }

	// Writers.
	for range 2 {
		run(func(rng *rand.Rand) error {
			w, err := dialCache(hot.Addr)
			if err != nil {
				return err
			}
			defer w.c.Close()
			for i := 0; !stop.Load(); i++ {
				k, k2 := key(rng), key(rng)
				var cmds [][]string
				switch rng.IntN(12) {
				case 0:
					cmds = [][]string{{"SET", k, strconv.Itoa(i)}}
				case 1:
					cmds = [][]string{{"SET", k, strconv.Itoa(i), "PX", strconv.Itoa(1 + rng.IntN(30))}}
				case 2:
					cmds = [][]string{{"DEL", k, k2}}
				case 3:
					cmds = [][]string{{"APPEND", k, "x"}}
				case 4:
					cmds = [][]string{{"MSET", k, "m", k2, "n"}}
				case 5:
					cmds = [][]string{{"RENAME", k, k2}}
				case 6:
					cmds = [][]string{{"EVAL", "return redis.call('set', KEYS[1], ARGV[1])", "1", k, "lua"}}
				case 7:
					cmds = [][]string{{"MULTI"}, {"INCR", k}, {"GETDEL", k2}, {"EXEC"}}
				case 8:
					cmds = [][]string{{"LPUSH", "la", strconv.Itoa(i)}, {"RPOP", "lb"}}
				case 9:
					cmds = [][]string{{"XADD", "s", "MAXLEN", "~", "100", "*", "f", "v"}}
				case 10:
					cmds = [][]string{{"PEXPIRE", k, strconv.Itoa(1 + rng.IntN(30))}}
				case 11:
					if rng.IntN(20) == 0 {
						cmds = [][]string{{"FLUSHALL"}}
					}
				}
				for _, c := range cmds {
					if _, err := w.do(c...); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}

	// Long-lived caches, checked at the end.
	type cacheClient struct {
		c        *cacheConn
		optin    bool
		noloop   bool
		prefixed bool // BCAST PREFIX k: reads only k keys
	}
	var clients []*cacheClient
	for _, mode := range [][]string{
		{"CLIENT", "TRACKING", "ON"},
		{"CLIENT", "TRACKING", "ON", "OPTIN"},
		{"CLIENT", "TRACKING", "ON", "OPTOUT"},
		{"CLIENT", "TRACKING", "ON", "NOLOOP"},
		{"CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "k"},
	} {
		c, err := dialCache(hot.Addr, mode)
		if err != nil {
			t.Fatal(err)
		}
		defer c.c.Close()
		cl := &cacheClient{c: c, optin: mode[len(mode)-1] == "OPTIN", noloop: mode[len(mode)-1] == "NOLOOP", prefixed: len(mode) > 4 && mode[4] == "PREFIX"}
		clients = append(clients, cl)
		run(func(rng *rand.Rand) error {
			for !stop.Load() {
				k := keys[rng.IntN(len(keys))]
				if cl.prefixed && k[0] != 'k' {
					continue
				}
				if cl.noloop && rng.IntN(4) == 0 { // its own write: it updates its own cache
					if _, err := c.do("SET", k, "own", "PX", strconv.Itoa(1+rng.IntN(30))); err != nil {
						return err
					}
					delete(c.cache, k)
					continue
				}
				if err := c.read(k, cl.optin); err != nil {
					return err
				}
			}
			return nil
		})
	}

	// A RESP2 subscriber receiving redirected invalidations, and its client.
	sub, err := net.Dial("tcp", hot.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	subR := bufio.NewReader(sub)
	sub.Write([]byte(harness.Encode("CLIENT", "ID") + harness.Encode("SUBSCRIBE", "__redis__:invalidate")))
	idv, _ := harness.ReadReply(subR)
	subID := strconv.FormatInt(idv.(int64), 10)
	wg.Add(1)
	go func() { // drain it until it is closed
		defer wg.Done()
		for {
			if _, err := harness.ReadReply(subR); err != nil {
				return
			}
		}
	}()
	run(func(rng *rand.Rand) error {
		c, err := dialCache(hot.Addr, []string{"HELLO", "2"}, []string{"CLIENT", "TRACKING", "ON", "REDIRECT", subID})
		if err != nil {
			return err
		}
		defer c.c.Close()
		for !stop.Load() {
			if _, err := c.do("GET", key(rng)); err != nil {
				return err
			}
		}
		return nil
	})

	// A tracking client that blocks, and one that toggles tracking.
	run(func(rng *rand.Rand) error {
		c, err := dialCache(hot.Addr, []string{"CLIENT", "TRACKING", "ON"})
		if err != nil {
			return err
		}
		defer c.c.Close()
		for !stop.Load() {
			if err := c.read("lb", false); err != nil {
				return err
			}
			if _, err := c.do("BLMOVE", "la", "lb", "LEFT", "RIGHT", "0.02"); err != nil {
				return err
			}
			if _, err := c.do("XREAD", "BLOCK", "20", "STREAMS", "s", "$"); err != nil {
				return err
			}
		}
		return nil
	})
	run(func(rng *rand.Rand) error {
		c, err := dialCache(hot.Addr)
		if err != nil {
			return err
		}
		defer c.c.Close()
		on := false
		for !stop.Load() {
			if rng.IntN(5) == 0 {
				mode := []string{"CLIENT", "TRACKING", "OFF"}
				if on = !on; on {
					mode = []string{"CLIENT", "TRACKING", "ON", "BCAST"}[:3+rng.IntN(2)]
				}
				if v, err := c.do(mode...); err != nil || v != harness.Status("OK") {
					return fmt.Errorf("%q: %v %v", mode, v, err)
				}
				if v, err := c.do("CLIENT", "TRACKINGINFO"); err != nil {
					return err
				} else if _, ok := v.(harness.Map); !ok {
					return fmt.Errorf("CLIENT TRACKINGINFO: %#v", v)
				}
				continue
			}
			if _, err := c.do("GET", key(rng)); err != nil {
				return err
			}
		}
		return nil
	})

	// Clients that come and go mid-flight, and introspection.
	run(func(rng *rand.Rand) error {
		for !stop.Load() {
			mode := [][]string{{"CLIENT", "TRACKING", "ON"}, {"CLIENT", "TRACKING", "ON", "BCAST"},
				{"CLIENT", "TRACKING", "ON", "REDIRECT", subID}}[rng.IntN(3)]
			c, err := dialCache(hot.Addr, mode)
			if err != nil {
				return err
			}
			for range rng.IntN(5) {
				c.c.Write([]byte(harness.Encode("GET", key(rng)))) // replies left unread
			}
			c.c.Close()
		}
		return nil
	})
	run(func(rng *rand.Rand) error {
		c, err := dialCache(hot.Addr)
		if err != nil {
			return err
		}
		defer c.c.Close()
		for !stop.Load() {
			for _, cmd := range [][]string{{"CLIENT", "LIST"}, {"INFO", "clients"}, {"INFO", "stats"}} {
				if _, err := c.do(cmd...); err != nil {
					return err
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
		return nil
	})

	time.Sleep(1500 * time.Millisecond)
	stop.Store(true)
	done := make(chan struct{})
	go func() {
		sub.SetReadDeadline(time.Now().Add(time.Second))
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("clients stuck: a deadlock?")
	}
	if firstEr != nil && !errors.Is(firstEr, net.ErrClosed) {
		t.Fatal(firstEr)
	}

	// Let every short expiry pass, and read each key once so that any key
	// still waiting for expiry is deleted (and invalidated) now; then each
	// cache, after the invalidations queued before its PONG, must match.
	time.Sleep(100 * time.Millisecond)
	check, err := dialCache(hot.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer check.c.Close()
	for _, k := range keys {
		if err := check.read(k, false); err != nil {
			t.Fatal(err)
		}
	}
	for i, cl := range clients {
		if _, err := cl.c.do("PING"); err != nil {
			t.Fatal(err)
		}
		for k, v := range cl.c.cache {
			if !reflect.DeepEqual(v, check.cache[k]) {
				t.Errorf("client %d caches %s = %#v, the server has %#v", i, k, v, check.cache[k])
			}
		}
	}
	hot.NoPanics(t)
}

// TestTrackingClientBackpressure: a tracking client's replies go through a
// queue (with its invalidations); one that pipelines without reading must
// stop being read, as any client does when its socket fills, instead of
// queueing replies without end.
func TestTrackingClientBackpressure(t *testing.T) {
	hot := harness.Start(t)
	a := hot.Raw(t)
	a.Do("HELLO", "3")
	a.Expect(harness.Status("OK"), "CLIENT", "TRACKING", "ON")
	a.Expect(harness.Status("OK"), "SET", "big", strings.Repeat("x", 100<<10))
	before := hot.InfoInt(t, "memory", "used_memory")
	const n = 3000 // 300 MB of replies
	go func() {
		req := []byte(strings.Repeat(harness.Encode("GET", "big"), 100))
		for range n / 100 {
			if _, err := a.NetConn.Write(req); err != nil {
				return
			}
		}
	}()
	time.Sleep(time.Second) // the server reads and answers what it can meanwhile
	if grown := hot.InfoInt(t, "memory", "used_memory") - before; grown > 64<<20 {
		t.Fatalf("used_memory grew by %d MB while the client did not read", grown>>20)
	}
	for i := range n {
		if v, ok := a.Read().(string); !ok || len(v) != 100<<10 {
			t.Fatalf("reply %d: %T", i, v)
		}
	}
	a.Expect(harness.Status("PONG"), "PING")
}
