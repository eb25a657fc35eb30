package memory

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Differential tests of the monitoring replies (MEMORY STATS, MEMORY
// DOCTOR, LATENCY HISTOGRAM, the latency-tracking parameters) against
// Redis 8.0.2: field names, order and types, not values, which are each
// server's own.

// replyShape replaces a reply's numbers by their type, keeping strings, maps'
// keys and the structure.
func replyShape(v any) any {
	switch x := v.(type) {
	case int64:
		return "int"
	case float64:
		return "double"
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = replyShape(e)
		}
		return out
	case harness.Map:
		out := make(harness.Map, len(x))
		for i, e := range x {
			out[i] = replyShape(e)
		}
		return out
	}
	return v
}

// statsShape is the shape of MEMORY's replies. RESP2 sends doubles as bulk
// strings: a map's values that parse as numbers become "double". MEMORY
// DOCTOR's report depends on each server's figures: any of Redis's texts.
func statsShape(v any) any {
	s := replyShape(v)
	if a, ok := s.([]any); ok {
		for i := 1; i < len(a); i += 2 {
			if str, ok := a[i].(string); ok {
				var f float64
				if _, err := fmt.Sscan(str, &f); err == nil {
					a[i] = "double"
				}
			}
		}
	}
	if str, ok := s.(string); ok && (strings.HasPrefix(str, "Hi Sam, ") || strings.HasPrefix(str, "Sam, I detected")) && strings.HasSuffix(str, "\n") {
		return "doctor's report"
	}
	return s
}

func TestDifferentialMemoryStatsShape(t *testing.T) {
	harness.DifferWith(t, [][]string{
		{"SET", "a", "1"},
		{"SET", "b", "2", "EX", "100"},
		{"SELECT", "3"},
		{"SET", "c", "3"},
		{"SELECT", "0"},
		{"MEMORY", "STATS"},
		{"MEMORY", "DOCTOR"},
		{"MEMORY", "HELP"},
		{"MEMORY", "STATS", "x"},
		{"MEMORY", "DOCTOR", "x"},
		{"MEMORY", "NOSUCH"},
	}, func(got, want any) bool { return reflect.DeepEqual(statsShape(got), statsShape(want)) })
}

// LATENCY HISTOGRAM's shape and calls, and the other LATENCY replies.
func TestDifferentialLatencyHistogram(t *testing.T) {
	script := [][]string{{"CONFIG", "RESETSTAT"}}
	for range 5 {
		script = append(script, []string{"SET", "k", "v"}, []string{"GET", "k"})
	}
	script = append(script,
		[]string{"GET", "nokey"},
		[]string{"MULTI"}, []string{"INCR", "n"}, []string{"EXEC"},
		[]string{"CONFIG", "GET", "maxmemory"},
		[]string{"LATENCY", "HISTOGRAM", "get", "set", "incr", "nosuch", "exec"},
		[]string{"LATENCY", "HISTOGRAM", "config|get", "CONFIG|GET", "get|x", "config|x|y"},
		[]string{"LATENCY", "HISTOGRAM", "nosuch"},
		[]string{"LATENCY", "HISTOGRAM", "hgetall"},
		[]string{"LATENCY", "HISTOGRAM", "latency|histogram"},
		[]string{"CONFIG", "SET", "latency-tracking", "no"},
		[]string{"GET", "k"},
		[]string{"CONFIG", "SET", "latency-tracking", "yes"},
		[]string{"LATENCY", "HISTOGRAM", "get", "config|set"},
		[]string{"CONFIG", "RESETSTAT"},
		[]string{"LATENCY", "HISTOGRAM"},
	)
	// Bucket labels are timings; everything else must match: names, order,
	// calls, types.
	labels := func(v any) any {
		var walk func(any, bool) any
		walk = func(v any, inHist bool) any {
			switch x := v.(type) {
			case []any:
				if inHist {
					return len(x) > 0
				}
				out := make([]any, len(x))
				for i, e := range x {
					out[i] = walk(e, i > 0 && x[i-1] == "histogram_usec")
				}
				return out
			case harness.Map:
				if inHist {
					return len(x) > 0
				}
				out := make(harness.Map, len(x))
				for i, e := range x {
					out[i] = walk(e, i > 0 && x[i-1] == "histogram_usec")
				}
				return out
			}
			return v
		}
		return walk(v, false)
	}
	harness.DifferWith(t, script, func(got, want any) bool { return reflect.DeepEqual(labels(got), labels(want)) })
}

// LATENCY HELP is Redis's.
func TestDifferentialLatencyHelp(t *testing.T) {
	harness.Differ(t, [][]string{{"LATENCY", "HELP"}})
}

