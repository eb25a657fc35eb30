package commands

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/lazyfree"
)

// effectsOf runs one command with the server logging writes and says what
// the handler recorded: "changed nothing", "as sent" (the dispatcher logs
// the command itself), or the commands it propagated.
func (k *strKV) effectsOf(t *testing.T, cmd string) string {
	t.Helper()
	k.x.Logged = true
	k.do(t, strings.Fields(cmd)...)
	effects, rewritten, noChange := k.x.TakeEffects()
	switch {
	case noChange:
		return "changed nothing"
	case !rewritten:
		return "as sent"
	}
	var out []string
	for _, e := range effects {
		out = append(out, fmt.Sprintf("%s", e))
	}
	return strings.Join(out, " ")
}

// TestWriteEffects: what writes that changed nothing, or chose what they
// did by the data or at random, record for the log and replicas (what
// Redis propagates), and that the others log themselves.
func TestWriteEffects(t *testing.T) {
	k := newStrKV(2)
	for _, c := range []struct{ cmd, want string }{
		{"SET s v", "as sent"},
		{"SET s w NX", "changed nothing"},
		{"SET s w XX GET", "as sent"},
		{"SET missing w XX", "changed nothing"},
		{"SETNX s v", "changed nothing"},
		{"MSETNX s v t w", "changed nothing"},
		{"GETDEL missing", "changed nothing"},
		{"GETEX missing EX 10", "changed nothing"},
		{"GETEX s", "as sent"},
		{"DEL missing other", "changed nothing"},
		{"UNLINK missing", "changed nothing"},
		{"EXPIRE missing 10", "changed nothing"},
		{"EXPIRE s 10 XX", "changed nothing"},
		{"PEXPIRE s 100000 GT", "changed nothing"},
		{"PEXPIREAT s 1", "as sent"},
		{"PERSIST missing", "changed nothing"},
		{"SET s v", "as sent"},
		{"RENAMENX s s", "changed nothing"},
		{"COPY missing t", "changed nothing"},
		{"RPUSH l a b c", "as sent"},
		{"LPUSHX nolist a", "changed nothing"},
		{"LINSERT l BEFORE zz x", "changed nothing"},
		{"LINSERT nolist BEFORE a x", "changed nothing"},
		{"LREM l 0 zz", "changed nothing"},
		{"LPOP nolist", "changed nothing"},
		{"RPOP nolist 2", "changed nothing"},
		{"LPOP l 0", "as sent"},
		{"LPOP l", "as sent"},
		{"LMOVE nolist l LEFT LEFT", "changed nothing"},
		{"RPOPLPUSH nolist l", "changed nothing"},
		{"RPUSH m x y", "as sent"},
		{"LMPOP 2 nolist m RIGHT COUNT 5", "[rpop m 2]"},
		{"LMPOP 1 nolist LEFT", "changed nothing"},
		{"RPUSH l2 a", "as sent"},
		{"BLPOP nolist l2 0", "[lpop l2]"},
		{"BLPOP nolist 0", "as sent"}, // inside MULTI: answers null, logged as sent
		{"BLMOVE nolist l LEFT RIGHT 0", "as sent"},
		{"SADD set a b", "as sent"},
		{"SADD set a", "changed nothing"},
		{"SREM set zz", "changed nothing"},
		{"SMOVE set other zz", "changed nothing"},
		{"SMOVE set set a", "as sent"},
		{"SMOVE set set zz", "changed nothing"},
		{"HSET h f v", "as sent"},
		{"HSETNX h f v", "changed nothing"},
		{"HDEL h zz", "changed nothing"},
		{"HDEL nohash f", "changed nothing"},
		{"HGETDEL h FIELDS 2 y z", "changed nothing"},
		{"HGETDEL h FIELDS 2 f z", "as sent"},
		{"ZADD z 1 a 2 b 3 c", "as sent"},
		{"ZREM z zz", "changed nothing"},
		{"ZREMRANGEBYSCORE z 10 20", "changed nothing"},
		{"ZREMRANGEBYRANK nozset 0 1", "changed nothing"},
		{"ZREMRANGEBYLEX z [x [y", "changed nothing"},
		{"ZPOPMIN nozset", "changed nothing"},
		{"ZPOPMIN z 0", "changed nothing"},
		{"ZPOPMAX z", "as sent"},
		{"ZMPOP 2 nozset z MIN COUNT 5", "[zpopmin z 2]"},
		{"ZMPOP 1 nozset MAX", "changed nothing"},
		{"ZADD z 1 a 2 b", "as sent"},
		{"BZPOPMAX nozset z 0", "[zpopmax z]"},
		{"BZMPOP 0 1 z MIN", "[zpopmin z 1]"},
		{"BZPOPMIN nozset 0", "as sent"},
		{"SPOP noset", "changed nothing"},
		{"SPOP set 0", "changed nothing"},
		{"SPOP noset 3", "changed nothing"},
	} {
		got := k.effectsOf(t, c.cmd)
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.cmd, got, c.want)
		}
		// What it did agrees with what it declares: propagating is
		// for Recorded commands only.
		name, _, _ := strings.Cut(c.cmd, " ")
		if recorded := strings.HasPrefix(got, "["); recorded && cmdtable.Lookup([]byte(name)).Effects != cmdtable.Recorded {
			t.Errorf("%s propagates %s but declares Effects %d", name, got, cmdtable.Lookup([]byte(name)).Effects)
		}
	}
}

