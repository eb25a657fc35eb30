package pubsub

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

const subscribedOnly = "only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"

// TestSubscribeRESP2 walks the subscribed context of a RESP2 connection.
func TestSubscribeRESP2(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect([]any{"unsubscribe", nil, int64(0)}, "UNSUBSCRIBE") // not subscribed yet
	r.Send(harness.Req("SUBSCRIBE", "a", "b", "a"))
	r.ExpectRead([]any{"subscribe", "a", int64(1)})
	r.ExpectRead([]any{"subscribe", "b", int64(2)})
	r.ExpectRead([]any{"subscribe", "a", int64(2)}) // again: confirmed, not counted twice
	r.Expect(harness.Err("ERR Can't execute 'get': "+subscribedOnly), "GET", "x")
	r.Expect(harness.Err("ERR Can't execute 'config|get': "+subscribedOnly), "CONFIG", "GET", "x")
	r.Expect(harness.Err("ERR unknown command 'NOPE', with args beginning with: "), "NOPE") // existence is checked first
	r.Expect(harness.Err("ERR wrong number of arguments for 'get' command"), "GET")         // and arity
	r.Expect([]any{"pong", ""}, "PING")
	r.Expect([]any{"pong", "hi"}, "PING", "hi")
	r.Expect([]any{"psubscribe", "p*", int64(3)}, "PSUBSCRIBE", "p*") // channels and patterns count together
	r.Expect([]any{"ssubscribe", "s", int64(1)}, "SSUBSCRIBE", "s")   // shard channels alone
	r.Expect([]any{"unsubscribe", "zz", int64(3)}, "UNSUBSCRIBE", "zz")
	r.Send(harness.Req("UNSUBSCRIBE"))
	r.ExpectRead([]any{"unsubscribe", "a", int64(2)})
	r.ExpectRead([]any{"unsubscribe", "b", int64(1)})
	r.Expect([]any{"punsubscribe", "p*", int64(0)}, "PUNSUBSCRIBE")
	r.Expect([]any{"pong", ""}, "PING") // still subscribed to a shard channel
	r.Expect([]any{"sunsubscribe", "s", int64(0)}, "SUNSUBSCRIBE", "s")
	r.Expect(harness.Status("PONG"), "PING") // back to normal
	r.Expect(nil, "GET", "x")
	// RESET leaves the subscribed context.
	r.Send(harness.Req("SUBSCRIBE", "c"))
	r.ExpectRead([]any{"subscribe", "c", int64(1)})
	r.Expect(harness.Status("RESET"), "RESET")
	r.Expect(harness.Status("PONG"), "PING")
	s.Raw(t).Expect([]any{"c", int64(0)}, "PUBSUB", "NUMSUB", "c")
}

// TestPublishDelivery: PUBLISH reaches channel and pattern subscribers and
// counts them; SPUBLISH reaches shard subscribers only.
func TestPublishDelivery(t *testing.T) {
	s := harness.Start(t)
	sub := s.Raw(t)
	sub.Send(harness.Req("SUBSCRIBE", "news.tech") + harness.Req("PSUBSCRIBE", "news.*", "n?ws.tech") + harness.Req("SSUBSCRIBE", "news.tech"))
	for range 4 {
		sub.Read()
	}
	p := s.Raw(t)
	p.Expect(int64(3), "PUBLISH", "news.tech", "hello")
	sub.ExpectRead([]any{"message", "news.tech", "hello"})
	got := []any{sub.Read(), sub.Read()} // pattern messages, in either order
	want1 := []any{[]any{"pmessage", "news.*", "news.tech", "hello"}, []any{"pmessage", "n?ws.tech", "news.tech", "hello"}}
	want2 := []any{want1[1], want1[0]}
	if !reflect.DeepEqual(got, want1) && !reflect.DeepEqual(got, want2) {
		t.Fatalf("pattern messages: %#v", got)
	}
	p.Expect(int64(1), "SPUBLISH", "news.tech", "sharded")
	sub.ExpectRead([]any{"smessage", "news.tech", "sharded"})
	p.Expect(int64(1), "PUBLISH", "news.sport", "goal")
	sub.ExpectRead([]any{"pmessage", "news.*", "news.sport", "goal"})
	p.Expect(int64(0), "PUBLISH", "other", "x")
	p.Expect(harness.Err("ERR wrong number of arguments for 'publish' command"), "PUBLISH", "a")
}

