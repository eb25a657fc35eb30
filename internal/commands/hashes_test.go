package commands

import (
	"fmt"
	"testing"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/resp"
)

// benchCtx is a handler context over a fresh keyspace, as the dispatcher
// would pass it (locking is irrelevant to a single goroutine).
func benchCtx() *cmdtable.Ctx {
	ks := keyspace.New(1)
	return &cmdtable.Ctx{KS: ks, DB: ks.DBs[0], W: &resp.Writer{Proto: 2}}
}

func run(x *cmdtable.Ctx, fn func(*cmdtable.Ctx), args ...[]byte) {
	x.Args = args
	x.W.B = x.W.B[:0]
	fn(x)
}

// argsFor prebuilds one argument vector per field, so that the benchmark
// loop allocates nothing itself.
func argsFor(fields [][]byte, words ...string) [][][]byte {
	out := make([][][]byte, len(fields))
	for i, f := range fields {
		out[i] = [][]byte{[]byte(words[0]), []byte(words[1]), f}
		for _, w := range words[2:] {
			out[i] = append(out[i], []byte(w))
		}
	}
	return out
}

// BenchmarkHashCommands measures the handlers alone, without the network,
// on a 10-field hash (compact) and a 1000-field one (table).
func BenchmarkHashCommands(b *testing.B) {
	for _, n := range []int{10, 1000} {
		x := benchCtx()
		key := []byte("h")
		fields := make([][]byte, n)
		for i := range fields {
			fields[i] = []byte(fmt.Sprint("field:", i))
			run(x, hset, []byte("hset"), key, fields[i], []byte("value"))
		}
		for _, c := range []struct {
			name string
			fn   func(*cmdtable.Ctx)
			args [][][]byte
		}{
			{"HGET", hget, argsFor(fields, "hget", "h")},
			{"HSET-existing", hset, argsFor(fields, "hset", "h", "other")},
			{"HINCRBY", hincrby, argsFor(fields, "hincrby", "h", "1")},
		} {
			b.Run(fmt.Sprint(c.name, "/", n), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					run(x, c.fn, c.args[i%n]...)
				}
			})
		}
	}
}
