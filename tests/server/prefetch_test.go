package server

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// A connection looks ahead at the pipelined commands it has buffered and
// prefetches their keys and members (server/prefetch.go). That must never
// change what they do: these tests run mixed scripts pipelined and one at
// a time, and pipeline against shared keys from many connections at once
// (the race detector checks the look-ahead's locking).

// prefetchScript is a random mix of commands on sets, hashes and sorted
// sets big enough to be hash tables, strings, type changes, renames,
// database switches and transactions.
func prefetchScript(rng *rand.Rand, n int) [][]string {
	var script [][]string
	for _, k := range []string{"s1", "s2"} {
		for i := range 300 {
			script = append(script, []string{"SADD", k, "m" + strconv.Itoa(i)})
		}
	}
	for i := range 100 {
		script = append(script, []string{"HSET", "h1", "f" + strconv.Itoa(i), strconv.Itoa(i)})
	}
	for i := range 200 {
		script = append(script, []string{"ZADD", "z1", strconv.Itoa(i), "m" + strconv.Itoa(i)})
	}
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	member := func() string { return "m" + strconv.Itoa(rng.IntN(400)) }
	field := func() string { return "f" + strconv.Itoa(rng.IntN(150)) }
	for len(script) < n {
		var c []string
		switch rng.IntN(20) {
		case 0, 1, 2:
			c = []string{pick("SADD", "SREM", "SISMEMBER"), pick("s1", "s2", "h1", "k1"), member()}
		case 3:
			c = []string{"SMISMEMBER", pick("s1", "s2"), member(), member()}
		case 4, 5, 6:
			c = []string{pick("HSET", "HSETNX"), pick("h1", "s1"), field(), strconv.Itoa(rng.IntN(9))}
		case 7, 8:
			c = []string{pick("HGET", "HDEL", "HEXISTS", "HSTRLEN"), pick("h1", "z1"), field()}
		case 9:
			c = []string{pick("HINCRBY", "HINCRBYFLOAT"), "h1", field(), "2"}
		case 10, 11:
			c = []string{"ZADD", "z1", strconv.Itoa(rng.IntN(1000)), member()}
		case 12:
			c = []string{pick("ZSCORE", "ZREM", "ZRANK", "ZREVRANK"), pick("z1", "s1"), member()}
		case 13:
			c = []string{"ZINCRBY", "z1", "1.5", member()}
		case 14:
			c = []string{pick("GET", "INCR", "DEL", "TYPE", "SCARD", "HLEN", "ZCARD"), pick("k1", "s1", "s2", "h1", "z1")}
		case 15:
			c = []string{"SET", pick("k1", "s1"), strconv.Itoa(rng.IntN(100))}
		case 16:
			c = []string{pick("RENAME", "COPY"), pick("s1", "s2", "h1"), pick("s1", "s2", "h1", "z1")}
		case 17:
			c = []string{"SELECT", pick("0", "1")}
		case 18:
			script = append(script, []string{"MULTI"},
				[]string{"SADD", "s2", member()}, []string{"HSET", "h1", field(), "x"}, []string{"SISMEMBER", "s2", member()})
			c = []string{pick("EXEC", "DISCARD")}
		default:
			c = []string{"SUNIONSTORE", "s2", "s1", "s2"}
		}
		script = append(script, c)
	}
	return script
}

