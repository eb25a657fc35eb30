package server

import (
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/script"
)

// These benchmarks push pipelined batches through the whole per-connection
// path (read buffer, parser, lookup, locking, handler, statistics, reply
// buffer, write) of a real client, with a fake connection standing in for the
// socket. One op is one command; allocs/op must stay 0 for the hot commands.

// batchConn hands out the same request batch on every Read until it has done
// so reads times, then reports EOF; writes are counted and dropped.
type batchConn struct {
	batch []byte
	reads int
	out   int64
}

func (f *batchConn) Read(p []byte) (int, error) {
	if f.reads == 0 {
		return 0, io.EOF
	}
	f.reads--
	return copy(p, f.batch), nil
}

func (f *batchConn) Write(p []byte) (int, error) { f.out += int64(len(p)); return len(p), nil }
func (f *batchConn) Close() error                { return nil }
func (f *batchConn) LocalAddr() net.Addr         { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 6379} }
func (f *batchConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 50000}
}
func (f *batchConn) SetDeadline(time.Time) error      { return nil }
func (f *batchConn) SetReadDeadline(time.Time) error  { return nil }
func (f *batchConn) SetWriteDeadline(time.Time) error { return nil }

func encode(dst []byte, args ...string) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, "\r\n"...)
	for _, a := range args {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, "\r\n"...)
		dst = append(dst, a...)
		dst = append(dst, "\r\n"...)
	}
	return dst
}

// hotCommands are the commands whose server path must not allocate (ECHO,
// EXISTS and TYPE do almost nothing: they measure what dispatch costs). Each
// builds the i-th command of a batch over a small keyspace; setup prepares the
// keys. MGET and MSET take ten keys, prefetched together.
var hotCommands = []struct {
	name  string
	cmd   func(dst []byte, i int) []byte
	setup func(dst []byte, i int) []byte
}{
	{"PING", func(d []byte, i int) []byte { return encode(d, "PING") }, nil},
	{"ECHO", func(d []byte, i int) []byte { return encode(d, "ECHO", benchKey(i)) }, nil},
	{"EXISTS", func(d []byte, i int) []byte { return encode(d, "EXISTS", benchKey(i)) }, setKey},
	{"TYPE", func(d []byte, i int) []byte { return encode(d, "TYPE", benchKey(i)) }, setKey},
	{"GET", func(d []byte, i int) []byte { return encode(d, "GET", benchKey(i)) }, setKey},
	{"SET", func(d []byte, i int) []byte { return encode(d, "SET", benchKey(i), "xyz") }, setKey},
	{"INCR", func(d []byte, i int) []byte { return encode(d, "INCR", "counter:"+benchKey(i)) }, nil},
	{"MGET", func(d []byte, i int) []byte { return encode(d, append([]string{"MGET"}, tenKeys(i)...)...) }, setKey},
	{"MSET", func(d []byte, i int) []byte {
		a := []string{"MSET"}
		for _, k := range tenKeys(i) {
			a = append(a, k, "xyz")
		}
		return encode(d, a...)
	}, setKey},
}

// writeCommands are collection writes on the paths that read the encoding
// thresholds (set-max-*, hash-max-*, zset-max-*, list-max-listpack-size):
// small sets and hashes (listpack), members rewritten in place, and pushes.
// Only BenchmarkPipeline runs them; LPUSH grows its lists, so it allocates.
var writeCommands = []struct {
	name  string
	cmd   func(dst []byte, i int) []byte
	setup func(dst []byte, i int) []byte
}{
	{"SADD", func(d []byte, i int) []byte {
		return encode(d, "SADD", "set:"+strconv.Itoa(i%4), "member:"+strconv.Itoa(i))
	}, nil},
	{"HSET", func(d []byte, i int) []byte {
		return encode(d, "HSET", "hash:"+strconv.Itoa(i%4), "field:"+strconv.Itoa(i), "value")
	}, nil},
	{"ZADD", func(d []byte, i int) []byte {
		return encode(d, "ZADD", "zset:"+strconv.Itoa(i%4), strconv.Itoa(i), "member:"+strconv.Itoa(i))
	}, nil},
	{"LPUSH", func(d []byte, i int) []byte {
		return encode(d, "LPUSH", "list:"+strconv.Itoa(i%4), "element:"+strconv.Itoa(i))
	}, nil},
}