// TestSpopEffects: SPOP chose its members at random; it logs the SREMs of
// what it popped, up to 1024 members each, or the deletion of the whole set,
// as UNLINK under lazyfree-lazy-server-del.
func TestSpopEffects(t *testing.T) {
	k := newStrKV(3)
	k.x.KS.Lazy = lazyfree.New()
	k.do(t, "SADD", "s", "only")
	if got := k.effectsOf(t, "SPOP s"); got != "[srem s only]" {
		t.Errorf("SPOP s: %s", got)
	}
	add := []string{"SADD", "big"}
	for i := range 2500 {
		add = append(add, strconv.Itoa(i))
	}
	k.do(t, add...)
	k.x.Logged = true
	k.do(t, "SPOP", "big", "2100")
	effects, rewritten, noChange := k.x.TakeEffects()
	if !rewritten || noChange || len(effects) != 3 {
		t.Fatalf("SPOP big 2100: rewritten %v, noChange %v, %d commands", rewritten, noChange, len(effects))
	}
	seen := map[string]bool{}
	for i, e := range effects {
		if n := []int{1024, 1024, 52}[i]; string(e[0]) != "srem" || string(e[1]) != "big" || len(e) != 2+n {
			t.Fatalf("SREM %d: %s %s with %d members, want srem big with %d", i, e[0], e[1], len(e)-2, n)
		}
		for _, m := range e[2:] {
			seen[string(m)] = true
		}
	}
	if left := k.do(t, "SCARD", "big"); len(seen) != 2100 || left != ":400\r\n" {
		t.Errorf("%d distinct members logged, SCARD %q", len(seen), left)
	}
	for _, m := range []string{"0", "1", "2", "3"} { // a popped member is gone
		if seen[m] && k.do(t, "SISMEMBER", "big", m) != ":0\r\n" {
			t.Errorf("logged %s, still a member", m)
		}
	}
	if got := k.effectsOf(t, "SPOP big 400"); got != "[DEL big]" {
		t.Errorf("SPOP of all: %s", got)
	}
	k.x.KS.Lazy.ServerDel.Store(true)
	k.do(t, "SADD", "s", "a", "b")
	if got := k.effectsOf(t, "SPOP s 5"); got != "[UNLINK s]" {
		t.Errorf("SPOP of all, lazy: %s", got)
	}
	// Not logged, it builds nothing, but says it changed the set.
	k.do(t, "SADD", "s", "a", "b")
	k.x.Logged = false
	k.do(t, "SPOP", "s", "1")
	if effects, rewritten, noChange := k.x.TakeEffects(); len(effects) != 0 || !rewritten || noChange {
		t.Errorf("not logged: %d effects, rewritten %v, noChange %v", len(effects), rewritten, noChange)
	}
}
