package replication

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// A HotKV master with a HotKV replica and a Redis 8.0.2 replica (priority
// 0) under three real Redis 8.0.2 sentinels (quorum 2, StartSentinel): a master killed
// with SIGKILL, and then one frozen with SIGSTOP, each ends in the HotKV
// replica promoted and the Redis replica following it; the old master,
// back, is turned into a replica of the new one and gets its data; acknowledged writes (WAIT) survive every failover, and
// a go-redis failover client finds each new master. Everything the
// sentinels do here goes through HotKV's own commands: INFO replication,
// ROLE, REPLICAOF, CONFIG REWRITE, CLIENT KILL, MULTI/EXEC and the
// __sentinel__:hello channel by which they find each other.
func TestSentinelFailover(t *testing.T) {
	harness.OutOfProcess(t)
	redisServer := harness.RedisServerPath()
	if redisServer == "" {
		t.Skip("Redis 8.0.2's redis8-server (../shared/peers/install.sh) is not installed")
	}
	ctx := context.Background()
	nodes := make([]*haNode, 3)
	for i := range nodes {
		nodes[i] = &haNode{port: harness.FreePort(t), dir: t.TempDir()}
	}
	// The third node is a Redis 8.0.2 replica with replica-priority 0:
	// never promoted, it follows each HotKV master the sentinels name.
	nodes[2].bin = redisServer
	nodes[0].start(t)
	nodes[1].start(t, "--replicaof", "127.0.0.1", strconv.Itoa(nodes[0].port))
	nodes[2].start(t, "--replicaof", "127.0.0.1", strconv.Itoa(nodes[0].port), "--replica-priority", "0")
	var sentinels []*redis.Client
	var sentinelAddrs []string
	for range 3 {
		addr := harness.StartSentinel(t, nodes[0].port).Addr
		c := redis.NewClient(&redis.Options{Addr: addr})
		t.Cleanup(func() { c.Close() })
		sentinels, sentinelAddrs = append(sentinels, c), append(sentinelAddrs, addr)
	}
	harness.WaitSentinels(t, sentinelAddrs, 2)

	fc := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "mymaster", SentinelAddrs: sentinelAddrs,
		MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second})
	t.Cleanup(func() { fc.Close() })
	written := 0
	write := func(n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			if err := fc.Set(ctx, "k:"+strconv.Itoa(written), written, 0).Err(); err != nil {
				t.Fatalf("SET through the failover client: %v", err)
			}
			written++
		}
		if got, err := fc.Do(ctx, "WAIT", 2, 5000).Int(); err != nil || got != 2 {
			t.Fatalf("WAIT 2: %d, %v", got, err)
		}
	}
	write(100)

	master := nodes[0]
	for _, how := range []string{"SIGKILL", "SIGSTOP"} {
		var failed *haNode
		failed, master = master, nil
		// Writes no WAIT acknowledged, to the master straight, up to its
		// end: replication is asynchronous, so the last of them may be lost,
		// as in Redis. Counted, not bounded.
		stop, acked := make(chan struct{}), make(chan int)
		go func() {
			n := 0
			defer func() { acked <- n }()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if failed.c.Set(ctx, how+":"+strconv.Itoa(n), n, 0).Err() != nil {
					return
				}
				n++
			}
		}()
		time.Sleep(200 * time.Millisecond)
		if how == "SIGKILL" {
			failed.kill(t)
		} else {
			failed.signal(t, syscall.SIGSTOP)
		}
		down := time.Now()
		close(stop)
		unacked := <-acked
		// A replica is promoted; the other replica follows it.
		harness.EventuallyWithin(t, 60*time.Second, "a replica promoted after "+how+" of the master", func() bool {
			port := masterPort(ctx, sentinels[0])
			if port == failed.port {
				return false
			}
			for _, n := range nodes {
				if n.port == port && n.role(ctx) == "master" {
					master = n
					return true
				}
			}
			return false
		})
		if master == nodes[2] {
			t.Fatalf("after %s the sentinels promoted the replica with replica-priority 0", how)
		}
		t.Logf("%s: a replica promoted %.1f s after the master went down (down-after-milliseconds 2000)", how, time.Since(down).Seconds())
		for _, n := range nodes {
			if n != master && n != failed {
				harness.EventuallyWithin(t, 30*time.Second, "the other replica to follow the new master", func() bool {
					return n.following(ctx, master.port)
				})
			}
		}
		if got := countPrefix(ctx, master.c, "k:"); got != written {
			t.Fatalf("after %s: the new master has %d of the %d keys WAIT acknowledged", how, got, written)
		}
		kept := countPrefix(ctx, master.c, how+":")
		t.Logf("%s: of %d writes the master answered OK without WAIT in its last 200 ms, the new master has %d (%d lost)",
			how, unacked, kept, unacked-kept)
		// The old master comes back and is turned into a replica of the new
		// one, with its data.
		if how == "SIGKILL" {
			failed.start(t)
		} else {
			failed.signal(t, syscall.SIGCONT)
		}
		harness.EventuallyWithin(t, 45*time.Second, "the old master to rejoin as a replica after "+how, func() bool {
			return failed.following(ctx, master.port)
		})
		write(50) // through the failover client, to the new master, acknowledged by both replicas
		harness.EventuallyWithin(t, 10*time.Second, "the old master to hold the new master's data", func() bool {
			return failed.dbsize(ctx) == master.dbsize(ctx)
		})
	}
}

