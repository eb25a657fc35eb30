package admin

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// SLOWLOG keeps Redis's entry format: id, unix time, microseconds, the
// arguments (at most 32, each at most 128 bytes, credentials redacted), the
// client's address and name; newest first, at most slowlog-max-len.
// Runs against HotKV and, with $HOTKV_COMPARE_ADDR, a real Redis.
func TestSlowlog(t *testing.T) {
	for name, addr := range harness.Targets(t) {
		t.Run(name, func(t *testing.T) {
			s := &harness.Server{Addr: addr}
			r := s.Raw(t)
			r.Expect(harness.Status("OK"), "CONFIG", "SET", "slowlog-log-slower-than", "0", "slowlog-max-len", "128")
			r.Expect(harness.Status("OK"), "CLIENT", "SETNAME", "slow-test")
			r.Expect(harness.Status("OK"), "SLOWLOG", "RESET")
			long := strings.Repeat("a", 200)
			var many []string
			for i := range 40 {
				many = append(many, strconv.Itoa(i))
			}
			r.Do("SET", long, "v")
			r.Do(append([]string{"RPUSH", "slowlist"}, many...)...)
			r.Do("AUTH", "nosuchpass")
			r.Do("HELLO", "2", "AUTH", "default", "secret", "SETNAME", "slow-test")
			r.Do("MIGRATE", "127.0.0.1", "1", "", "0", "10", "AUTH", "pw", "AUTH2", "u", "p2", "KEYS", "nokey")
			r.Do("MIGRATE", "127.0.0.1", "1", "k", "0", "10", "FOO", "AUTH", "pw") // refused before its AUTH
			r.Do("CONFIG", "SET", "requirepass", "")
			entries, ok := r.Do("SLOWLOG", "GET", "-1").([]any)
			if !ok || len(entries) < 8 {
				t.Fatalf("SLOWLOG GET -1: %#v", entries)
			}
			wantArgs := [][]string{
				{"CONFIG", "SET", "requirepass", "(redacted)"},
				{"MIGRATE", "127.0.0.1", "1", "k", "0", "10", "FOO", "AUTH", "pw"},
				{"MIGRATE", "127.0.0.1", "1", "", "0", "10", "AUTH", "(redacted)", "AUTH2", "(redacted)", "(redacted)", "KEYS", "nokey"},
				{"HELLO", "2", "AUTH", "(redacted)", "(redacted)", "SETNAME", "slow-test"},
				{"AUTH", "(redacted)"},
				append(append([]string{"RPUSH", "slowlist"}, many[:29]...), "... (11 more arguments)"),
				{"SET", long[:128] + "... (72 more bytes)", "v"},
				{"SLOWLOG", "RESET"},
			}
			var lastID int64 = -1
			for i, want := range wantArgs {
				e := entries[i].([]any)
				if len(e) != 6 {
					t.Fatalf("entry %d: %#v", i, e)
				}
				id, at, us := e[0].(int64), e[1].(int64), e[2].(int64)
				if lastID >= 0 && id != lastID-1 || at < 1700000000 || us < 0 {
					t.Errorf("entry %d: id %d (after %d), time %d, %d us", i, id, lastID, at, us)
				}
				lastID = id
				var got []string
				for _, a := range e[3].([]any) {
					got = append(got, a.(string))
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("entry %d arguments:\n got %q\nwant %q", i, got, want)
				}
				if !strings.HasPrefix(e[4].(string), "127.0.0.1:") || e[5] != "slow-test" {
					t.Errorf("entry %d client: %q %q", i, e[4], e[5])
				}
			}
			if got := r.Do("SLOWLOG", "GET", "2").([]any); len(got) != 2 {
				t.Errorf("SLOWLOG GET 2: %d entries", len(got))
			}
			if got := r.Do("SLOWLOG", "GET").([]any); len(got) != min(10, len(entries)+2) { // the two GETs since are logged too
				t.Errorf("SLOWLOG GET: %d entries", len(got))
			}
			r.Expect(harness.Err("ERR count should be greater than or equal to -1"), "SLOWLOG", "GET", "-2")
			r.Expect(harness.Err("ERR count should be greater than or equal to -1"), "SLOWLOG", "GET", "x")
			// The length is capped; a negative threshold logs nothing.
			r.Expect(harness.Status("OK"), "CONFIG", "SET", "slowlog-max-len", "3")
			if n := r.Do("SLOWLOG", "LEN"); n != int64(3) {
				t.Errorf("LEN after slowlog-max-len 3: %v", n)
			}
			r.Expect(harness.Status("OK"), "CONFIG", "SET", "slowlog-log-slower-than", "-1")
			r.Expect(harness.Status("OK"), "SLOWLOG", "RESET")
			r.Do("SET", "k", "v")
			if n := r.Do("SLOWLOG", "LEN"); n != int64(0) {
				t.Errorf("LEN with the slowlog off: %v", n)
			}
			r.Expect(harness.Err("ERR CONFIG SET failed (possibly related to argument 'slowlog-log-slower-than') - argument must be between -1 and 9223372036854775807 inclusive"),
				"CONFIG", "SET", "slowlog-log-slower-than", "-2")
			r.Expect(harness.Status("OK"), "CONFIG", "SET", "slowlog-log-slower-than", "10000", "slowlog-max-len", "128")
		})
	}
}