func tenKeys(i int) []string {
	keys := make([]string, 10)
	for j := range keys {
		keys[j] = benchKey(10*i + j)
	}
	return keys
}

func benchKey(i int) string { return "key:" + strconv.Itoa(i%512) }

func setKey(d []byte, i int) []byte { return encode(d, "SET", benchKey(i), "abc") }

// pipe runs reads batches of n commands through a fresh client of s.
func pipe(s *Server, batch []byte, reads int) *batchConn {
	conn := &batchConn{batch: batch, reads: reads}
	serveConn(s, conn)
	return conn
}

// serveConn serves conn as a client of s until it reports EOF.
func serveConn(s *Server, conn net.Conn) {
	c := newClient(s, conn)
	s.clients.mu.Lock()
	s.clients.byID[c.id] = c
	s.wg.Add(1)
	s.clients.mu.Unlock()
	c.serve()
}

// cpuTime is the process's user+system CPU time in nanoseconds. On a shared
// machine it is steadier than wall time: it leaves out the time other
// processes hold the CPU.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func benchServer(tb testing.TB) *Server {
	cfg := config.Default()
	cfg.LogLevel = "warning"
	return New(cfg)
}

func BenchmarkPipeline(b *testing.B) {
	for _, hc := range append(hotCommands[:len(hotCommands):len(hotCommands)], writeCommands...) {
		if cmdtable.Lookup([]byte(hc.name)) == nil {
			continue
		}
		for _, depth := range []int{1, 16, 64} {
			b.Run(hc.name+"/P"+strconv.Itoa(depth), func(b *testing.B) {
				s := benchServer(b)
				if hc.setup != nil {
					var setup []byte
					for i := range 512 {
						setup = hc.setup(setup, i)
					}
					pipe(s, setup, 1)
				}
				var batch []byte
				for i := range depth {
					batch = hc.cmd(batch, i)
				}
				pipe(s, batch, 1) // warm the buffers and the keys
				b.ReportAllocs()
				b.ResetTimer()
				cpu := cpuTime()
				pipe(s, batch, (b.N+depth-1)/depth)
				b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// TestHotPathAllocs keeps the hot commands (GET, SET overwriting, INCR,
// PING, ...) at zero allocations per command through the whole connection
// path.
func TestHotPathAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, hc := range hotCommands {
		if cmdtable.Lookup([]byte(hc.name)) == nil {
			continue
		}
		s := benchServer(t)
		if hc.setup != nil {
			var setup []byte
			for i := range 512 {
				setup = hc.setup(setup, i)
			}
			pipe(s, setup, 1)
		}
		var batch []byte
		for i := range 64 {
			batch = hc.cmd(batch, i)
		}
		pipe(s, batch, 1)
		const reads = 100
		allocs := testing.AllocsPerRun(5, func() { pipe(s, batch, reads) })
		// pipe itself makes the client and its buffers once per call, and
		// AllocsPerRun counts the server's background work too (its cron,
		// more of it on a loaded machine): an allocation per command would
		// be 1, one per ten commands 0.1.
		perCmd := allocs / (reads * 64)
		if perCmd > 0.05 {
			t.Errorf("%s: %.1f allocations per run of %d commands (%.3f per command), want none per command",
				hc.name, allocs, reads*64, perCmd)
		}
	}
}

// streamConn hands out a long request stream one pipelined batch per Read,
// starting over at its end, so that successive batches look up different
// keys and members, as valkey-benchmark's random ones do.
type streamConn struct {
	batchConn
	stream []byte
	ends   []int // where each batch ends in stream
	next   int
}

func (f *streamConn) Read(p []byte) (int, error) {
	if f.reads == 0 {
		return 0, io.EOF
	}
	f.reads--
	start := 0
	if f.next > 0 {
		start = f.ends[f.next-1]
	}
	n := copy(p, f.stream[start:f.ends[f.next]])
	f.next = (f.next + 1) % len(f.ends)
	return n, nil
}

// BenchmarkPipelineLarge runs batches of 16 commands with random arguments
// against 100,000 keys, set members and hash fields, where each lookup
// misses the cache (the pipelined look-ahead of prefetch.go is what it
// measures), and LPUSH to one list, where nothing misses (what the
// look-ahead costs).
func BenchmarkPipelineLarge(b *testing.B) {
	const n, depth, batches = 100_000, 16, 4096
	cases := []struct {
		name string
		cmd  func(r int) []string
	}{
		{"GET", func(r int) []string { return []string{"GET", "key:" + strconv.Itoa(r)} }},
		{"INCR", func(r int) []string { return []string{"INCR", "key:" + strconv.Itoa(r)} }},
		{"SADD", func(r int) []string { return []string{"SADD", "set", "element:" + strconv.Itoa(r)} }},
		{"HSET", func(r int) []string { return []string{"HSET", "hash", "field:" + strconv.Itoa(r), "xyz"} }},
		{"SISMEMBER", func(r int) []string { return []string{"SISMEMBER", "set", "element:" + strconv.Itoa(r)} }},
		{"LPUSH", func(r int) []string { return []string{"LPUSH", "list", "x"} }}, // one hot key: nothing to prefetch
		{"ZADD", func(r int) []string { // moves a member to a new score
			return []string{"ZADD", "zset", strconv.Itoa(r ^ 0x5555), "member:" + strconv.Itoa(r)}
		}},
	}
	s := benchServer(b)
	setup := &streamConn{}
	for i := range n {
		setup.stream = encode(setup.stream, "SET", "key:"+strconv.Itoa(i), strconv.Itoa(i))
		setup.stream = encode(setup.stream, "SADD", "set", "element:"+strconv.Itoa(i))
		setup.stream = encode(setup.stream, "HSET", "hash", "field:"+strconv.Itoa(i), "abc")
		setup.stream = encode(setup.stream, "ZADD", "zset", strconv.Itoa(i), "member:"+strconv.Itoa(i))
		setup.ends = append(setup.ends, len(setup.stream))
	}
	setup.reads = len(setup.ends)
	serveConn(s, setup)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			conn := &streamConn{}
			for range batches {
				for range depth {
					conn.stream = encode(conn.stream, tc.cmd(rng.IntN(n))...)
				}
				conn.ends = append(conn.ends, len(conn.stream))
			}
			conn.reads = b.N / depth
			b.ResetTimer()
			cpu := cpuTime()
			serveConn(s, conn)
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkEval: a one-key script (EVALSHA, as client libraries send it)
// through the connection path, at pipeline depth 1: one whose command
// answers an integer, and one whose command's status reply becomes a
// table in Lua.
func BenchmarkEval(b *testing.B) {
	for _, c := range []struct{ name, body string }{
		{"INCR", "return redis.call('incr', KEYS[1])"},
		{"SET", "return redis.call('set', KEYS[1], 'v')"},
	} {
		body := c.body
		b.Run(c.name, func(b *testing.B) {
			s := benchServer(b)
			pipe(s, encode(nil, "SCRIPT", "LOAD", body), 1)
			batch := encode(nil, "EVALSHA", script.SHA1([]byte(body)), "1", "counter")
			pipe(s, batch, 1)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime()
			pipe(s, batch, b.N)
			b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkStream measures the stream commands a queue spends its time in:
// appending with a server-chosen ID, reading a page of entries, and a
// consumer group handing out each new entry.
func BenchmarkStream(b *testing.B) {
	for _, c := range []struct {
		name  string
		setup [][]string
		batch [][]string
	}{
		{"XADD", nil, [][]string{{"XADD", "s", "*", "field", "value"}}},
		{"XADD-MAXLEN~", nil, [][]string{{"XADD", "s", "MAXLEN", "~", "1000", "*", "field", "value"}}},
		{"XRANGE-COUNT-10", slices.Repeat([][]string{{"XADD", "s", "*", "f", "v"}}, 100), [][]string{{"XRANGE", "s", "-", "+", "COUNT", "10"}}},
		{"XADD+XREADGROUP", [][]string{{"XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"}}, [][]string{
			{"XADD", "s", "*", "f", "v"}, {"XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "s", ">"}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := benchServer(b)
			for _, cmd := range c.setup {
				pipe(s, encode(nil, cmd...), 1)
			}
			var batch []byte
			for _, cmd := range c.batch {
				batch = encode(batch, cmd...)
			}
			b.ReportAllocs()
			b.ResetTimer()
			pipe(s, batch, b.N)
		})
	}
}
