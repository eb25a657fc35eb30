package harness

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// InfoFields is INFO section over r.
func InfoFields(t *testing.T, r *Conn, section string) map[string]string {
	t.Helper()
	txt, _ := r.Do("INFO", section).(string)
	m := map[string]string{}
	for _, line := range strings.Split(txt, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m
}

// CaughtUp waits until the replica has applied everything the master sent.
func CaughtUp(t *testing.T, master, replica *Conn) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		m := InfoFields(t, master, "replication")["master_repl_offset"]
		rf := InfoFields(t, replica, "replication")
		if rf["master_link_status"] == "up" && rf["slave_repl_offset"] == m {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica not caught up: master offset %s, replica %v", m, rf)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// PortOf is the port of a host:port address.
func PortOf(t *testing.T, addr string) string {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// StartReplicaBinary runs hotkv as a process and returns a raw connection.
func StartReplicaBinary(t *testing.T, args ...string) (*Proc, *Conn) {
	t.Helper()
	p := StartBinary(t, append([]string{"--dir", t.TempDir(), "--save", "", "--enable-debug-command", "yes", "--loglevel", "verbose"}, args...)...)
	return p, (&Server{Addr: p.Addr}).Raw(t)
}

// InfoFloat is the number in field name of m (InfoFields), a trailing %
// dropped.
func InfoFloat(t testing.TB, m map[string]string, name string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(strings.TrimSuffix(m[name], "%"), 64)
	if err != nil {
		t.Fatalf("INFO %s: %q", name, m[name])
	}
	return f
}
