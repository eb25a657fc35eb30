package server

import (
	"bufio"
	"fmt"
	"os/exec"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/server"
	"github.com/hotkv/hotkv/tests/internal/harness"
)

// CLUSTER, READONLY, READWRITE, ASKING, MODULE and LOLWUT, against Redis
// 8.0.2 (non-cluster, with its built-in vectorset module).

// TestDifferentialClusterCommands: without cluster mode every CLUSTER
// subcommand (HELP too), READONLY, READWRITE and ASKING answer "cluster
// support disabled", after the arity and unknown-subcommand checks.
func TestDifferentialClusterCommands(t *testing.T) {
	subs := []string{"ADDSLOTS 1", "ADDSLOTSRANGE 1 2", "BUMPEPOCH", "COUNT-FAILURE-REPORTS id", "COUNTKEYSINSLOT 1",
		"DELSLOTS 1 2", "DELSLOTSRANGE 1 2", "FAILOVER", "FAILOVER FORCE", "FAILOVER a b", "FLUSHSLOTS", "FORGET id",
		"GETKEYSINSLOT 1 10", "HELP", "INFO", "KEYSLOT foo", "LINKS", "MEET 127.0.0.1 7000", "MEET h p 1 2", "MYID",
		"MYSHARDID", "NODES", "REPLICAS id", "REPLICATE id", "RESET", "RESET HARD", "RESET x y", "SAVECONFIG",
		"SET-CONFIG-EPOCH 1", "SETSLOT 1 STABLE", "SETSLOT 1 NODE id", "SHARDS", "SLAVES id", "SLOTS"}
	var script [][]string
	for _, s := range subs {
		w := strings.Fields(s)
		script = append(script,
			append([]string{"CLUSTER"}, w...),
			append([]string{"cluster", strings.ToLower(w[0])}, append(w[1:], "extra", "args")...), // too many for fixed arities
			[]string{"CLUSTER", w[0]}) // too few for some
	}
	script = append(script, [][]string{
		{"CLUSTER"}, {"CLUSTER", "NOSUCH"}, {"CLUSTER", "nosuch", "a", "b"}, {"CLUSTER", "SLOT-STATS", "ORDERBY", "key-count"},
		{"READONLY"}, {"READONLY", "x"}, {"READWRITE"}, {"READWRITE", "x"}, {"ASKING"}, {"ASKING", "x"},
		{"SET", "k", "v"}, {"GET", "k"}, // the connection works as before
		{"MULTI"}, {"CLUSTER", "INFO"}, {"READONLY"}, {"ASKING"}, {"SET", "k", "w"}, {"EXEC"}, {"GET", "k"},
		{"MULTI"}, {"CLUSTER"}, {"SET", "k", "x"}, {"EXEC"}, {"GET", "k"},
		{"COMMAND", "GETKEYS", "CLUSTER", "KEYSLOT", "a"}, {"COMMAND", "GETKEYS", "READONLY"},
		{"COMMAND", "LIST", "FILTERBY", "PATTERN", "cluster|s*"}, {"COMMAND", "LIST", "FILTERBY", "PATTERN", "read*"},
		{"COMMAND", "COUNT"},
	}...)
	harness.DifferWith(t, script, func(got, want any) bool {
		if g, ok := got.([]any); ok { // COMMAND LIST: the same names, in any order
			if w, ok := want.([]any); ok && len(g) == len(w) {
				return reflect.DeepEqual(harness.SortedStrings(g), harness.SortedStrings(w))
			}
		}
		if g, ok := got.(int64); ok && g > 200 { // COMMAND COUNT: HotKV has its own families, Redis some HotKV lacks
			return true
		}
		return reflect.DeepEqual(got, want)
	})
}

// TestDifferentialModuleCommands: MODULE LIST reports the vectorset module
// as Redis 8 does; HELP, arity and unknown subcommands match.
func TestDifferentialModuleCommands(t *testing.T) {
	harness.Differ(t, [][]string{
		{"MODULE", "LIST"}, {"module", "list"}, {"MODULE", "LIST", "x"}, {"MODULE", "HELP"}, {"MODULE", "HELP", "x"},
		{"MODULE"}, {"MODULE", "NOSUCH"}, {"MODULE", "LOAD"}, {"MODULE", "LOADEX"}, {"MODULE", "UNLOAD"},
		{"MODULE", "UNLOAD", "a", "b"}, {"COMMAND", "GETKEYS", "MODULE", "LIST"},
		{"MULTI"}, {"MODULE", "LIST"}, {"EXEC"},
	})
}

