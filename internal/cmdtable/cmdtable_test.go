package cmdtable_test

import (
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/cmdtable"
	_ "github.com/hotkv/hotkv/internal/commands" // a real table to look up
	"github.com/hotkv/hotkv/internal/keyspace"
)

func TestShardUsesTheDispatchersHashOnlyForThatArgument(t *testing.T) {
	ks := keyspace.New(2)
	x := &cmdtable.Ctx{KS: ks, DB: ks.DBs[0]}
	buf := []byte("key:1 key:1")
	key, same, prefix := buf[:5], buf[6:], buf[:4]
	marker := ks.DBs[1].Shard(0) // a shard key does not live in: only the cache can return it
	x.SetKeyShard(key, marker)
	if x.Shard(key) != marker {
		t.Fatal("the recorded argument is hashed again")
	}
	for name, k := range map[string][]byte{"equal bytes elsewhere": same, "a prefix": prefix} {
		if x.Shard(k) != ks.DBs[0].ShardFor(k) {
			t.Errorf("%s: got the recorded shard", name)
		}
	}
	x.DB = ks.DBs[1]
	if x.Shard(key) == marker {
		t.Error("after a database change: got the recorded shard")
	}
	x.DB = ks.DBs[0]
	x.SetKeyShard(nil, nil)
	if x.Shard(key) != ks.DBs[0].ShardFor(key) {
		t.Error("after clearing: got the recorded shard")
	}
}

func TestLookupIgnoresCaseAndFindsEveryCommand(t *testing.T) {
	if len(cmdtable.All()) < 3 {
		t.Fatal("no command table to test")
	}
	for _, c := range cmdtable.All() {
		for _, name := range []string{c.Name, strings.ToUpper(c.Name)} {
			if got := cmdtable.Lookup([]byte(name)); got != c {
				t.Errorf("Lookup(%q) = %v", name, got)
			}
		}
	}
	// A name that differs from a command's only in a byte one bit (0x20)
	// away from it, such as '\r' for '-' or '\x10' for '0', is another name.
	misses := []string{"", "nosuchcommand", "GE", "gett", strings.Repeat("x", 100), "ping\x00", "restore\rasking",
		"PIN\x07", "ge\x14", "GET\x00", "\x00get", "zrangebyscorf", "ZRANGEBYSCOR", "georadiusbymembeR\x00"}
	for _, name := range misses {
		if got := cmdtable.Lookup([]byte(name)); got != nil {
			t.Errorf("Lookup(%q) = %v, want nil", name, got.Name)
		}
	}
}

// FuzzLookupName checks Lookup against comparing the name with every
// command's, as Is does.
func FuzzLookupName(f *testing.F) {
	for _, c := range cmdtable.All() {
		f.Add([]byte(c.Name))
		f.Add([]byte(strings.ToUpper(c.Name)))
	}
	f.Add([]byte("restore\rasking"))
	f.Fuzz(func(t *testing.T, name []byte) {
		var want *cmdtable.Cmd
		for _, c := range cmdtable.All() {
			if cmdtable.Is(name, c.Name) {
				want = c
			}
		}
		if got := cmdtable.Lookup(name); got != want {
			t.Errorf("Lookup(%q) = %v, want %v", name, got, want)
		}
	})
}
