package server

import (
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// closed reports whether mc's connection was closed.
func closed(mc *migrateConn) bool {
	_, err := mc.conn.Write([]byte{0})
	return err != nil
}

// TestMigrateCache: at most migrateCacheMax connections, one per target
// (the one put back last), a connection in use is out of the cache, and
// the idle ones close after migrateCacheTTL.
func TestMigrateCache(t *testing.T) {
	var m migrateCache
	conn := func(name string) *migrateConn {
		a, b := net.Pipe()
		go func() { // drain, so that a write to an open pipe returns
			buf := make([]byte, 16)
			for {
				if _, err := b.Read(buf); err != nil {
					return
				}
			}
		}()
		t.Cleanup(func() { a.Close(); b.Close() })
		return &migrateConn{name: name, conn: a, db: -1}
	}
	var all []*migrateConn
	for i := range migrateCacheMax + 5 {
		mc := conn("host:" + strconv.Itoa(i))
		all = append(all, mc)
		m.put(mc)
	}
	if len(m.conns) != migrateCacheMax {
		t.Fatalf("%d cached connections", len(m.conns))
	}
	evicted := 0
	for _, mc := range all {
		if m.conns[mc.name] != mc {
			evicted++
			if !closed(mc) {
				t.Errorf("%s left the cache open", mc.name)
			}
		}
	}
	if evicted != 5 {
		t.Errorf("%d evicted", evicted)
	}

	var name string
	for name = range m.conns {
		break
	}
	old := m.conns[name]
	if mc, err := m.take(name, nil, nil, time.Second); err != nil || mc != old || m.conns[name] != nil {
		t.Fatalf("take %s: %v, %v; still cached: %v", name, mc == old, err, m.conns[name] != nil)
	}
	newer := conn(name)
	m.put(newer)
	m.put(old) // put back last: kept, the other closed
	if m.conns[name] != old || !closed(newer) || closed(old) {
		t.Errorf("two connections to %s: the last put back is not the one kept", name)
	}

	old.used = time.Now().Add(-migrateCacheTTL - time.Second)
	m.closeIdle(migrateCacheTTL)
	if m.conns[name] != nil || !closed(old) || len(m.conns) != migrateCacheMax-1 {
		t.Errorf("after closeIdle: %d cached, %s cached %v", len(m.conns), name, m.conns[name] != nil)
	}
	m.closeIdle(-1)
	if len(m.conns) != 0 {
		t.Errorf("after closing all: %d cached", len(m.conns))
	}
}

// TestMigrateKeys: the key positions are Redis's migrateGetKeys.
func TestMigrateKeys(t *testing.T) {
	for _, c := range []struct {
		args string
		want []int
	}{
		{"MIGRATE h p k 0 0", []int{3}},
		{"MIGRATE h p k 0 0 COPY REPLACE", []int{3}},
		{"MIGRATE h p _ 0 0 KEYS a b", []int{7, 8}},
		{"MIGRATE h p _ 0 0 KEYS", nil},
		{"MIGRATE h p k 0 0 KEYS a", nil},
		{"MIGRATE h p _ 0 0 AUTH keys KEYS a", []int{9}},
		{"MIGRATE h p _ 0 0 AUTH2 keys keys KEYS a b", []int{10, 11}},
		{"MIGRATE h p _ 0 0 AUTH", []int{3}},
	} {
		var args [][]byte
		for _, w := range strings.Fields(c.args) {
			if w == "_" {
				w = ""
			}
			args = append(args, []byte(w))
		}
		if got := migrateKeys(args, nil); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.args, got, c.want)
		}
	}
}