// TestDifferentialModuleLoadUnload compares with a Redis that allows MODULE
// LOAD and UNLOAD (enable-module-command yes): HotKV unloads nothing with
// Redis's words; loading fails with the start of Redis's failed-load error
// and says why instead of pointing at the server log.
func TestDifferentialModuleLoadUnload(t *testing.T) {
	redis := harness.StartRedis(t, "--enable-module-command", "yes")
	hot := harness.Start(t, "--enable-module-command", "yes")
	for _, proto := range []string{"2", "3"} {
		h, r := hot.Raw(t), redis.Raw(t)
		h.Do("HELLO", proto)
		r.Do("HELLO", proto)
		for _, cmd := range [][]string{{"MODULE", "UNLOAD", "vectorset"}, {"MODULE", "UNLOAD", "VectorSet"},
			{"MODULE", "UNLOAD", "nosuch"}, {"MODULE", "UNLOAD", ""}} {
			if got, want := h.Do(cmd...), r.Do(cmd...); got != want {
				t.Fatalf("%q: hotkv %#v, redis %#v", cmd, got, want)
			}
		}
		for _, cmd := range [][]string{{"MODULE", "LOAD", "/nonexistent.so"}, {"MODULE", "LOAD", "/x.so", "a", "b"},
			{"MODULE", "LOADEX", "/x.so"}, {"MODULE", "LOADEX", "/x.so", "CONFIG", "a", "b", "ARGS", "c"},
			{"MODULE", "LOADEX", "/x.so", "CONFIG", "a"}} {
			want := r.Do(cmd...)
			if want != harness.Err("ERR Error loading the extension. Please check the server logs.") {
				t.Fatalf("%q: redis %#v", cmd, want)
			}
			h.Expect(harness.Err("ERR Error loading the extension. HotKV cannot load modules."), cmd...)
		}
		// nothing was loaded or unloaded
		if got, want := h.Do("MODULE", "LIST"), r.Do("MODULE", "LIST"); !reflect.DeepEqual(got, want) {
			t.Fatalf("MODULE LIST: hotkv %#v, redis %#v", got, want)
		}
	}
}

// TestDifferentialModuleCommandList: COMMAND LIST FILTERBY MODULE names the
// vector set commands for "vectorset" (any case), as Redis does (which
// spells them in capitals, as the module registers them), and none for
// another module.
func TestDifferentialModuleCommandList(t *testing.T) {
	redis := harness.StartRedis(t)
	hot := harness.Start(t)
	h, r := hot.Raw(t), redis.Raw(t)
	for _, name := range []string{"vectorset", "VECTORSET", "search", ""} {
		cmd := []string{"COMMAND", "LIST", "FILTERBY", "MODULE", name}
		var got, want []string
		for _, n := range h.Do(cmd...).([]any) {
			got = append(got, n.(string))
		}
		for _, n := range r.Do(cmd...).([]any) {
			want = append(want, strings.ToLower(n.(string)))
		}
		sort.Strings(got)
		sort.Strings(want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: hotkv %v, redis %v", cmd, got, want)
		}
		if name == "vectorset" && len(got) != 12 {
			t.Fatalf("%q: %v", cmd, got)
		}
	}
}

// TestDifferentialNewCommandsInfo: COMMAND INFO (all ten fields,
// subcommands in any order) and COMMAND DOCS's summary, since and group of
// the commands added here equal Redis's.
func TestDifferentialNewCommandsInfo(t *testing.T) {
	redis := harness.StartRedis(t)
	hot := harness.Start(t)
	names := []string{"cluster", "readonly", "readwrite", "asking", "module", "lolwut", "command", "migrate"}
	for _, proto := range []string{"2", "3"} {
		h, r := hot.Raw(t), redis.Raw(t)
		h.Do("HELLO", proto)
		r.Do("HELLO", proto)
		info := append([]string{"COMMAND", "INFO"}, names...)
		got, want := h.Do(info...).([]any), r.Do(info...).([]any)
		for i, name := range names {
			g, w := normalizeInfo(got[i]), normalizeInfo(want[i])
			if !reflect.DeepEqual(g, w) {
				t.Errorf("RESP%s COMMAND INFO %s:\nhotkv %#v\nredis %#v", proto, name, g, w)
			}
		}
		docs := append([]string{"COMMAND", "DOCS"}, names...)
		gd, wd := docFields(h.Do(docs...)), docFields(r.Do(docs...))
		for name, w := range wd {
			if g := gd[name]; !reflect.DeepEqual(g, w) {
				t.Errorf("RESP%s COMMAND DOCS %s: hotkv %v, redis %v", proto, name, g, w)
			}
		}
		if len(gd) != len(wd) {
			t.Errorf("RESP%s COMMAND DOCS: hotkv %d entries, redis %d", proto, len(gd), len(wd))
		}
	}
}