// Only commands slower than the threshold are logged.
func TestSlowlogThreshold(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "slowlog-log-slower-than", "1000000")
	r.Expect(harness.Status("OK"), "SLOWLOG", "RESET")
	for range 100 {
		r.Do("SET", "k", "v")
	}
	if n := r.Do("SLOWLOG", "LEN"); n != int64(0) {
		t.Errorf("LEN with a 1 s threshold: %v", n)
	}
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "slowlog-log-slower-than", "20000")
	r.Do("DEBUG", "SLEEP", "0.05")
	e, ok := r.Do("SLOWLOG", "GET").([]any)
	if !ok || len(e) != 1 {
		t.Fatalf("after a 50 ms command with a 20 ms threshold: %#v", e)
	}
	if us := e[0].([]any)[2].(int64); us < 50000 || us > 5000000 {
		t.Errorf("DEBUG SLEEP 0.05 logged as %d us", us)
	}
}

// The latency monitor records commands at least latency-monitor-threshold
// ms long as event "command", one sample per second (the worst), with the
// all-time worst; LATENCY RESET clears it. Runs against HotKV and, with
// $HOTKV_COMPARE_ADDR, a real Redis.
func TestLatencyMonitor(t *testing.T) {
	const busy = "local i = 0 while i < 1000000 do i = i + 1 end return i"
	for name, addr := range harness.Targets(t) {
		t.Run(name, func(t *testing.T) {
			r := (&harness.Server{Addr: addr}).Raw(t)
			r.Do("LATENCY", "RESET")
			r.Expect([]any{}, "LATENCY", "LATEST")
			r.Expect(harness.Status("OK"), "CONFIG", "SET", "latency-monitor-threshold", "2")
			defer r.Do("CONFIG", "SET", "latency-monitor-threshold", "0")
			r.Expect(int64(1000000), "EVAL", busy, "0")
			r.Expect(int64(1000000), "EVAL", busy, "0")
			latest, ok := r.Do("LATENCY", "LATEST").([]any)
			if !ok || len(latest) != 1 {
				t.Fatalf("LATENCY LATEST: %#v", latest)
			}
			e := latest[0].([]any)
			if e[0] != "command" || e[1].(int64) < 1700000000 || e[2].(int64) < 2 || e[3].(int64) < e[2].(int64) {
				t.Errorf("LATENCY LATEST entry: %#v", e)
			}
			h, _ := r.Do("LATENCY", "HISTORY", "command").([]any)
			if len(h) < 1 || len(h) > 2 || h[len(h)-1].([]any)[1].(int64) < 2 {
				t.Errorf("LATENCY HISTORY command: %#v", h)
			}
			r.Expect([]any{}, "LATENCY", "HISTORY", "nosuch")
			g, _ := r.Do("LATENCY", "GRAPH", "command").(string)
			if lines := strings.Split(g, "\n"); !strings.HasPrefix(g, "command - high ") || len(lines) < 9 || lines[1] != strings.Repeat("-", 80) || !strings.HasSuffix(g, "s\n") {
				t.Errorf("LATENCY GRAPH command: %q", g)
			}
			r.Expect(harness.Err("ERR No samples available for event 'nosuch'"), "LATENCY", "GRAPH", "nosuch")
			if doc, _ := r.Do("LATENCY", "DOCTOR").(string); !strings.Contains(doc, "1. command: ") {
				t.Errorf("LATENCY DOCTOR: %q", doc)
			}
			r.Expect(int64(1), "LATENCY", "RESET", "command", "nosuch")
			r.Expect([]any{}, "LATENCY", "LATEST")
			if doc, _ := r.Do("LATENCY", "DOCTOR").(string); !strings.HasPrefix(doc, "Dave, no latency spike was observed") {
				t.Errorf("LATENCY DOCTOR with no samples: %q", doc)
			}
		})
	}
}