// haNode is a hotkv process on a fixed port, so that it can come back on
// the address the sentinels know.
type haNode struct {
	bin  string // the server binary; "": hotkv
	port int
	dir  string
	cmd  *exec.Cmd
	c    *redis.Client
}

func (n *haNode) start(t *testing.T, args ...string) {
	t.Helper()
	bin := n.bin
	if bin == "" {
		bin = harness.Binary(t)
	}
	n.cmd = exec.Command(bin, append([]string{"--port", strconv.Itoa(n.port), "--bind", "127.0.0.1", "--dir", n.dir,
		"--save", "", "--loglevel", "warning"}, args...)...)
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cmd := n.cmd
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGCONT); cmd.Process.Kill(); cmd.Wait() })
	harness.WaitPort(t, n.addr())
	if n.c == nil {
		n.c = redis.NewClient(&redis.Options{Addr: n.addr(), DialTimeout: time.Second, ReadTimeout: time.Second, MaxRetries: -1})
		t.Cleanup(func() { n.c.Close() })
	}
}

func (n *haNode) addr() string { return fmt.Sprintf("127.0.0.1:%d", n.port) }

func (n *haNode) kill(t *testing.T) {
	t.Helper()
	n.cmd.Process.Kill()
	n.cmd.Wait()
}

func (n *haNode) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := n.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// role is ROLE's first element, "" when the node does not answer.
func (n *haNode) role(ctx context.Context) string {
	r, err := n.c.Do(ctx, "ROLE").Slice()
	if err != nil || len(r) == 0 {
		return ""
	}
	s, _ := r[0].(string)
	return s
}

// following reports whether n is a replica of the node on port with its
// link up.
func (n *haNode) following(ctx context.Context, port int) bool {
	info, err := n.c.Info(ctx, "replication").Result()
	if err != nil {
		return false
	}
	return strings.Contains(info, "role:slave\r\n") && strings.Contains(info, "master_port:"+strconv.Itoa(port)+"\r\n") &&
		strings.Contains(info, "master_link_status:up\r\n")
}

// countPrefix counts the keys named prefix + a number.
func countPrefix(ctx context.Context, c *redis.Client, prefix string) int {
	keys, err := c.Keys(ctx, prefix+"*").Result()
	if err != nil {
		return -1
	}
	return len(keys)
}

func (n *haNode) dbsize(ctx context.Context) int64 {
	v, err := n.c.DBSize(ctx).Result()
	if err != nil {
		return -1
	}
	return v
}

// masterPort is the master's port as a sentinel names it, 0 if unknown.
func masterPort(ctx context.Context, s *redis.Client) int {
	r, err := s.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster").StringSlice()
	if err != nil || len(r) != 2 {
		return 0
	}
	p, _ := strconv.Atoi(r[1])
	return p
}

// A replica's replica-announce-ip and -port are the address its master
// shows (INFO replication, ROLE), which Sentinel connects to; a CONFIG SET
// applies at the next sync.
func TestReplicaAnnounceAddress(t *testing.T) {
	master := harness.Start(t)
	m := master.Raw(t)
	replica := harness.Start(t, "--replicaof", "127.0.0.1", harness.Port(master.Addr),
		"--replica-announce-ip", "10.1.2.3", "--replica-announce-port", "7777")
	harness.Eventually(t, "the replica online at its announced address", func() bool {
		return harness.InfoFields(t, m, "replication")["slave0"] != "" &&
			strings.HasPrefix(harness.InfoFields(t, m, "replication")["slave0"], "ip=10.1.2.3,port=7777,state=online,")
	})
	role, ok := m.Do("ROLE").([]any)
	if !ok || len(role) != 3 {
		t.Fatalf("ROLE: %v", m.Do("ROLE"))
	}
	if rs, ok := role[2].([]any); !ok || len(rs) != 1 || fmt.Sprint(rs[0].([]any)[:2]) != "[10.1.2.3 7777]" {
		t.Fatalf("ROLE's replicas: %v", role[2])
	}
	// Unset, the replica's own port and the address it connects from.
	r := replica.Raw(t)
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "replica-announce-ip", "", "replica-announce-port", "0")
	r.Expect(harness.Status("OK"), "REPLICAOF", "NO", "ONE")
	r.Expect(harness.Status("OK"), "REPLICAOF", "127.0.0.1", harness.Port(master.Addr))
	want := "ip=127.0.0.1,port=" + harness.Port(replica.Addr) + ",state=online,"
	harness.Eventually(t, "the replica online at its own address", func() bool {
		return strings.HasPrefix(harness.InfoFields(t, m, "replication")["slave0"], want)
	})
}