// TestPubsubIntrospection: PUBSUB subcommands and their shapes in both
// protocols (NUMSUB is a flat array even in RESP3, as Redis answers).
func TestPubsubIntrospection(t *testing.T) {
	s := harness.Start(t)
	for _, ch := range []string{"a", "ab", "b"} {
		r := s.Raw(t)
		r.Expect([]any{"subscribe", ch, int64(1)}, "SUBSCRIBE", ch)
	}
	r := s.Raw(t)
	r.Expect([]any{"psubscribe", "x*", int64(1)}, "PSUBSCRIBE", "x*")
	r2 := s.Raw(t)
	r2.Expect([]any{"ssubscribe", "sa", int64(1)}, "SSUBSCRIBE", "sa")
	q := s.Raw(t)
	q.Expect([]any{"a", "ab", "b"}, "PUBSUB", "CHANNELS")
	q.Expect([]any{"a", "ab"}, "PUBSUB", "CHANNELS", "a*")
	q.Expect([]any{"a", int64(1), "zz", int64(0)}, "PUBSUB", "NUMSUB", "a", "zz")
	q.Expect([]any{}, "PUBSUB", "NUMSUB")
	q.Expect(int64(1), "PUBSUB", "NUMPAT")
	q.Expect([]any{"sa"}, "PUBSUB", "SHARDCHANNELS")
	q.Expect([]any{}, "PUBSUB", "SHARDCHANNELS", "b*")
	q.Expect([]any{"sa", int64(1)}, "PUBSUB", "SHARDNUMSUB", "sa")
	q.Expect(harness.Err("ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP."), "PUBSUB", "CHANNELS", "a", "b")
	q.Expect(harness.Err("ERR wrong number of arguments for 'pubsub|numpat' command"), "PUBSUB", "NUMPAT", "x")
	q.Expect(harness.Err("ERR unknown subcommand 'FOO'. Try PUBSUB HELP."), "PUBSUB", "FOO")
	q.Do("HELLO", "3")
	q.Expect([]any{"a", int64(1)}, "PUBSUB", "NUMSUB", "a")
	q.Expect([]any{"sa", int64(1)}, "PUBSUB", "SHARDNUMSUB", "sa")
	if n := s.InfoInt(t, "stats", "pubsub_channels"); n != 3 {
		t.Fatalf("pubsub_channels = %d", n)
	}
	if n := s.InfoInt(t, "clients", "pubsub_clients"); n != 5 {
		t.Fatalf("pubsub_clients = %d", n)
	}
	// A closed subscriber's subscriptions go away.
	r.NetConn.Close()
	harness.Eventually(t, "pattern subscription removed", func() bool { return q.Do("PUBSUB", "NUMPAT") == int64(0) })
}

// TestSubscribeRESP3 interleaves push messages with ordinary replies: in
// RESP3 a subscribed client runs any command.
func TestSubscribeRESP3(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Do("HELLO", "3")
	r.Expect(harness.Push{"subscribe", "ch", int64(1)}, "SUBSCRIBE", "ch")
	r.Expect(harness.Status("OK"), "SET", "k", "v")
	r.Expect(harness.Status("PONG"), "PING")
	pub := s.Raw(t)
	const n = 200
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range n {
			pub.Send(harness.Req("PUBLISH", "ch", strconv.Itoa(i)))
			pub.Read()
		}
	}()
	// Replies to our GETs come in order, pushes in publish order, both
	// complete and never one inside the other.
	next := 0
	readUntil := func(want any) {
		t.Helper()
		for {
			v := r.Read()
			if p, ok := v.(harness.Push); ok {
				if !reflect.DeepEqual(p, harness.Push{"message", "ch", strconv.Itoa(next)}) {
					t.Fatalf("push %d: %#v", next, p)
				}
				next++
				continue
			}
			if !reflect.DeepEqual(v, want) {
				t.Fatalf("got %#v, want %#v", v, want)
			}
			return
		}
	}
	for range n {
		r.Send(harness.Req("GET", "k"))
		readUntil("v")
	}
	wg.Wait() // every message is queued before its PUBLISH is answered,
	r.Send(harness.Req("PING"))
	readUntil(harness.Status("PONG")) // so they all come before this reply
	if next != n {
		t.Fatalf("got %d of %d messages", next, n)
	}
}