// An active expiry cycle at least latency-monitor-threshold long is a
// sample of the "expire-cycle" event, as in Redis.
func TestLatencyExpireCycle(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "latency-monitor-threshold", "1")
	// 200,000 keys in 8 scripts: one script of them all outran the reply
	// timeout on a loaded machine.
	for from := 1; from <= 200000; from += 25000 {
		r.Expect(int64(25000), "EVAL", "local a = tonumber(ARGV[1]) for i = a, a + 24999 do redis.call('set', 'k' .. i, 'v', 'px', 300) end return 25000", "0", strconv.Itoa(from))
	}
	harness.EventuallyWithin(t, 30*time.Second, "the keys expiring", func() bool { return r.Do("DBSIZE").(int64) == 0 })
	h, _ := r.Do("LATENCY", "HISTORY", "expire-cycle").([]any)
	if len(h) == 0 || h[0].([]any)[1].(int64) < 1 {
		t.Fatalf("LATENCY HISTORY expire-cycle: %#v", h)
	}
}

// TestSlowlogBlockedCommand: as in Redis, a blocking command is logged when
// it ends (served, timed out), once, with its own arguments, not while it
// waits.
func TestSlowlogBlockedCommand(t *testing.T) {
	s := harness.Start(t, "--slowlog-log-slower-than", "0")
	ctl, waiter := s.Raw(t), s.Raw(t)
	blpops := func() (n int) {
		for _, e := range ctl.Do("SLOWLOG", "GET", "-1").([]any) {
			if args := e.([]any)[3].([]any); strings.EqualFold(args[0].(string), "blpop") {
				if !reflect.DeepEqual(args, []any{"BLPOP", "l", "0"}) && !reflect.DeepEqual(args, []any{"BLPOP", "none", "0.01"}) {
					t.Fatalf("logged as %q", args)
				}
				n++
			}
		}
		return n
	}
	ctl.Expect(harness.Status("OK"), "SLOWLOG", "RESET")
	waiter.Send(harness.Encode("BLPOP", "l", "0"))
	harness.Eventually(t, "the BLPOP to block", func() bool { return s.InfoInt(t, "clients", "blocked_clients") == 1 })
	if n := blpops(); n != 0 {
		t.Fatalf("%d BLPOP entries while it waits", n)
	}
	ctl.Expect(harness.Status("OK"), "MULTI")
	ctl.Expect(harness.Status("QUEUED"), "LPUSH", "l", "v")
	ctl.Expect(harness.Status("QUEUED"), "SLOWLOG", "RESET")
	ctl.Expect([]any{int64(1), harness.Status("OK")}, "EXEC")
	waiter.ExpectRead([]any{"l", "v"})
	if n := blpops(); n != 1 {
		t.Fatalf("%d BLPOP entries once served after the reset, want 1", n)
	}
	waiter.Expect(nil, "BLPOP", "none", "0.01")
	if n := blpops(); n != 2 {
		t.Fatalf("%d BLPOP entries after one timed out, want 2", n)
	}
}