// The latency-tracking parameters: defaults, values, errors.
func TestDifferentialLatencyTrackingConfig(t *testing.T) {
	script := [][]string{
		{"CONFIG", "GET", "latency-tracking"},
		{"CONFIG", "GET", "latency-tracking-info-percentiles"},
		{"CONFIG", "GET", "LATENCY-TRACKING"},
	}
	for _, v := range []string{"50 99 99.9 100", "", "abc", "101", "50.0 1e1", "-1", "0 100", "99.99999",
		"50,99", "0x10", "inf", "nan", "1.5e-3 33.3333333", "1e400", "1e-400", "50 abc", "50 200", "25"} {
		script = append(script,
			[]string{"CONFIG", "SET", "latency-tracking-info-percentiles", v},
			[]string{"CONFIG", "GET", "latency-tracking-info-percentiles"})
	}
	for _, v := range []string{"no", "maybe", "YES", "1", "No"} {
		script = append(script,
			[]string{"CONFIG", "SET", "latency-tracking", v},
			[]string{"CONFIG", "GET", "latency-tracking"})
	}
	script = append(script, []string{"CONFIG", "SET", "latency-tracking", "yes", "latency-tracking-info-percentiles", "50 99 99.9"},
		[]string{"CONFIG", "GET", "latency-tracking"}, []string{"CONFIG", "GET", "latency-tracking-info-percentiles"})
	harness.Differ(t, script)
}

// COMMAND INFO of MEMORY's and LATENCY's subcommands: arity, flags, key
// positions and ACL categories as Redis's (LATENCY GRAPH aside).
func TestDifferentialMonitoringCommandInfo(t *testing.T) {
	redis := harness.StartRedis(t)
	hot := harness.Start(t)
	subs := func(r *harness.Conn) map[string][]any {
		m := map[string][]any{}
		for _, e := range r.Do("COMMAND", "INFO", "memory", "latency").([]any) {
			for _, s := range e.([]any)[9].([]any) {
				a := s.([]any)
				m[a[0].(string)] = a
			}
		}
		return m
	}
	want, got := subs(redis.Raw(t)), subs(hot.Raw(t))
	for _, name := range []string{"memory|stats", "memory|doctor", "memory|usage", "memory|purge", "memory|malloc-stats", "memory|help",
		"latency|histogram", "latency|latest", "latency|history", "latency|reset", "latency|doctor", "latency|help"} {
		g, w := got[name], want[name]
		if g == nil || w == nil {
			t.Errorf("%s: hotkv %v, redis %v", name, g != nil, w != nil)
			continue
		}
		for i, field := range []string{"name", "arity", "flags", "first", "last", "step", "acl"} {
			a, b := g[i], w[i]
			if i == 2 || i == 6 {
				a, b = sortedWords(a), sortedWords(b)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s %s: hotkv %v, redis %v", name, field, g[i], w[i])
			}
		}
	}
	for name := range got {
		if want[name] == nil {
			t.Errorf("%s: not in Redis", name)
		}
	}
}

func sortedWords(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, fmt.Sprint(x))
	}
	slices.Sort(out)
	return out
}

// MEMORY STATS and DOCTOR count keys shard by shard: inside a transaction
// or a script, which hold shards already, they run with every shard held.
func TestMemoryStatsInTransactionAndScript(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	r.Expect(harness.Status("OK"), "SET", "k", "v")
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect(harness.Status("QUEUED"), "SET", "k", "w")
	r.Expect(harness.Status("QUEUED"), "MEMORY", "STATS")
	r.Expect(harness.Status("QUEUED"), "MEMORY", "DOCTOR")
	r.Expect(harness.Status("QUEUED"), "GET", "k")
	res := r.Do("EXEC").([]any)
	if len(res) != 4 || res[3] != "w" {
		t.Fatalf("EXEC: %#v", res)
	}
	stats := res[1].([]any)
	if stats[0] != "peak.allocated" || !slices.Contains(stats, "db.0") || !slices.Contains(stats, "keys.count") {
		t.Fatalf("MEMORY STATS in EXEC: %#v", stats)
	}
	if i := slices.Index(stats, "keys.count"); stats[i+1] != int64(1) {
		t.Fatalf("keys.count %v", stats[i+1])
	}
	got := r.Do("EVAL", "redis.call('set', KEYS[1], 'x'); return redis.call('memory', 'stats')", "1", "k").([]any)
	if got[0] != "peak.allocated" {
		t.Fatalf("MEMORY STATS from a script: %#v", got)
	}
	if doc, ok := r.Do("EVAL", "return redis.call('memory', 'doctor')", "0").(string); !ok || !strings.Contains(doc, "Sam") {
		t.Fatalf("MEMORY DOCTOR from a script: %#v", doc)
	}
}
