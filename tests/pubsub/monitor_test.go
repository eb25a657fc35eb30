package pubsub

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// monitorLine is a MONITOR line: time, database, client address (or "lua"
// for a script's commands), arguments.
var monitorLine = regexp.MustCompile(`^\d{10}\.\d{6} \[(\d+) (?:127\.0\.0\.1:\d+|(lua))\] (.*)$`)

// monitorScript runs on a second connection while the first monitors; each
// entry is a command and how many lines it shows in the stream.
var monitorScript = []struct {
	cmd  []string
	seen int
}{
	{[]string{"SET", "k", "a b\n\"q\"\\\x00\xff"}, 1},
	{[]string{"GET", "k"}, 1},
	{[]string{"CONFIG", "GET", "maxclients"}, 0}, // administrative
	{[]string{"NOSUCHCOMMAND", "x"}, 0},          // refused before running
	{[]string{"GET"}, 0},                         // wrong arity
	{[]string{"AUTH", "secret"}, 1},              // an error, its password redacted
	{[]string{"HELLO", "2", "AUTH", "default", "secret"}, 1},
	{[]string{"MIGRATE", "127.0.0.1", "1", "", "0", "10", "AUTH", "pw", "COPY", "AUTH2", "u", "p2", "KEYS", "auth", "nokey"}, 1}, // NOKEY
	{[]string{"SELECT", "3"}, 1},
	{[]string{"INCR", "n"}, 1},
	{[]string{"MULTI"}, 1},
	{[]string{"SADD", "s", "m"}, 0}, // queued: shown when EXEC runs it
	{[]string{"EXEC"}, 1},
	{[]string{"SELECT", "0"}, 1},
	{[]string{"LPUSH", "l", "1"}, 1},
	// A script shows before the commands it calls, which show as "lua".
	{[]string{"EVAL", "redis.call('set', KEYS[1], ARGV[1]) return redis.call('get', KEYS[1])", "1", "sk", "v"}, 3},
	{[]string{"EVALSHA", "0000000000000000000000000000000000000000", "0"}, 1}, // NOSCRIPT, shown first
	{[]string{"FUNCTION", "LOAD", "REPLACE", "#!lua name=mon\nredis.register_function('monf', function(keys) return redis.call('incr', keys[1]) end)"}, 1},
	{[]string{"FCALL", "monf", "1", "fk"}, 2},
	{[]string{"FCALL_RO", "monf", "1", "fk"}, 1}, // refused for its write flag, after showing
}

// monitorStream runs monitorScript against srv and returns the lines a
// monitor saw, without their time and client port.
func monitorStream(t *testing.T, srv *harness.Server) []string {
	t.Helper()
	mon, cli := srv.Raw(t), srv.Raw(t)
	mon.Expect(harness.Status("OK"), "MONITOR")
	var want int
	for _, c := range monitorScript {
		cli.Do(c.cmd...)
		want += c.seen
	}
	want++ // SADD, run by EXEC
	cli.Do("PING")
	var lines []string
	for {
		got, ok := mon.Read().(harness.Status)
		if !ok {
			t.Fatalf("monitor line %d: %#v, want a status", len(lines), got)
		}
		m := monitorLine.FindStringSubmatch(string(got))
		if m == nil {
			t.Fatalf("monitor line %q does not look like Redis's", got)
		}
		src := ""
		if m[2] != "" {
			src = " " + m[2]
		}
		lines = append(lines, "["+m[1]+src+"] "+m[3])
		if m[3] == `"PING"` {
			break
		}
	}
	if len(lines) != want+1 {
		t.Errorf("%d lines, want %d:\n%s", len(lines), want+1, strings.Join(lines, "\n"))
	}
	return lines
}

