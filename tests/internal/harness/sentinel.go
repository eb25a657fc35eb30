package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// StartSentinel runs Redis 8.0.2's sentinel (redis8-server --sentinel)
// monitoring the master on masterPort as "mymaster", quorum 2, with short
// periods (down after 2 s, a failed failover tried again after 10 s): on a
// loaded 2-core machine, 1 s stalls made sentinels see each other down and
// give up a failover for 20 s. It skips the test when the peers are not
// installed. The sentinel rewrites its configuration file, so it lives in
// a directory of its own; its log is printed if the test fails.
func StartSentinel(t *testing.T, masterPort int) *Server {
	t.Helper()
	bin := RedisServerPath()
	if bin == "" {
		t.Skip("Redis 8.0.2's redis8-server (../shared/peers/install.sh) is not installed")
	}
	port, dir := FreePort(t), t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	body := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\n"+
		"sentinel monitor mymaster 127.0.0.1 %d 2\n"+
		"sentinel down-after-milliseconds mymaster 2000\n"+
		"sentinel failover-timeout mymaster 5000\n"+
		"sentinel parallel-syncs mymaster 2\n", port, dir, masterPort)
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, conf, "--sentinel")
	log, err := os.Create(filepath.Join(dir, "sentinel.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("sentinel on port %d:\n%s", port, b)
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	WaitPort(t, addr)
	return &Server{Addr: addr}
}

// WaitSentinels waits (30 s at most) until every sentinel at addrs sees
// the given number of replicas of mymaster and all the other sentinels,
// which they find through hello messages published on the master.
func WaitSentinels(t *testing.T, addrs []string, replicas int) {
	t.Helper()
	ctx := context.Background()
	var cs []*redis.Client
	for _, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a})
		defer c.Close()
		cs = append(cs, c)
	}
	EventuallyWithin(t, 30*time.Second, "the sentinels to find the replicas and each other", func() bool {
		for _, c := range cs {
			m, err := c.Do(ctx, "SENTINEL", "MASTER", "mymaster").Result()
			if err != nil {
				return false
			}
			f := sentinelFields(m)
			if f["num-slaves"] != fmt.Sprint(replicas) || f["num-other-sentinels"] != fmt.Sprint(len(addrs)-1) {
				return false
			}
		}
		return true
	})
}

// sentinelFields reads SENTINEL MASTER's reply, a flat list (RESP2) or a
// map (RESP3), into strings.
func sentinelFields(v any) map[string]string {
	out := map[string]string{}
	switch m := v.(type) {
	case map[any]any:
		for k, v := range m {
			out[fmt.Sprint(k)] = fmt.Sprint(v)
		}
	case []any:
		for i := 0; i+1 < len(m); i += 2 {
			out[fmt.Sprint(m[i])] = fmt.Sprint(m[i+1])
		}
	}
	return out
}
