package clients

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// TestClientLibraries runs the scripts in tests/clients, which use redis-py,
// node-redis and ioredis as applications do (pipelines, transactions with
// WATCH, pub/sub, blocking pops, scan iterators, INFO and COMMAND parsing,
// AUTH), and a BullMQ queue (Lua with cmsgpack, streams, blocking moves),
// against a HotKV server and one with requirepass. Every expected
// reply in the scripts is Redis's: when Redis 8 is installed the same
// scripts run against it too, so an expectation that Redis itself does not
// meet fails here instead of silently shaping HotKV.
//
// scripts/install-client-libs.sh installs the libraries; without them the
// test skips, unless HOTKV_REQUIRE_CLIENTS is set (as .ci/run does).
func TestClientLibraries(t *testing.T) {
	const password = "compat-secret"
	clients := []struct {
		name    string
		missing func() string // why the client cannot run, or ""
		cmd     []string
	}{
		{"redis-py", func() string {
			if exec.Command("/usr/bin/python3", "-c", "import redis").Run() != nil {
				return "redis-py not installed for /usr/bin/python3"
			}
			return ""
		}, []string{"/usr/bin/python3", "python/compat.py"}},
		{"node", func() string {
			if _, err := exec.LookPath("node"); err != nil {
				return "node not installed"
			}
			if _, err := os.Stat(filepath.Join("node", "node_modules")); err != nil {
				return "node-redis and ioredis not installed (npm ci in tests/clients/node)"
			}
			return ""
		}, []string{"node", "node/compat.mjs"}},
		{"bullmq", func() string {
			if _, err := exec.LookPath("node"); err != nil {
				return "node not installed"
			}
			if _, err := os.Stat(filepath.Join("node", "node_modules", "bullmq")); err != nil {
				return "BullMQ not installed (npm ci in tests/clients/node)"
			}
			return ""
		}, []string{"node", "node/bullmq.mjs"}},
	}
	servers := []struct {
		name  string
		start func(t *testing.T) (plain, auth *harness.Server)
	}{
		{"hotkv", func(t *testing.T) (*harness.Server, *harness.Server) {
			return harness.Start(t), harness.Start(t, "--requirepass", password)
		}},
		{"redis8", func(t *testing.T) (*harness.Server, *harness.Server) {
			return harness.StartRedis(t), harness.StartRedis(t, "--requirepass", password)
		}},
	}
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			if why := c.missing(); why != "" {
				if os.Getenv("HOTKV_REQUIRE_CLIENTS") != "" {
					t.Fatalf("%s (run scripts/install-client-libs.sh)", why)
				}
				t.Skipf("%s (run scripts/install-client-libs.sh)", why)
			}
			for _, srv := range servers {
				t.Run(srv.name, func(t *testing.T) {
					plain, auth := srv.start(t)
					args := append(c.cmd[1:], harness.Port(plain.Addr), harness.Port(auth.Addr), password)
					out, err := exec.Command(c.cmd[0], args...).CombinedOutput()
					if err != nil {
						t.Fatalf("%s against %s: %v\n%s", c.name, srv.name, err, out)
					}
					if !strings.Contains(string(out), " 0 failed") {
						t.Fatalf("unexpected output:\n%s", out)
					}
					if srv.name == "hotkv" {
						plain.NoPanics(t)
						auth.NoPanics(t)
					}
				})
			}
		})
	}
}

// TestSentinelClients runs redis-py's Sentinel client (python/sentinel.py)
// against a HotKV master and replica under three Redis 8.0.2 sentinels:
// the script writes through master_for and slave_for, kills the master
// and writes again, through the same client, to the promoted replica.
func TestSentinelClients(t *testing.T) {
	harness.OutOfProcess(t)
	if exec.Command("/usr/bin/python3", "-c", "import redis.sentinel").Run() != nil {
		if os.Getenv("HOTKV_REQUIRE_CLIENTS") != "" {
			t.Fatal("redis-py not installed for /usr/bin/python3 (run scripts/install-client-libs.sh)")
		}
		t.Skip("redis-py not installed for /usr/bin/python3 (run scripts/install-client-libs.sh)")
	}
	master := harness.StartBinary(t, "--save", "")
	harness.StartBinary(t, "--save", "", "--replicaof", "127.0.0.1", harness.Port(master.Addr))
	args := []string{"python/sentinel.py", strconv.Itoa(master.Cmd.Process.Pid)}
	port, _ := strconv.Atoi(harness.Port(master.Addr))
	var addrs []string
	for range 3 {
		s := harness.StartSentinel(t, port)
		addrs, args = append(addrs, s.Addr), append(args, harness.Port(s.Addr))
	}
	harness.WaitSentinels(t, addrs, 1)
	out, err := exec.Command("/usr/bin/python3", args...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), " 0 failed") {
		t.Fatalf("redis-py Sentinel: %v\n%s", err, out)
	}
}