// normalizeInfo sorts a COMMAND INFO entry's subcommands (Redis lists them
// in its hash table's order) and turns RESP3 sets and maps into arrays.
func normalizeInfo(v any) any {
	switch x := v.(type) {
	case harness.Set:
		return normalizeInfo([]any(x))
	case harness.Map:
		return normalizeInfo([]any(x))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeInfo(e)
		}
		if len(out) == 10 {
			if subs, ok := out[9].([]any); ok && len(subs) > 0 {
				sort.Slice(subs, func(i, j int) bool {
					return fmt.Sprint(subs[i].([]any)[0]) < fmt.Sprint(subs[j].([]any)[0])
				})
			}
		}
		return out
	}
	return v
}

// docFields flattens COMMAND DOCS into "name" -> "summary|since|group",
// subcommands included.
func docFields(v any) map[string]string {
	out := map[string]string{}
	var walk func(kv []any)
	walk = func(kv []any) {
		for i := 0; i+1 < len(kv); i += 2 {
			name := kv[i].(string)
			d := asFields(kv[i+1])
			out[name] = fmt.Sprint(d["summary"], "|", d["since"], "|", d["group"])
			if subs, ok := d["subcommands"]; ok {
				walk(asList(subs))
			}
		}
	}
	walk(asList(v))
	return out
}

func asList(v any) []any {
	switch x := v.(type) {
	case harness.Map:
		return x
	case []any:
		return x
	}
	return nil
}

func asFields(v any) map[string]any {
	kv := asList(v)
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// rawReply sends a command and returns its reply's bytes: the header line
// and, for a bulk or verbatim string, its body.
func rawReply(t *testing.T, r *harness.Conn, args ...string) (header, body string) {
	t.Helper()
	r.Send(harness.Encode(args...))
	r.NetConn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := r.Reader.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if line[0] != '$' && line[0] != '=' {
		return line, ""
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, n+2)
	if _, err := harness.ReadFull(r.Reader, buf); err != nil {
		t.Fatal(err)
	}
	return line, string(buf[:n])
}

// TestDifferentialLolwut: LOLWUT's reply has Redis's shape (a bulk string in
// RESP2, a "txt" verbatim string in RESP3, art then a last line ending with
// the server's name and version); the art is HotKV's own. VERSION must be
// an integer; other arguments are ignored.
func TestDifferentialLolwut(t *testing.T) {
	redis := harness.StartRedis(t)
	hot := harness.Start(t)
	for _, proto := range []string{"2", "3"} {
		h, r := hot.Raw(t), redis.Raw(t)
		h.Do("HELLO", proto)
		r.Do("HELLO", proto)
		for _, cmd := range [][]string{{"LOLWUT"}, {"lolwut", "VERSION", "8"}, {"LOLWUT", "VERSION", "1"}, {"LOLWUT", "VERSION", "-1"},
			{"LOLWUT", "VERSION"}, {"LOLWUT", "foo", "bar"}, {"LOLWUT", "VERSION", "7", "extra"}} {
			for _, s := range []struct {
				r    *harness.Conn
				name string
			}{{h, "HotKV ver. " + server.Version}, {r, "Redis ver. 8.0.2"}} {
				header, body := rawReply(t, s.r, cmd...)
				wantType := "$"
				if proto == "3" {
					wantType = "="
					if !strings.HasPrefix(body, "txt:") {
						t.Fatalf("RESP3 %q: %q is not a txt verbatim string", cmd, body)
					}
				}
				if header[:1] != wantType {
					t.Fatalf("RESP%s %q: reply %q, want type %s", proto, cmd, header, wantType)
				}
				lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
				if last := lines[len(lines)-1]; !strings.HasSuffix(last, s.name) || !strings.HasSuffix(body, "\n") {
					t.Fatalf("RESP%s %q: reply ends %q, want %q and a newline", proto, cmd, last, s.name)
				}
			}
		}
	}
	harness.Differ(t, [][]string{{"LOLWUT", "VERSION", "x"}, {"LOLWUT", "version", "1.5"}, {"LOLWUT", "VERSION", ""}})
	// HotKV's art: rows of 10 PRINT's maze.
	_, body := rawReply(t, hot.Raw(t), "LOLWUT")
	if lines := strings.Split(body, "\n"); len(lines) < 10 || len([]rune(lines[0])) < 40 ||
		strings.Trim(lines[0], "╱╲") != "" {
		t.Fatalf("LOLWUT art: %q", body)
	}
}

// TestLolwutWithRedisCLI: redis-cli prints LOLWUT's art as text.
func TestLolwutWithRedisCLI(t *testing.T) {
	cli := harness.RedisCLI(t)
	s := harness.Start(t)
	host, port, _ := strings.Cut(s.Addr, ":")
	b, err := exec.Command(cli, "-h", host, "-p", port, "LOLWUT").CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("redis-cli: %v\n%s", err, out)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	last := ""
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			last = sc.Text()
		}
	}
	if !strings.HasSuffix(last, "HotKV ver. "+server.Version) || !strings.Contains(out, "╱") {
		t.Fatalf("redis-cli LOLWUT:\n%s", out)
	}
}