func TestPipelinedScriptMatchesOneAtATime(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			script := prefetchScript(rand.New(rand.NewPCG(seed, 7)), 3000)
			one, piped := harness.Start(t).Raw(t), harness.Start(t).Raw(t)
			want := make([]any, len(script))
			for i, c := range script {
				want[i] = one.Do(c...)
			}
			// Pipelined, in writes of random sizes so that batches end
			// anywhere, inside arguments too.
			var req []byte
			for _, c := range script {
				req = append(req, harness.Encode(c...)...)
			}
			rng := rand.New(rand.NewPCG(seed, 8))
			sent := make(chan error, 1)
			go func() {
				for len(req) > 0 {
					n := min(1+rng.IntN(3000), len(req))
					piped.NetConn.SetWriteDeadline(time.Now().Add(5 * time.Second))
					if _, err := piped.NetConn.Write(req[:n]); err != nil {
						sent <- err
						return
					}
					req = req[n:]
				}
				sent <- nil
			}()
			for i, c := range script {
				if got := piped.Read(); !reflect.DeepEqual(got, want[i]) {
					t.Fatalf("command %d %q pipelined: %#v, one at a time: %#v", i, c, got, want[i])
				}
			}
			if err := <-sent; err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestPipelinesOnSharedKeysFromManyConnections(t *testing.T) {
	s := harness.Start(t)
	const conns, rounds, batch = 8, 40, 16
	var wg sync.WaitGroup
	for c := range conns {
		r := s.Raw(t)
		wg.Go(func() {
			var req []byte
			for i := range rounds * batch {
				m := strconv.Itoa(c*rounds*batch + i)
				switch i % 4 {
				case 0, 1: // the writes every connection makes to the same set and hash
					req = append(req, harness.Encode("SADD", "set", "m"+m)...)
					req = append(req, harness.Encode("HSET", "hash", "f"+m, m)...)
				case 2: // reads of members others are adding
					req = append(req, harness.Encode("SISMEMBER", "set", "m"+strconv.Itoa(i))...)
					req = append(req, harness.Encode("HGET", "hash", "f"+strconv.Itoa(i))...)
				default: // a key in flux beside them
					req = append(req, harness.Encode("SADD", "tmp", m)...)
					req = append(req, harness.Encode("DEL", "tmp")...)
				}
			}
			r.NetConn.SetWriteDeadline(time.Now().Add(10 * time.Second))
			r.NetConn.SetReadDeadline(time.Now().Add(10 * time.Second))
			go r.NetConn.Write(req)
			for range rounds * batch * 2 {
				if _, err := harness.ReadReply(r.Reader); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	r := s.Raw(t)
	want := int64(conns * rounds * batch / 2) // cases 0 and 1 of every four
	if got := r.Do("SCARD", "set"); got != want {
		t.Errorf("SCARD: %#v, want %d", got, want)
	}
	if got := r.Do("HLEN", "hash"); got != want {
		t.Errorf("HLEN: %#v, want %d", got, want)
	}
	s.NoPanics(t)
}

// A command that blocks in the middle of a batch leaves the rest of the
// batch, and a command still arriving after it, to be parsed again when it
// is served.
func TestBlockedMidBatchResumesWithTheRest(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Send(harness.Encode("BLPOP", "list", "0") + harness.Encode("SET", "a", "1") + "*3\r\n$3\r\nSET\r\n$1\r\nb")
	time.Sleep(50 * time.Millisecond) // let it block with the partial SET buffered
	s.Raw(t).Expect(int64(1), "LPUSH", "list", "x")
	r.ExpectRead([]any{"list", "x"})
	r.ExpectRead(harness.Status("OK"))
	r.Send("\r\n$1\r\n2\r\n")
	r.ExpectRead(harness.Status("OK"))
	r.Expect("1", "GET", "a")
	r.Expect("2", "GET", "b")
}

// An inline command is decoded in place, so batching must never parse one
// twice: neither after a protocol error ends a batch nor behind a command
// that blocks.
func TestInlineCommandsInBatches(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Send("SET a 1\r\nSET b \"xyz\r\n")
	r.ExpectRead(harness.Status("OK"))
	r.ExpectRead(harness.Err("ERR Protocol error: unbalanced quotes in request"))
	s.Raw(t).Expect(nil, "GET", "b") // the malformed command did not run

	r = s.Raw(t)
	r.Send("BLPOP q 0\r\nSET k \"hello world\"\r\n")
	time.Sleep(50 * time.Millisecond)
	s.Raw(t).Expect(int64(1), "RPUSH", "q", "x")
	r.ExpectRead([]any{"q", "x"})
	r.ExpectRead(harness.Status("OK"))
	s.Raw(t).Expect("hello world", "GET", "k")
}

// TestEmptyLinesInBatches: an empty line is an inline command with no words,
// which Redis skips. One that starts a batch with more input behind it must
// still be skipped: it once became an empty command that crashed the
// connection (redis-cli --pipe ends its stream with "\r\n" before its ECHO).
func TestEmptyLinesInBatches(t *testing.T) {
	s := harness.Start(t)
	for _, tc := range []struct {
		name   string
		writes []string
		want   []any
	}{
		{"empty line then inline", []string{"\r\nPING\r\n"}, []any{harness.Status("PONG")}},
		{"empty line then RESP", []string{"\r\n" + harness.Req("ECHO", "x")}, []any{"x"}},
		{"empty lines between keyed commands", []string{harness.Req("SET", "a", "1") + "\r\n\r\n" + harness.Req("SET", "b", "2") + harness.Req("GET", "a")},
			[]any{harness.Status("OK"), harness.Status("OK"), "1"}},
		{"redis-cli --pipe's ending", []string{harness.Req("SET", "k1", "x") + harness.Req("SET", "k2", "y"), "\r\n" + harness.Req("ECHO", "0123456789abcdefghij")},
			[]any{harness.Status("OK"), harness.Status("OK"), "0123456789abcdefghij"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.Raw(t)
			for _, w := range tc.writes {
				r.Send(w)
				time.Sleep(10 * time.Millisecond) // separate reads on the server
			}
			for _, want := range tc.want {
				r.ExpectRead(want)
			}
			r.Expect(harness.Status("PONG"), "PING") // the connection is still up
		})
	}
	s.NoPanics(t)
}
