package harness

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Ports for servers started as child processes (FreePort). The test
// packages run at once, each in its own process, and a port a test picks
// and then hands to a child is free for anyone until the child binds it:
// another package's in-process server (port 0) or child could take it, and
// each test would then talk to the other's server. So FreePort hands out
// ports below the kernel's ephemeral range, which no port-0 listener and no
// outgoing connection is given, and claims each with a lock file that other
// test processes see, held until the test ends.

const firstPort = 20000

var ports struct {
	sync.Mutex
	next, last int
}

// FreePort returns a port that is free now and that no other test, in
// this process or another, gets until t ends.
func FreePort(t testing.TB) int {
	t.Helper()
	ports.Lock()
	defer ports.Unlock()
	if ports.next == 0 {
		ports.last = ephemeralLow() - 1
		ports.next = firstPort + rand.IntN(ports.last-firstPort+1)
	}
	for range ports.last - firstPort + 1 {
		p := ports.next
		if ports.next++; ports.next > ports.last {
			ports.next = firstPort
		}
		if unlock, ok := claim(p); ok {
			t.Cleanup(unlock) // after the child's own cleanup, which registered later
			return p
		}
	}
	t.Fatal("no free port below the ephemeral range")
	return 0
}

// claim takes port p's lock file and checks that nothing listens on p.
func claim(p int) (unlock func(), ok bool) {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), fmt.Sprintf("hotkv-test-port-%d.lock", p)), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, false
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err != nil {
		f.Close()
		return nil, false
	}
	l.Close()
	return func() { f.Close() }, true
}

// ephemeralLow is the first port of the kernel's ephemeral range.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > firstPort+1000 {
				return n
			}
		}
	}
	return 32768
}