// TestMessageOrdering: messages from each publisher arrive in the order they
// were published, across channels and patterns.
func TestMessageOrdering(t *testing.T) {
	s := harness.Start(t)
	sub := s.Raw(t)
	sub.Expect([]any{"subscribe", "ord", int64(1)}, "SUBSCRIBE", "ord")
	const pubs, each = 4, 300
	var wg sync.WaitGroup
	for p := range pubs {
		c := s.Client(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := c.Publish(context.Background(), "ord", fmt.Sprintf("%d:%d", p, i)).Err(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	last := make([]int, pubs)
	for i := range last {
		last[i] = -1
	}
	for range pubs * each {
		m := sub.Read().([]any)
		var p, i int
		if _, err := fmt.Sscanf(m[2].(string), "%d:%d", &p, &i); err != nil || m[0] != "message" {
			t.Fatalf("message %#v", m)
		}
		if i != last[p]+1 {
			t.Fatalf("publisher %d: message %d after %d", p, i, last[p])
		}
		last[p] = i
	}
	wg.Wait()
}

// TestSlowSubscriberDisconnected: a subscriber that does not read is
// disconnected once its queue passes pubsub-output-buffer-limit; the
// publisher never blocks, and a subscriber that reads gets everything.
func TestSlowSubscriberDisconnected(t *testing.T) {
	s := harness.Start(t, "--pubsub-output-buffer-limit", "4mb")
	slow := s.Raw(t)
	slow.Expect([]any{"subscribe", "flood", int64(1)}, "SUBSCRIBE", "flood")
	ctx := context.Background()
	fast := s.Client(t).Subscribe(ctx, "flood")
	defer fast.Close()
	if _, err := fast.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	var received atomic.Int64
	go func() {
		for range fast.Channel(redis.WithChannelSize(4096)) {
			received.Add(1)
		}
	}()
	pub := s.Client(t)
	payload := harness.BulkN(100<<10, 'm')
	const total = 400 // 40 MB: far more than socket buffers can absorb
	for i := 1; i <= total; i++ {
		if _, err := pub.Publish(ctx, "flood", payload).Result(); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
		if i%10 == 0 { // keep the reading subscriber's backlog (1 MB) under the limit, even on a busy machine
			harness.Eventually(t, "the reading subscriber to catch up", func() bool { return received.Load() >= int64(i-10) })
		}
	}
	if !slow.DrainedToClose() {
		t.Fatal("slow subscriber still connected")
	}
	if n := s.InfoInt(t, "stats", "client_output_buffer_limit_disconnections"); n != 1 {
		t.Fatalf("client_output_buffer_limit_disconnections = %d", n)
	}
	harness.Eventually(t, "every message to the reading subscriber", func() bool { return received.Load() == total })
	if n, _ := pub.Publish(ctx, "flood", "x").Result(); n != 1 {
		t.Fatalf("subscribers left: %d", n)
	}
}

// TestSubscribeInsideMulti: SUBSCRIBE may be queued; its confirmation is
// part of EXEC's reply and no message lands inside that reply, even while
// another client publishes continuously.
func TestSubscribeInsideMulti(t *testing.T) {
	s := harness.Start(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	p := s.Raw(t)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				p.Do("PUBLISH", "tx", "m")
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	for range 10 {
		r := s.Raw(t)
		// The sleep inside the transaction lets messages be published while
		// EXEC's reply is being built.
		r.Send(harness.Req("MULTI") + harness.Req("SUBSCRIBE", "tx") + harness.Req("DEBUG", "SLEEP", "0.005") + harness.Req("PING", "in") + harness.Req("EXEC"))
		r.ExpectRead(harness.Status("OK"))
		for range 3 {
			r.ExpectRead(harness.Status("QUEUED"))
		}
		r.ExpectRead([]any{[]any{"subscribe", "tx", int64(1)}, harness.Status("OK"), []any{"pong", "in"}})
		for range 3 {
			r.ExpectRead([]any{"message", "tx", "m"})
		}
		r.NetConn.Close()
	}
}

// TestGoRedisPubSub uses go-redis's PubSub in both protocols.
func TestGoRedisPubSub(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	for name, c := range map[string]*redis.Client{"resp3": s.Client(t), "resp2": s.Client(t, harness.Resp2)} {
		ps := c.Subscribe(ctx, "g1")
		if err := ps.PSubscribe(ctx, "g*"); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := ps.Receive(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := ps.Ping(ctx); err != nil {
			t.Fatalf("%s: ping while subscribed: %v", name, err)
		}
		pub := s.Client(t)
		if n, err := pub.Publish(ctx, "g1", "hi").Result(); err != nil || n != 2 {
			t.Fatalf("%s: publish = %d, %v", name, n, err)
		}
		ch := ps.Channel()
		got := map[string]bool{}
		for range 2 {
			select {
			case m := <-ch:
				got[m.Pattern+"|"+m.Channel+"|"+m.Payload] = true
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: no message", name)
			}
		}
		if !got["|g1|hi"] || !got["g*|g1|hi"] {
			t.Fatalf("%s: messages %v", name, got)
		}
		if err := ps.Unsubscribe(ctx, "g1"); err != nil {
			t.Fatal(err)
		}
		ps.Close()
		harness.Eventually(t, "subscriptions gone", func() bool {
			n, _ := pub.PubSubNumPat(ctx).Result()
			return n == 0
		})
	}
}

// TestAbusivePattern: a pattern of many stars that cannot match must not
// stall PUBLISH (glob matching used to take exponential time).
func TestAbusivePattern(t *testing.T) {
	s := harness.Start(t)
	sub := s.Raw(t)
	pat := strings.Repeat("*a", 30) + "*b"
	sub.Expect([]any{"psubscribe", pat, int64(1)}, "PSUBSCRIBE", pat)
	p := s.Raw(t)
	p.Expect(int64(0), "PUBLISH", strings.Repeat("a", 500), "x") // read deadline: 5 s
	p.Expect(int64(1), "PUBLISH", strings.Repeat("a", 500)+"b", "x")
	p.Expect([]any{}, "PUBSUB", "CHANNELS", pat)
	p.Expect([]any{}, "CONFIG", "GET", strings.Repeat("*e", 30)+"*x")
}

// TestSubscribeConfirmationsUnderReplyOff: CLIENT REPLY OFF and SKIP do not
// silence (un)subscribe confirmations, in either protocol (Redis sends them
// as pushes); they silence the other replies. "<send>" marks a command
// whose reply is silenced: it is sent without reading.
func TestSubscribeConfirmationsUnderReplyOff(t *testing.T) {
	script := [][]string{
		{"<send>", "CLIENT", "REPLY", "OFF"},
		{"SUBSCRIBE", "channel"},
		{"PSUBSCRIBE", "ch*"},
		{"<send>", "CLIENT", "REPLY", "OFF"},
		{"UNSUBSCRIBE", "channel"},
		{"PUNSUBSCRIBE"},
		{"UNSUBSCRIBE"},
		{"SUNSUBSCRIBE", "never"},
		{"<send>", "PING"},
		{"CLIENT", "REPLY", "ON"},
		{"<send>", "CLIENT", "REPLY", "SKIP"},
		{"<send>", "PING"},
		{"SUBSCRIBE", "x"},
		{"UNSUBSCRIBE", "x"},
		{"PING"},
	}
	harness.DifferRun(t, script, func(r *harness.Conn, cmd []string) any {
		if cmd[0] == "<send>" {
			r.Send(harness.Encode(cmd[1:]...))
			return nil
		}
		return r.Do(cmd...)
	}, reflect.DeepEqual)
}

// TestPublishToSelfAfterReply: a RESP3 subscriber's own PUBLISH, in a
// transaction or a script too, answers before the message it sends itself
// arrives, as in Redis.
func TestPublishToSelfAfterReply(t *testing.T) {
	steps := []struct {
		cmd     []string
		replies int
	}{
		{[]string{"SUBSCRIBE", "foo"}, 1},
		{[]string{"PUBLISH", "foo", "bar"}, 2},
		{[]string{"MULTI"}, 1},
		{[]string{"PING", "abc"}, 1},
		{[]string{"PUBLISH", "foo", "bar"}, 1},
		{[]string{"PUBLISH", "foo", "vaz"}, 1},
		{[]string{"EXEC"}, 3},
		{[]string{"EVAL", "redis.call('publish', 'foo', 'x') return 'bla'", "0"}, 2},
		{[]string{"SPUBLISH", "foo", "y"}, 1}, // not subscribed to the shard channel
		{[]string{"PING", "end"}, 1},
	}
	run := func(s *harness.Server) []any {
		r := s.Raw(t)
		r.Do("HELLO", "3")
		var out []any
		for _, st := range steps {
			r.Send(harness.Encode(st.cmd...))
			for range st.replies {
				out = append(out, r.Read())
			}
		}
		return out
	}
	got, want := run(harness.Start(t)), run(harness.StartRedis(t))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("HotKV:\n%#v\nRedis:\n%#v", got, want)
	}
}
