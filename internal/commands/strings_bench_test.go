package commands

import (
	"testing"

	"github.com/hotkv/hotkv/internal/cmdtable"
)

// benchStringCmd runs one command b.N times on an existing key, locking its shard
// around each call as the dispatcher does.
func benchStringCmd(b *testing.B, setup []string, args ...string) {
	k := newStrKV(2)
	k.do(b, setup...)
	cmd := cmdtable.Lookup([]byte(args[0]))
	k.x.Args = k.argv(args)
	k.x.W.B = make([]byte, 0, 4096)
	sh := k.x.Shard(k.x.Args[1])
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		k.x.W.B = k.x.W.B[:0]
		sh.Lock()
		cmd.Run(k.x)
		sh.Unlock()
	}
}

func BenchmarkGET(b *testing.B) {
	benchStringCmd(b, []string{"set", "key:000001", "a value of some thirty bytes.."}, "get", "key:000001")
}

func BenchmarkSET(b *testing.B) {
	benchStringCmd(b, []string{"set", "key:000001", "a value of some thirty bytes.."}, "set", "key:000001", "another value of thirty bytes.")
}

func BenchmarkINCR(b *testing.B) {
	benchStringCmd(b, []string{"set", "counter", "1000000"}, "incr", "counter")
}