func TestMonitorStreamMatchesRedis(t *testing.T) {
	got := monitorStream(t, harness.Start(t))
	want := monitorStream(t, harness.StartRedis(t))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("HotKV's monitor saw:\n%s\nRedis's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestMonitorLines(t *testing.T) {
	lines := monitorStream(t, harness.Start(t))
	for _, want := range []string{
		`[0] "SET" "k" "a b\n\"q\"\\\x00\xff"`,
		`[0] "AUTH" "(redacted)"`,
		`[0] "HELLO" "2" "AUTH" "(redacted)" "(redacted)"`,
		`[0] "MIGRATE" "127.0.0.1" "1" "" "0" "10" "AUTH" "(redacted)" "COPY" "AUTH2" "(redacted)" "(redacted)" "KEYS" "auth" "nokey"`,
		`[3] "INCR" "n"`,
		`[3] "SADD" "s" "m"`,
		`[0 lua] "set" "sk" "v"`,
		`[0 lua] "incr" "fk"`,
	} {
		found := false
		for _, l := range lines {
			found = found || l == want
		}
		if !found {
			t.Errorf("no line %s in:\n%s", want, strings.Join(lines, "\n"))
		}
	}
}

func TestMonitorModes(t *testing.T) {
	s := harness.Start(t)
	mon, cli := s.Raw(t), s.Raw(t)
	mon.Send(harness.Encode("PING") + harness.Encode("MONITOR"))
	mon.ExpectRead(harness.Status("PONG")) // a reply before MONITOR comes before its OK
	mon.ExpectRead(harness.Status("OK"))
	mon.Send(harness.Encode("MONITOR")) // again: no reply, as Redis
	mon.Expect(harness.Status("PONG"), "PING")
	if got := string(mon.Read().(harness.Status)); !strings.HasSuffix(got, `"PING"`) { // its own, after the reply
		t.Fatalf("monitor line %q", got)
	}
	mon.Expect(harness.Err("ERR Replica can't interact with the keyspace"), "GET", "a")
	if got := s.Raw(t).Do("CLIENT", "LIST"); !strings.Contains(got.(string), "flags=O ") {
		t.Errorf("CLIENT LIST shows no monitor (flags=O):\n%s", got)
	}
	cli.Do("SET", "a", "1")
	if got := string(mon.Read().(harness.Status)); !strings.HasSuffix(got, `"SET" "a" "1"`) {
		t.Fatalf("monitor line %q", got)
	}
	mon.Expect(harness.Status("RESET"), "RESET")
	cli.Do("SET", "b", "2")
	mon.Expect(harness.Status("PONG"), "PING") // no line for SET b once reset
	mon.Expect("2", "GET", "b")                // and the keyspace is back

	tx := s.Raw(t)
	tx.Expect(harness.Status("OK"), "MULTI")
	tx.Expect(harness.Status("QUEUED"), "MONITOR")
	got := tx.Do("EXEC").([]any)
	if e, ok := got[0].(harness.Err); !ok || string(e) != "ERR MONITOR isn't allowed for DENY BLOCKING client" {
		t.Fatalf("MONITOR in EXEC: %#v", got)
	}
	s.NoPanics(t)
}

// TestRedisCLIMonitor runs `redis-cli monitor`, the way users watch a server.
func TestRedisCLIMonitor(t *testing.T) {
	cli := harness.RedisCLI(t)
	s := harness.Start(t)
	_, port, _ := net.SplitHostPort(s.Addr)
	cmd := exec.Command(cli, "-h", "127.0.0.1", "-p", port, "monitor")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "OK" {
		t.Fatalf("first line %q, want OK", lines.Text())
	}
	s.Raw(t).Expect(harness.Status("OK"), "SET", "watched key", "v")
	if !lines.Scan() || !monitorLine.MatchString(lines.Text()) || !strings.HasSuffix(lines.Text(), `"SET" "watched key" "v"`) {
		t.Fatalf("redis-cli printed %q (%v)", lines.Text(), lines.Err())
	}
}

// Monitors come and go while several connections pipeline writes: the one
// that stays sees every command once, the race detector watches the feed.
func TestMonitorUnderLoad(t *testing.T) {
	s := harness.Start(t)
	mon := s.Raw(t)
	mon.Expect(harness.Status("OK"), "MONITOR")
	const conns, n = 4, 200
	var wg sync.WaitGroup
	for c := range conns {
		r := s.Raw(t)
		wg.Go(func() {
			var req []byte
			for i := range n {
				req = append(req, harness.Encode("SET", fmt.Sprint("k", c, ":", i), "v")...)
			}
			r.NetConn.SetWriteDeadline(time.Now().Add(10 * time.Second))
			r.NetConn.SetReadDeadline(time.Now().Add(10 * time.Second))
			go r.NetConn.Write(req)
			for range n {
				if _, err := harness.ReadReply(r.Reader); err != nil {
					t.Error(err)
					return
				}
			}
		})
		// A second monitor that leaves at once, mid-stream.
		quitter := s.Raw(t)
		quitter.Expect(harness.Status("OK"), "MONITOR")
		quitter.NetConn.Close()
	}
	wg.Wait()
	seen := map[string]int{}
	for range conns * n {
		line := string(mon.Read().(harness.Status))
		if i := strings.Index(line, `"SET" "`); i >= 0 {
			seen[line[i:]]++
		}
	}
	if len(seen) != conns*n {
		t.Fatalf("the monitor saw %d distinct SETs, want %d", len(seen), conns*n)
	}
	s.NoPanics(t)
}
