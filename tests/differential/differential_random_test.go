package differential

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// TestDifferentialRandom sends one seeded random command stream to HotKV and
// to a real Redis 8.0.2 and requires the same replies, in RESP2 and RESP3.
// The stream covers strings, keys and expiry, lists, hashes (with field
// expiry), sets, sorted sets, bitmaps, streams (with consumer groups;
// differential_random_streams_test.go), HyperLogLogs (whose bytes the
// readback's GET compares, and which the string commands damage) and
// geospatial indexes (differential_random_hll_test.go,
// differential_random_geo_test.go) over a small keyspace, with values
// chosen to hit the edges (integer limits and overflow, floats, inf and nan,
// empty and non-numeric strings, bad options and counts), and every family
// is also used on keys of the other types. Every so often, and at the end,
// the whole keyspace is read back type by type and compared.
//
// Over the commands of the strings, keys, lists, hashes, sets, sorted sets
// and bitmaps families (differential_random_multi_test.go): transactions
// (WATCH of keys the stream then changes or not, MULTI, commands refused
// when queued or failing in EXEC, EXEC or DISCARD; EXEC, DISCARD, WATCH and
// UNWATCH out of place), Lua scripts and functions that run one of the
// commands through redis.call or redis.pcall, scripts returning each Lua
// type and using cjson, cmsgpack, bit and sha1hex, SCRIPT and FUNCTION
// commands, and blocking commands that answer at once. A transaction with
// what leads up to it is one step of several commands, each reply compared
// in turn, an EXEC's element by element as the replies of the commands it
// ran; a script running a command is compared as that command's reply. Such
// commands are never ones whose comparison needs a look at the keyspace (lex
// ranges, SORT, OBJECT ENCODING, *SCAN), a script's map reply never one of
// several entries (Lua's table order), numbers never ones C leaves undefined
// (a NaN or a number beyond int64 returned as an integer, LuaBitOp beyond
// ±2^51), and a timeout that could block only where nothing blocks (after a
// push to the first key, in MULTI, in a script).
//
// Replies are compared as sent (type, bytes and order), except:
//   - where Redis's order is unspecified (SMEMBERS, SINTER/SUNION/SDIFF,
//     HGETALL/HKEYS/HVALS, KEYS, whole-set SPOP/SRANDMEMBER/HRANDFIELD/
//     ZRANDMEMBER, the *SCAN element lists) elements are compared sorted;
//   - truly random replies (RANDOMKEY, SRANDMEMBER/HRANDFIELD/ZRANDMEMBER
//     without a count or with a negative one) are compared by shape only;
//   - remaining times (TTL, PTTL, EXPIRETIME, PEXPIRETIME and the hash-field
//     variants) may differ by the time between the two servers' runs of the
//     same command;
//   - DBSIZE may count keys whose time has passed (SET ... PXAT in the past)
//     that one server's expiry has deleted and the other's not yet: on a
//     difference every key is accessed on both and DBSIZE asked again;
//   - in stream replies, clock readings (idle, inactive, seen-time,
//     active-time, delivery times of pending entries) and the IDs XADD's
//     "*" takes from the clock are masked, and with such IDs XINFO STREAM's
//     radix tree counts (streamNormalize);
//   - a *SCAN of a collection too large for one call is carried on to its
//     end on each server and what the whole scans return is compared;
//   - SORT where the order it starts from is unspecified (sortUnspecified);
//   - a SORT Redis refuses for a stale errno is sent to it again
//     (sortErrno);
//   - OBJECT ENCODING where HotKV's representation deliberately differs
//     (encodingExcused): strings, whose encoding HotKV works out from the
//     bytes where Redis remembers how the value was built, and small lists
//     that Redis keeps as a quicklist of several nodes;
//   - distances, which may differ from Redis's in their last digits
//     (docs/commands/geo.md), and in the fourth decimal of GEODIST's and
//     WITHDIST's for nearly antipodal points: compared to a relative 1e-7
//     (closeDistances); those STOREDIST stores go to diffDistKey only.
//
// Lex ranges over a skiplist whose scores differ are undefined in Redis and
// are not sent (lexUnspecified), nor is a SORT ... STORE whose stored order
// would be unspecified, nor a PFADD or PFMERGE that would have Redis write
// past the end of a damaged HLL's string (hllUnspecified).
//
// Environment: HOTKV_DIFF_N commands per seed (default 1500), HOTKV_DIFF_SEEDS
// seeds (default 3) starting at HOTKV_DIFF_SEED (default 1). With
// HOTKV_DIFF_KEEPGOING set, a mismatch is reported and both servers are
// flushed to carry on, so that one long run lists many differences.
// HOTKV_DIFF_TRACE=path writes every command and both replies to
// path.seedN.respP.
func TestDifferentialRandom(t *testing.T) {
	n := envInt("HOTKV_DIFF_N", 1500)
	seeds := envInt("HOTKV_DIFF_SEEDS", 3)
	first := envInt("HOTKV_DIFF_SEED", 1)
	keepGoing := os.Getenv("HOTKV_DIFF_KEEPGOING") != ""
	redis := harness.StartRedis(t)
	hot := harness.Start(t)
	for seed := first; seed < first+seeds; seed++ {
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("seed%d/RESP%d", seed, proto), func(t *testing.T) {
				d := &diffRun{t: t, seed: uint64(seed), proto: proto, keepGoing: keepGoing,
					hot: dialDiff(t, hot.Addr, proto), redis: dialDiff(t, redis.Addr, proto)}
				if path := os.Getenv("HOTKV_DIFF_TRACE"); path != "" {
					f, err := os.Create(fmt.Sprintf("%s.seed%d.resp%d", path, seed, proto))
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					w := bufio.NewWriter(f)
					defer w.Flush()
					d.trace = w
				}
				d.run(n)
			})
		}
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// pairText shows two replies for a failure message: whole when short,
// otherwise around their first difference.
func pairText(got, want harness.RV) (string, string) {
	g, w := got.String(), want.String()
	if len(g) <= 3000 && len(w) <= 3000 {
		return g, w
	}
	at := 0
	for at < len(g) && at < len(w) && g[at] == w[at] {
		at++
	}
	cut := func(s string) string {
		from, to := max(0, at-300), min(len(s), at+700)
		return fmt.Sprintf("(%d bytes, first difference at %d) ...%s...", len(s), at, s[from:to])
	}
	return cut(g), cut(w)
}

// diffConn is a connection to one of the two servers.
type diffConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialDiff(t *testing.T, addr string, proto int) *diffConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	d := &diffConn{c: c, r: bufio.NewReader(c)}
	if proto == 3 {
		if v, err := d.do("HELLO", "3"); err != nil || v.T != '%' {
			t.Fatalf("HELLO 3: %v %v", v, err)
		}
	}
	return d
}

func (d *diffConn) do(args ...string) (harness.RV, error) {
	d.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := d.c.Write([]byte(harness.Encode(args...))); err != nil {
		return harness.RV{}, err
	}
	return harness.ReadRV(d.r)
}

// diffRun is one seed's stream in one protocol.
type diffRun struct {
	t          *testing.T
	seed       uint64
	proto      int
	keepGoing  bool
	hot, redis *diffConn
	hist       []string
	failures   int
	trace      io.Writer
}

func (d *diffRun) run(n int) {
	d.flush()
	g := newDiffGen(d.seed, n)
	for i := 0; i < n; i++ {
		cmd := g.next()
		if !d.check(i, cmd) && !d.keepGoing {
			return
		}
		if i%200 == 199 || i == n-1 {
			if !d.compareState(i) && !d.keepGoing {
				return
			}
		}
		if d.failures >= 50 {
			d.t.Fatalf("seed %d: too many differences", d.seed)
		}
	}
}

func (d *diffRun) flush() {
	for _, c := range []*diffConn{d.hot, d.redis} {
		// The scripts and functions too, which the stream loads.
		for _, cmd := range [][]string{{"FLUSHALL"}, {"SCRIPT", "FLUSH"}, {"FUNCTION", "FLUSH"}} {
			if v, err := c.do(cmd...); err != nil || v.S != "OK" {
				d.t.Fatalf("%s: %v %v", quoteCmd(cmd), v, err)
			}
		}
		if v, err := c.do(streamNodeConfig(d.seed)...); err != nil || v.S != "OK" {
			d.t.Fatalf("CONFIG SET: %v %v", v, err)
		}
	}
}

// exchange runs cmd on both servers and returns the replies.
func (d *diffRun) exchange(i int, cmd []string) (got, want harness.RV) {
	got, err := d.hot.do(cmd...)
	if err != nil {
		d.t.Fatalf("seed %d RESP%d command #%d %s: hotkv: %v\nlast commands:\n%s", d.seed, d.proto, i, quoteCmd(cmd), err, d.history())
	}
	want, err = d.redis.do(cmd...)
	if err != nil {
		d.t.Fatalf("seed %d RESP%d command #%d %s: redis: %v\nlast commands:\n%s", d.seed, d.proto, i, quoteCmd(cmd), err, d.history())
	}
	return got, want
}

// check runs one command of the stream on both servers and compares.
func (d *diffRun) check(i int, cmd []string) bool {
	if block := splitBlock(cmd); block != nil {
		return d.checkBlock(i, block)
	}
	if d.lexUnspecified(i, cmd) {
		d.remember(fmt.Sprintf("#%d %s (skipped: lex range over different scores)", i, quoteCmd(cmd)))
		return true
	}
	if d.hllUnspecified(cmd) {
		d.remember(fmt.Sprintf("#%d %s (skipped: writes past the end of Redis's string)", i, quoteCmd(cmd)))
		return true
	}
	sortMode := d.sortUnspecified(i, cmd)
	if sortMode == "skip" {
		d.remember(fmt.Sprintf("#%d %s (skipped: stores an unspecified order)", i, quoteCmd(cmd)))
		return true
	}
	got, want := d.exchange(i, cmd)
	want = d.sortErrno(cmd, got, want)
	if sortMode != "" && got.T != '-' && want.T != '-' && got.A != nil && want.A != nil {
		if sortMode == "rows" {
			got, want = sortRows(cmd, got), sortRows(cmd, want)
		} else {
			got, want = harness.RV{T: '+', S: shape(got)}, harness.RV{T: '+', S: shape(want)}
		}
	}
	if isScan(cmd) && len(want.A) == 2 && want.A[0].S != "0" && len(got.A) == 2 {
		// A collection too large to come back in one call: which members a
		// call returns depends on the hash table, so compare what whole
		// scans return.
		got, want = d.finishScan(i, d.hot, cmd, got), d.finishScan(i, d.redis, cmd, want)
	}
	ok := sameReply(cmd, got, want) || d.encodingExcused(i, cmd, got, want)
	if !ok && strings.EqualFold(cmd[0], "dbsize") {
		// Keys set with a time already past (SET ... PXAT) count until
		// either server's expiry cycle or an access deletes them, at its
		// own moment: access every key on both, then ask again.
		for _, k := range diffAllKeys {
			d.exchange(i, []string{"TYPE", k})
		}
		got, want = d.exchange(i, cmd)
		ok = sameReply(cmd, got, want)
	}
	d.remember(fmt.Sprintf("#%d %s -> %s", i, quoteCmd(cmd), want))
	if d.trace != nil {
		fmt.Fprintf(d.trace, "#%d %s\n  hotkv: %s\n  redis: %s\n", i, quoteCmd(cmd), got, want)
	}
	if !ok {
		d.mismatch(i, cmd, got, want)
	}
	return ok
}

func isScan(cmd []string) bool {
	switch strings.ToUpper(cmd[0]) {
	case "HSCAN", "SSCAN", "ZSCAN":
		return true
	}
	return false
}

// finishScan goes on with the scan first started, up to cursor 0, and
// returns every element (or member and value) seen, once each, as the reply
// of a single call.
func (d *diffRun) finishScan(i int, c *diffConn, cmd []string, first harness.RV) harness.RV {
	step := 1
	if isPairScan(cmd) {
		step = 2
	}
	seen := map[string][]harness.RV{}
	reply := first
	for n := 0; ; n++ {
		if len(reply.A) != 2 || n > 100000 {
			return reply // an error, or a scan that does not end
		}
		elems := reply.A[1].A
		for j := 0; j+step <= len(elems); j += step {
			unit := elems[j : j+step]
			key := ""
			for _, e := range unit {
				key += e.String() + "\x00"
			}
			seen[key] = unit
		}
		if reply.A[0].S == "0" {
			break
		}
		next := slices.Clone(cmd)
		next[2] = reply.A[0].S
		var err error
		if reply, err = c.do(next...); err != nil {
			d.t.Fatalf("seed %d RESP%d command #%d %s: %v", d.seed, d.proto, i, quoteCmd(next), err)
		}
	}
	keys := slices.Sorted(maps.Keys(seen))
	all := harness.RV{T: '*', A: []harness.RV{}}
	for _, k := range keys {
		all.A = append(all.A, seen[k]...)
	}
	return harness.RV{T: '*', A: []harness.RV{{T: '$', S: "0"}, all}}
}

// isPairScan reports whether a *SCAN reply alternates members and values.
func isPairScan(cmd []string) bool {
	switch strings.ToUpper(cmd[0]) {
	case "ZSCAN":
		return true
	case "HSCAN":
		return !slices.ContainsFunc(cmd, func(a string) bool { return strings.EqualFold(a, "NOVALUES") })
	}
	return false
}

func (d *diffRun) remember(s string) {
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	d.hist = append(d.hist, s)
	if len(d.hist) > 20 {
		d.hist = d.hist[1:]
	}
}

func (d *diffRun) history() string { return "  " + strings.Join(d.hist, "\n  ") }

func (d *diffRun) mismatch(i int, cmd []string, got, want harness.RV) {
	d.report(fmt.Sprintf("command #%d: %s", i, quoteCmd(cmd)), i, cmd, got, want)
}

// report fails the run on a difference, or with keepGoing logs it and
// starts afresh from an empty keyspace. The message has all it takes to
// reproduce: the seed, the command's index, the last commands, and the
// keys the command names as both servers now hold them.
func (d *diffRun) report(what string, i int, cmd []string, got, want harness.RV) {
	d.failures++
	var keys strings.Builder
	seen := map[string]bool{}
	for _, a := range cmd {
		if !slices.Contains(diffAllKeys, a) || seen[a] {
			continue
		}
		seen[a] = true
		for _, c := range d.readKey(i, a) {
			h, _ := d.hot.do(c...)
			r, _ := d.redis.do(c...)
			ht, rt := pairText(h, r)
			fmt.Fprintf(&keys, "  %s\n    hotkv: %s\n    redis: %s\n", quoteCmd(c), ht, rt)
		}
	}
	gt, wt := pairText(got, want)
	msg := fmt.Sprintf("seed %d RESP%d %s\nhotkv: %s\nredis: %s\nlast commands (with Redis's replies):\n%s\nkeys now:\n%sreproduce: HOTKV_DIFF_SEED=%d HOTKV_DIFF_SEEDS=1 HOTKV_DIFF_N=%d go test ./tests/differential -run 'TestDifferentialRandom/seed%d/RESP%d$'",
		d.seed, d.proto, what, gt, wt, d.history(), keys.String(), d.seed, i+1, d.seed, d.proto)
	if !d.keepGoing {
		d.t.Fatal(msg)
	}
	d.t.Error(msg)
	d.flush()
}

// readKey lists the commands that read key k back whole, as Redis holds it.
func (d *diffRun) readKey(i int, k string) [][]string {
	typ, _ := d.exchange(i, []string{"TYPE", k})
	cmds := [][]string{{"TYPE", k}, {"PTTL", k}}
	switch typ.S {
	case "string":
		cmds = append(cmds, []string{"GET", k})
	case "list":
		cmds = append(cmds, []string{"LRANGE", k, "0", "-1"})
	case "hash":
		cmds = append(cmds, []string{"HGETALL", k},
			append([]string{"HPTTL", k, "FIELDS", strconv.Itoa(len(diffFields))}, diffFields...))
	case "set":
		cmds = append(cmds, []string{"SMEMBERS", k})
	case "zset":
		cmds = append(cmds, []string{"ZRANGE", k, "0", "-1", "WITHSCORES"})
	case "stream":
		cmds = append(cmds, streamReadback(k)...)
	}
	if typ.S != "none" {
		cmds = append(cmds, []string{"OBJECT", "ENCODING", k})
	}
	return cmds
}

// compareState reads every key of both servers back and compares.
func (d *diffRun) compareState(i int) bool {
	cmds := [][]string{{"DBSIZE"}, {"KEYS", "*"}}
	for _, k := range concat(diffAllKeys, []string{diffDistKey}) {
		cmds = append(cmds, d.readKey(i, k)...)
	}
	for _, cmd := range cmds {
		got, want := d.exchange(i, cmd)
		if !sameReply(cmd, got, want) && !d.encodingExcused(i, cmd, got, want) {
			d.report(fmt.Sprintf("state after command #%d: %s", i, quoteCmd(cmd)), i, cmd, got, want)
			return false
		}
	}
	return true
}

// lexUnspecified reports whether cmd is a lex-range command on a skiplist-
// encoded sorted set whose members do not all have the same score. Redis
// leaves that undefined (its answer depends on the skiplist's random
// levels; docs/commands/zsets.md), so such commands are not sent at all:
// ZREMRANGEBYLEX and ZRANGESTORE would make the servers' states diverge.
func (d *diffRun) lexUnspecified(i int, cmd []string) bool {
	key := ""
	switch name := strings.ToUpper(cmd[0]); name {
	case "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZLEXCOUNT", "ZREMRANGEBYLEX":
		key = cmd[1]
	case "ZRANGE", "ZRANGESTORE":
		for _, a := range cmd {
			if strings.EqualFold(a, "BYLEX") {
				key = cmd[1]
				if name == "ZRANGESTORE" {
					key = cmd[2]
				}
			}
		}
	}
	if key == "" {
		return false
	}
	if enc, err := d.redis.do("OBJECT", "ENCODING", key); err != nil || enc.S != "skiplist" {
		return false
	}
	all, err := d.redis.do("ZRANGE", key, "0", "-1", "WITHSCORES")
	if err != nil {
		d.t.Fatal(err)
	}
	var scores []string
	for j, e := range all.A {
		switch {
		case e.A != nil && len(e.A) == 2: // RESP3 [member, score]
			scores = append(scores, e.A[1].String())
		case e.A == nil && j%2 == 1:
			scores = append(scores, e.String())
		}
	}
	for _, sc := range scores {
		if sc != scores[0] {
			return true
		}
	}
	return false
}

// sortUnspecified tells how to compare a SORT whose order Redis leaves
// unspecified: the order a sorted set (always walked in its hash table's
// order) or a set in hash-table order enters the sort in, which ALPHA with
// a BY pattern keeps among equal weights and BY without '*' (no sorting)
// keeps for a set. Then "rows" compares the rows sorted, "count" (with a
// LIMIT, which picks from that order) compares how many, and "skip" (with
// STORE, whose list would differ) sends nothing; "" is an ordinary command.
func (d *diffRun) sortUnspecified(i int, cmd []string) string {
	if name := strings.ToUpper(cmd[0]); (name != "SORT" && name != "SORT_RO") || len(cmd) < 2 {
		return ""
	}
	alpha, limit, store, by := false, false, false, ""
	for j := 2; j < len(cmd); j++ {
		switch strings.ToUpper(cmd[j]) {
		case "ALPHA":
			alpha = true
		case "LIMIT":
			limit = true
			j += 2
		case "STORE":
			store = true
			j++
		case "BY":
			if j+1 < len(cmd) {
				by = cmd[j+1]
			}
			j++
		case "GET":
			j++
		}
	}
	typ, err := d.redis.do("TYPE", cmd[1])
	if err != nil {
		d.t.Fatal(err)
	}
	enc, err := d.redis.do("OBJECT", "ENCODING", cmd[1])
	if err != nil {
		d.t.Fatal(err)
	}
	byStar := strings.Contains(by, "*")
	unspecified := false
	switch typ.S {
	case "zset":
		unspecified = alpha && byStar
	case "set":
		if (alpha && byStar) || (by != "" && !byStar && !store) {
			// A hashtable's order, or a smaller set's inherited from one
			// (SINTERSTORE of a hashtable set stores its members in the
			// order it walked them).
			hot, _ := d.hot.do("SMEMBERS", cmd[1])
			red, _ := d.redis.do("SMEMBERS", cmd[1])
			unspecified = enc.S == "hashtable" || hot.String() != red.String()
		}
	}
	switch {
	case !unspecified:
		return ""
	case store:
		return "skip"
	case limit:
		return "count"
	}
	return "rows"
}

// sortErrno is Redis's reply to a SORT that it refused for a score that
// could not be converted while HotKV sorted, sent again once errno is clear.
// Redis's sortCommand tests errno == ERANGE after strtod without clearing it
// first, so an ERANGE left by an earlier strtod of a subnormal or huge
// number (a Lua cjson.decode's too) fails a SORT of sound numbers.
func (d *diffRun) sortErrno(cmd []string, got, want harness.RV) harness.RV {
	name := strings.ToUpper(cmd[0])
	if (name != "SORT" && name != "SORT_RO") || got.T == '-' || want.S != "ERR One or more scores can't be converted into double" {
		return want
	}
	// ZADD XX of a missing key reads its score with errno cleared and
	// changes nothing.
	if _, err := d.redis.do("ZADD", "diff:errno", "XX", "0", "x"); err != nil {
		d.t.Fatal(err)
	}
	again, err := d.redis.do(cmd...)
	if err != nil {
		d.t.Fatal(err)
	}
	return again
}

// sortRows sorts a SORT reply by row: an element, or the values its GET
// patterns read.
func sortRows(cmd []string, v harness.RV) harness.RV {
	per := 0
	for _, a := range cmd {
		if strings.EqualFold(a, "GET") {
			per++
		}
	}
	if per <= 1 {
		return sortElems(v)
	}
	var rows []harness.RV
	for j := 0; j+per <= len(v.A); j += per {
		rows = append(rows, harness.RV{T: '*', A: v.A[j : j+per]})
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].String() < rows[b].String() })
	out := harness.RV{T: v.T, A: []harness.RV{}}
	for _, r := range rows {
		out.A = append(out.A, r.A...)
	}
	return out
}

// encodingExcused excuses an OBJECT ENCODING reply that differs from Redis's
// because HotKV's representation deliberately does, as documented.
func (d *diffRun) encodingExcused(i int, cmd []string, got, want harness.RV) bool {
	if len(cmd) != 3 || !strings.EqualFold(cmd[0], "OBJECT") || !strings.EqualFold(cmd[1], "ENCODING") ||
		got.T != '$' || want.T != '$' {
		return false
	}
	if got.S == "listpack" && want.S == "quicklist" {
		return d.smallList(i, cmd[2])
	}
	return d.stringEncoding(i, cmd, got, want)
}

// smallList reports whether the list at key fits in half a listpack of
// Redis's default 8 KB (sizes estimated from above). Redis turns a
// quicklist back into a listpack only when it is down to one node; HotKV,
// which has no nodes, as soon as the elements fit in half the limit
// (docs/commands/lists.md).
func (d *diffRun) smallList(i int, key string) bool {
	v, _ := d.exchange(i, []string{"LRANGE", key, "0", "-1"})
	size := 7
	for _, e := range v.A {
		size += len(e.S) + 7
	}
	return v.T == '*' && size <= 4096
}

// stringEncoding excuses a string's OBJECT ENCODING when HotKV named the
// encoding the current bytes call for (docs/commands/keys.md: HotKV keeps no
// record of how a string was built) and Redis one it gives a string built
// otherwise: raw after APPEND, SETRANGE, SETBIT, BITOP or BITFIELD, embstr
// for INCRBYFLOAT's integral results.
func (d *diffRun) stringEncoding(i int, cmd []string, got, want harness.RV) bool {
	if want.S != "raw" && want.S != "embstr" {
		return false
	}
	v, _ := d.exchange(i, []string{"GET", cmd[2]})
	if v.T != '$' || v.Null {
		return false
	}
	fromBytes := "raw"
	if n, err := strconv.ParseInt(v.S, 10, 64); err == nil && strconv.FormatInt(n, 10) == v.S {
		fromBytes = "int"
	} else if len(v.S) <= 44 {
		fromBytes = "embstr"
	}
	return got.S == fromBytes
}

func quoteCmd(cmd []string) string {
	out := make([]string, len(cmd))
	for i, a := range cmd {
		if a == "" || strings.ContainsAny(a, " \"\\") || strconv.Quote(a) != `"`+a+`"` {
			a = strconv.Quote(a)
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// sameReply compares a command's replies from HotKV (got) and Redis (want),
// normalizing what Redis leaves unspecified.
func sameReply(cmd []string, got, want harness.RV) bool {
	name := strings.ToUpper(cmd[0])
	if got.T == '-' || want.T == '-' {
		return got.String() == want.String()
	}
	if isStreamCmd(name) {
		got, want = streamNormalize(cmd, got), streamNormalize(cmd, want)
	}
	switch name {
	case "SMEMBERS", "SINTER", "SUNION", "SDIFF", "KEYS", "HKEYS", "HVALS":
		// Hash-table order (Redis's own differs between processes).
		got, want = sortElems(got), sortElems(want)
	case "HGETALL":
		got, want = sortPairs(got), sortPairs(want)
	case "SPOP":
		// Only ever called with a count of at least the set's size (or a bad
		// one): the whole set, in an unspecified order.
		got, want = sortElems(got), sortElems(want)
	case "SRANDMEMBER", "HRANDFIELD", "ZRANDMEMBER":
		if len(cmd) < 3 || strings.HasPrefix(cmd[2], "-") {
			// A random member, or members with repetition.
			return shape(got) == shape(want)
		}
		// A positive count at least the size: the whole set or hash, in an
		// unspecified order.
		got, want = sortMembers(cmd, got), sortMembers(cmd, want)
	case "RANDOMKEY":
		return shape(got) == shape(want)
	case "ZRANGE":
		if cmd[1] == diffDistKey {
			return closeDistances(got, want, storedDistance)
		}
	case "GEODIST", "GEOSEARCH", "GEORADIUS", "GEORADIUS_RO", "GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO":
		return closeDistances(got, want, replyDistance)
	case "HSCAN", "SSCAN", "ZSCAN":
		if len(got.A) == 2 && len(want.A) == 2 {
			got.A = []harness.RV{got.A[0], sortMembers(cmd, got.A[1])}
			want.A = []harness.RV{want.A[0], sortMembers(cmd, want.A[1])}
		}
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO":
		if p := scriptPayload(cmd); p != nil {
			return sameReply(p, got, want)
		}
	case "TTL", "EXPIRETIME", "HTTL", "HEXPIRETIME":
		return closeTimes(got, want, 1)
	case "PTTL", "PEXPIRETIME", "HPTTL", "HPEXPIRETIME":
		return closeTimes(got, want, 1000)
	}
	return got.String() == want.String()
}

func shape(v harness.RV) string {
	if v.A != nil {
		return fmt.Sprintf("%c%d", v.T, len(v.A))
	}
	if v.Null {
		return "null"
	}
	return string(v.T)
}

// sortElems sorts an aggregate's elements.
func sortElems(v harness.RV) harness.RV {
	if v.A == nil {
		return v
	}
	a := append([]harness.RV(nil), v.A...)
	sort.Slice(a, func(i, j int) bool { return a[i].String() < a[j].String() })
	v.A = a
	return v
}

// sortPairs sorts a flat aggregate of alternating keys and values (a RESP2
// HGETALL, a RESP3 map) by pair.
func sortPairs(v harness.RV) harness.RV {
	if v.A == nil || len(v.A)%2 != 0 {
		return v
	}
	type pair struct{ k, v harness.RV }
	ps := make([]pair, len(v.A)/2)
	for i := range ps {
		ps[i] = pair{v.A[2*i], v.A[2*i+1]}
	}
	sort.Slice(ps, func(i, j int) bool {
		return ps[i].k.String()+"\x00"+ps[i].v.String() < ps[j].k.String()+"\x00"+ps[j].v.String()
	})
	a := make([]harness.RV, 0, len(v.A))
	for _, p := range ps {
		a = append(a, p.k, p.v)
	}
	v.A = a
	return v
}

// sortMembers sorts a reply of members, or of members with their values or
// scores: [member, value] pairs in RESP3, alternating in RESP2.
func sortMembers(cmd []string, v harness.RV) harness.RV {
	pairs := isScan(cmd) && isPairScan(cmd)
	for _, a := range cmd {
		switch strings.ToUpper(a) {
		case "WITHVALUES", "WITHSCORES":
			pairs = true
		}
	}
	if !pairs || (len(v.A) > 0 && v.A[0].A != nil) {
		return sortElems(v)
	}
	return sortPairs(v)
}

// closeTimes compares remaining times and expiry timestamps: the two
// servers run each command at slightly different moments.
func closeTimes(got, want harness.RV, tol int64) bool {
	if got.T != want.T || got.Null != want.Null || len(got.A) != len(want.A) {
		return false
	}
	if got.A != nil {
		for i := range got.A {
			if !closeTimes(got.A[i], want.A[i], tol) {
				return false
			}
		}
		return true
	}
	if got.T != ':' {
		return got.String() == want.String()
	}
	g, err1 := strconv.ParseInt(got.S, 10, 64)
	w, err2 := strconv.ParseInt(want.S, 10, 64)
	if err1 != nil || err2 != nil || g < 0 || w < 0 {
		return got.S == want.S
	}
	return g-w <= tol && w-g <= tol
}

// The keyspace: a few keys per family, so that most commands find a value
// of their type, and every family is also tried on the others' keys.
var (
	diffStrKeys  = []string{"s0", "s1", "s2"}
	diffListKeys = []string{"l0", "l1", "l2"}
	diffHashKeys = []string{"h0", "h1"}
	diffSetKeys  = []string{"t0", "t1", "t2"}
	diffZKeys    = []string{"z0", "z1", "z2"}
	diffAllKeys  = concat(diffStrKeys, diffListKeys, diffHashKeys, diffSetKeys, diffZKeys, diffXKeys, diffHLLKeys, diffGeoKeys)

	diffFields  = []string{"f1", "f2", "f3", "1", "", "long-field-" + strings.Repeat("x", 60)}
	diffMembers = []string{"a", "b", "c", "d", "1", "2", "-3", "10", "", "0"}

	diffInts = []string{"0", "1", "-1", "7", "-13", "100", "9223372036854775807", "-9223372036854775808",
		"9223372036854775806", "-9223372036854775807", "9223372036854775808", "-9223372036854775809",
		"18446744073709551616", "00", "+5", "-0", "010"}
	diffFloats = []string{"1.5", "-2.25", "0.1", "3e2", "1e308", "-1e308", "1.7976931348623157e308", "2e308",
		"5e-324", "inf", "-inf", "+inf", "nan", "Infinity", "-0", "0.0", "1.", ".5", " 1", "1 ", "0x10",
		"1e", "17.0", "1.23456789012345678901", "-nan", "1e-5"}
	diffTexts = []string{"", "a", "abc", "hello world", "foo", "\x00\xff", strings.Repeat("L", 70), "x1", "1x"}
	diffIdx   = []string{"0", "1", "2", "3", "-1", "-2", "-3", "5", "10", "-10", "100", "-100",
		"9223372036854775807", "-9223372036854775808", "x", "1.0", ""}
	diffCounts = []string{"0", "1", "2", "3", "5", "-1", "-2", "10", "100", "x", "9223372036854775807", "-9223372036854775808"}
	diffScores = []string{"0", "1", "-1", "2.5", "-2.5", "10", "3", "inf", "+inf", "-inf", "nan", "abc",
		"1e308", "-0", "0x10", "1.0000000000000002", "100"}
	diffScoreBounds = []string{"-inf", "+inf", "inf", "0", "(0", "1", "(1", "2.5", "(2.5", "-1", "(-1",
		"(abc", "abc", "10", "(10", "nan", "(-inf", "(+inf", "(", "3"}
	diffLexBounds = []string{"-", "+", "[a", "(a", "[b", "(b", "[c", "(d", "[", "(", "a", "[1", "(z", "[-3", "[10"}
)

func concat(xs ...[]string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, x...)
	}
	return out
}

// diffGen generates the command stream of one seed.
type diffGen struct {
	r  *rand.Rand
	i  int   // index of the command being generated
	n  int   // commands in the stream
	t0 int64 // unix seconds when the stream started
}

func newDiffGen(seed uint64, n int) *diffGen {
	return &diffGen{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), n: n, t0: time.Now().Unix()}
}

func (g *diffGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *diffGen) chance(pct int) bool      { return g.r.IntN(100) < pct }

// key picks a key of the family most of the time, any key otherwise.
func (g *diffGen) key(home []string) string {
	if g.chance(12) {
		return g.pick(diffAllKeys...)
	}
	return g.pick(home...)
}

// dest picks the key a command replaces whatever it holds: seldom another
// family's, or that family would mostly meet the wrong type.
func (g *diffGen) dest(home []string) string {
	if g.chance(3) {
		return g.pick(diffAllKeys...)
	}
	return g.pick(home...)
}

func (g *diffGen) keys(home []string, min, max int) []string {
	out := make([]string, min+g.r.IntN(max-min+1))
	for i := range out {
		out[i] = g.key(home)
	}
	return out
}

func (g *diffGen) member() string {
	if g.chance(3) {
		return "member-" + strings.Repeat("m", 70)
	}
	return g.pick(diffMembers...)
}

func (g *diffGen) members(min, max int) []string {
	out := make([]string, min+g.r.IntN(max-min+1))
	for i := range out {
		out[i] = g.member()
	}
	return out
}

func (g *diffGen) field() string { return g.pick(diffFields...) }

func (g *diffGen) value() string {
	switch g.r.IntN(10) {
	case 0, 1, 2:
		return g.pick(diffInts...)
	case 3:
		return g.randInt()
	case 4, 5:
		return g.pick(diffFloats...)
	case 6:
		return g.randFloat()
	case 7:
		return g.randText()
	}
	return g.pick(diffTexts...)
}

// randInt is a random integer: small, near the int64 limits, or anywhere.
func (g *diffGen) randInt() string {
	switch g.r.IntN(4) {
	case 0:
		return strconv.Itoa(g.r.IntN(2001) - 1000)
	case 1:
		return strconv.FormatInt(math.MaxInt64-g.r.Int64N(1000), 10)
	case 2:
		return strconv.FormatInt(math.MinInt64+g.r.Int64N(1000), 10)
	}
	return strconv.FormatInt(int64(g.r.Uint64()), 10)
}

// randFloat is a random decimal in one of the forms strtod and strtold
// read: fixed, exponent, with many digits, tiny or huge.
func (g *diffGen) randFloat() string {
	x := g.r.NormFloat64()
	switch g.r.IntN(4) {
	case 0:
		x *= math.Pow10(g.r.IntN(40) - 20)
	case 1:
		x *= math.Pow10(g.r.IntN(600) - 300)
	case 2:
		x = math.Round(x*1000) / 100
	}
	switch g.r.IntN(4) {
	case 0:
		return strconv.FormatFloat(x, 'f', g.r.IntN(20), 64)
	case 1:
		return strconv.FormatFloat(x, 'e', g.r.IntN(20), 64)
	case 2:
		return strconv.FormatFloat(x, 'E', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// randText is a random string over a small alphabet, so that LCS and the
// bit commands meet common runs.
func (g *diffGen) randText() string {
	b := make([]byte, g.r.IntN(30))
	for i := range b {
		b[i] = "abcab\x00\xff"[g.r.IntN(7)]
	}
	return string(b)
}

func (g *diffGen) number() string {
	if g.chance(25) {
		return g.randInt()
	}
	if g.chance(15) {
		return g.pick(diffFloats...)
	}
	if g.chance(10) {
		return g.pick(diffTexts...)
	}
	return g.pick(diffInts...)
}

func (g *diffGen) float() string {
	if g.chance(30) {
		return g.randFloat()
	}
	if g.chance(30) {
		return g.pick(diffInts...)
	}
	if g.chance(5) {
		return g.pick(diffTexts...)
	}
	return g.pick(diffFloats...)
}

func (g *diffGen) idx() string   { return g.pick(diffIdx...) }
func (g *diffGen) count() string { return g.pick(diffCounts...) }
func (g *diffGen) score() string {
	if g.chance(15) {
		return g.randFloat()
	}
	return g.pick(diffScores...)
}

// Expiry times. Relative times grow with the command index (by at least a
// second per command), so that GT/LT never compare two times set a few
// milliseconds apart, whose order could differ between the servers.
// Absolute times are far in the future or in the past.
var diffBadTimes = []string{"0", "-1", "-100", "x", "1.5", "", "9223372036854775807", "-9223372036854775808",
	"9223372036854775", "9223372036854776", "9223372036854775808"}

func (g *diffGen) rel() int64 { return int64(100000 + g.i*10 + g.r.IntN(10)) }

func (g *diffGen) secs() string {
	if g.chance(12) {
		return g.pick(diffBadTimes...)
	}
	return strconv.FormatInt(g.rel(), 10)
}

func (g *diffGen) millis() string {
	if g.chance(12) {
		return g.pick(diffBadTimes...)
	}
	return strconv.FormatInt(g.rel()*1000+int64(g.r.IntN(1000)), 10)
}

func (g *diffGen) absSecs() int64 {
	if g.chance(10) {
		return g.t0 - 1000
	}
	return g.t0 + 100000 + int64(g.r.IntN(g.n*10+10))
}

func (g *diffGen) unixSecs() string {
	if g.chance(10) {
		return g.pick(diffBadTimes...)
	}
	return strconv.FormatInt(g.absSecs(), 10)
}

func (g *diffGen) unixMillis() string {
	if g.chance(10) {
		return g.pick(diffBadTimes...)
	}
	return strconv.FormatInt(g.absSecs()*1000+int64(g.r.IntN(1000)), 10)
}

// shuffled joins a random selection of option groups in random order.
func (g *diffGen) options(max int, groups ...[]string) []string {
	var out []string
	for k := g.r.IntN(max + 1); k > 0; k-- {
		out = append(out, groups[g.r.IntN(len(groups))]...)
	}
	return out
}

func cmdOf(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			out = append(out, p)
		case []string:
			out = append(out, p...)
		default:
			panic(fmt.Sprintf("cmdOf: %T", p))
		}
	}
	return out
}

func (g *diffGen) next() []string {
	defer func() { g.i++ }()
	if g.chance(1) {
		return g.bigCmd()
	}
	if g.chance(2) {
		// Start a family's key afresh, whatever type it has come to hold.
		return []string{"DEL", g.pick(diffAllKeys...)}
	}
	switch w := g.r.IntN(100); {
	case w < 13:
		return g.stringCmd()
	case w < 22:
		return g.keyCmd()
	case w < 34:
		return g.listCmd()
	case w < 46:
		return g.hashCmd()
	case w < 54:
		return g.setCmd()
	case w < 67:
		return g.zsetCmd()
	case w < 73:
		return g.bitCmd()
	case w < 77:
		return g.hllCmd()
	case w < 82:
		return g.geoCmd()
	case w < 91:
		return g.streamCmd()
	default:
		return g.txCmd()
	}
}

// bigCmd grows a collection past the sizes of its compact encodings
// (listpack, intset), which the small member pools never reach.
func (g *diffGen) bigCmd() []string {
	switch g.r.IntN(5) {
	case 0:
		args := []string{"SADD", g.pick(diffSetKeys...)}
		ints := g.chance(50)
		for i := range 130 + g.r.IntN(2)*400 {
			if ints {
				args = append(args, strconv.Itoa(i*7-100))
			} else {
				args = append(args, "m"+strconv.Itoa(i))
			}
		}
		return args
	case 1:
		args := []string{"ZADD", g.pick(diffZKeys...)}
		for i := range 130 {
			args = append(args, strconv.Itoa(i%17-5), "m"+strconv.Itoa(i))
		}
		return args
	case 2:
		args := []string{"HSET", g.pick(diffHashKeys...)}
		for i := range 520 {
			args = append(args, "f"+strconv.Itoa(i), strconv.Itoa(i))
		}
		return args
	case 3:
		args := []string{g.pick("RPUSH", "LPUSH"), g.pick(diffListKeys...)}
		for i := range 200 {
			args = append(args, strings.Repeat(string(rune('a'+i%26)), 50))
		}
		return args
	}
	args := []string{"SET", g.pick(diffStrKeys...), strings.Repeat("x", 40+g.r.IntN(40))}
	return args
}

func (g *diffGen) stringCmd() []string {
	k := g.key(diffStrKeys)
	switch g.r.IntN(24) {
	case 0, 1, 2:
		k = g.dest(diffStrKeys)
		opts := g.options(3, []string{"NX"}, []string{"XX"}, []string{"GET"}, []string{"GET"}, []string{"EX", g.secs()},
			[]string{"PX", g.millis()}, []string{"EXAT", g.unixSecs()}, []string{"PXAT", g.unixMillis()},
			[]string{"KEEPTTL"}, []string{"KEEPTTL"})
		if g.chance(3) {
			opts = append(opts, g.pick("FOO", "EX", "PX", "nx"))
		}
		return cmdOf("SET", k, g.value(), opts)
	case 3:
		return cmdOf("GETEX", k, g.options(2, []string{"EX", g.secs()}, []string{"PX", g.millis()},
			[]string{"EXAT", g.unixSecs()}, []string{"PXAT", g.unixMillis()}, []string{"PERSIST"}, []string{"persist"}))
	case 4:
		return cmdOf(g.pick("GETDEL", "GET", "STRLEN"), k)
	case 5:
		return cmdOf("GETSET", k, g.value())
	case 6:
		return cmdOf("APPEND", k, g.value())
	case 7:
		return cmdOf(g.pick("INCR", "DECR"), k)
	case 8, 9:
		return cmdOf(g.pick("INCRBY", "DECRBY"), k, g.number())
	case 10, 11:
		return cmdOf("INCRBYFLOAT", k, g.float())
	case 12:
		return cmdOf("SETRANGE", k, g.pick("0", "1", "3", "5", "10", "20", "-1", "536870912", "x", "2"), g.pick(diffTexts...))
	case 13, 14:
		return cmdOf(g.pick("GETRANGE", "SUBSTR"), k, g.idx(), g.idx())
	case 15:
		args := []string{"MSET"}
		for p := 1 + g.r.IntN(3); p > 0; p-- {
			args = append(args, g.dest(diffStrKeys), g.value())
		}
		if g.chance(5) {
			args = args[:len(args)-1]
		}
		return args
	case 16:
		args := []string{"MSETNX"}
		for p := 1 + g.r.IntN(3); p > 0; p-- {
			args = append(args, g.dest(diffStrKeys), g.value())
		}
		if g.chance(5) {
			args = args[:len(args)-1]
		}
		return args
	case 17:
		return cmdOf("MGET", g.keys(diffStrKeys, 1, 4))
	case 18:
		opts := g.options(3, []string{"LEN"}, []string{"IDX"}, []string{"MINMATCHLEN", g.pick("0", "1", "2", "-1", "x")},
			[]string{"WITHMATCHLEN"})
		return cmdOf("LCS", k, g.key(diffStrKeys), opts)
	case 19:
		return cmdOf("SETNX", k, g.value())
	case 20:
		return cmdOf("SETEX", g.dest(diffStrKeys), g.secs(), g.value())
	case 21:
		return cmdOf("PSETEX", g.dest(diffStrKeys), g.millis(), g.value())
	default:
		return cmdOf("GET", k)
	}
}

func (g *diffGen) keyCmd() []string {
	k := g.pick(diffAllKeys...)
	switch g.r.IntN(22) {
	case 0, 1:
		return cmdOf(g.pick("DEL", "UNLINK"), g.keys(diffAllKeys, 1, 3))
	case 2:
		return cmdOf("EXISTS", g.keys(diffAllKeys, 1, 3))
	case 3:
		return cmdOf("TYPE", k)
	case 4:
		return cmdOf(g.pick("RENAME", "RENAMENX"), k, g.sameFamily(k))
	case 5:
		return cmdOf("COPY", k, g.sameFamily(k), g.options(2, []string{"REPLACE"}, []string{"DB", g.pick("0", "0", "x", "-1", "16")}))
	case 6, 7:
		return cmdOf("EXPIRE", k, g.secs(), g.options(2, []string{"NX"}, []string{"XX"}, []string{"GT"}, []string{"LT"}))
	case 8:
		return cmdOf("PEXPIRE", k, g.millis(), g.options(2, []string{"NX"}, []string{"XX"}, []string{"GT"}, []string{"LT"}))
	case 9, 10:
		return cmdOf("EXPIREAT", k, g.unixSecs(), g.options(2, []string{"NX"}, []string{"XX"}, []string{"GT"}, []string{"LT"}))
	case 11:
		return cmdOf("PEXPIREAT", k, g.unixMillis(), g.options(2, []string{"NX"}, []string{"XX"}, []string{"GT"}, []string{"LT"}, []string{"FOO"}))
	case 12:
		return cmdOf("PERSIST", k)
	case 13, 14:
		return cmdOf(g.pick("TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"), k)
	case 15, 16:
		return cmdOf("OBJECT", "ENCODING", k)
	case 17:
		return cmdOf("TOUCH", g.keys(diffAllKeys, 1, 3))
	case 18:
		return cmdOf("KEYS", g.pick("*", "s*", "?0", "[st]*", "h[0-1]", "*1", "nomatch"))
	case 19:
		return cmdOf(g.pick("DBSIZE", "RANDOMKEY"))
	default:
		// Members 0, 1 and 2 name the keys s0, s1, s2 and h0, h1 in
		// patterns.
		args := cmdOf(g.pick("SORT", "SORT_RO"), g.key(concat(diffListKeys, diffSetKeys, diffZKeys)),
			g.options(3, []string{"ALPHA"}, []string{"DESC"}, []string{"LIMIT", g.idx(), g.count()}, []string{"ASC"},
				[]string{"BY", g.pick("nosort", "s*", "h*->f1", "h*->1", "nokey*")},
				[]string{"GET", g.pick("#", "s*", "h*->f2", "h*->", "*")}))
		if args[0] == "SORT" && g.chance(20) {
			args = append(args, "STORE", g.dest(diffListKeys))
		}
		return args
	}
}

// sameFamily is mostly a key of k's family (which holds k's type most of
// the time), sometimes any key.
func (g *diffGen) sameFamily(k string) string {
	for _, home := range [][]string{diffStrKeys, diffListKeys, diffHashKeys, diffSetKeys, diffZKeys, diffHLLKeys, diffGeoKeys} {
		if slices.Contains(home, k) {
			return g.dest(home)
		}
	}
	return g.pick(diffAllKeys...)
}

func (g *diffGen) elem() string {
	if g.chance(10) {
		return g.value()
	}
	return g.member()
}

func (g *diffGen) elems(min, max int) []string {
	out := make([]string, min+g.r.IntN(max-min+1))
	for i := range out {
		out[i] = g.elem()
	}
	return out
}

func (g *diffGen) listCmd() []string {
	k := g.key(diffListKeys)
	dir := func() string { return g.pick("LEFT", "RIGHT", "left", "UP") }
	switch g.r.IntN(26) {
	case 0, 1, 2, 3:
		return cmdOf(g.pick("LPUSH", "RPUSH"), k, g.elems(1, 4))
	case 4:
		return cmdOf(g.pick("LPUSHX", "RPUSHX"), k, g.elems(1, 3))
	case 5:
		return cmdOf("LINSERT", k, g.pick("BEFORE", "AFTER", "before", "MIDDLE"), g.elem(), g.elem())
	case 6:
		return cmdOf("LLEN", k)
	case 7:
		return cmdOf("LINDEX", k, g.idx())
	case 8:
		return cmdOf("LSET", k, g.idx(), g.elem())
	case 9, 10:
		return cmdOf("LRANGE", k, g.idx(), g.idx())
	case 11:
		return cmdOf("LTRIM", k, g.idx(), g.idx())
	case 12:
		return cmdOf("LREM", k, g.pick("0", "1", "-1", "2", "-2", "x", "9223372036854775807", "-9223372036854775808"), g.elem())
	case 13, 14:
		if g.chance(50) {
			return cmdOf(g.pick("LPOP", "RPOP"), k)
		}
		return cmdOf(g.pick("LPOP", "RPOP"), k, g.count())
	case 15:
		return cmdOf("RPOPLPUSH", k, g.key(diffListKeys))
	case 16:
		return cmdOf("LMOVE", k, g.key(diffListKeys), dir(), dir())
	case 17, 18:
		ks := g.keys(diffListKeys, 1, 3)
		nk := strconv.Itoa(len(ks))
		if g.chance(8) {
			nk = g.pick("0", "-1", "x", "5", "1")
		}
		args := cmdOf("LMPOP", nk, ks, dir())
		if g.chance(60) {
			args = append(args, g.pick("COUNT", "count"), g.count())
		}
		return args
	case 19, 20, 21:
		return cmdOf("LPOS", k, g.elem(), g.options(3, []string{"RANK", g.pick("1", "-1", "2", "-2", "0", "x", "9223372036854775807", "-9223372036854775808")},
			[]string{"COUNT", g.pick("0", "1", "2", "-1", "x")}, []string{"MAXLEN", g.pick("0", "1", "3", "-1", "x")}))
	case 22:
		return cmdOf(g.pick("BLPOP", "BRPOP"), g.keys(diffListKeys, 1, 2), g.pick("0.01", "-1", "x"))
	case 23:
		return cmdOf("BLMOVE", k, g.key(diffListKeys), dir(), dir(), g.pick("0.01", "-1"))
	case 24:
		ks := g.keys(diffListKeys, 1, 2)
		return cmdOf("BLMPOP", "0.01", strconv.Itoa(len(ks)), ks, dir(), g.options(1, []string{"COUNT", g.count()}))
	default:
		return cmdOf("BRPOPLPUSH", k, g.key(diffListKeys), "0.01")
	}
}

// fieldsArg is "FIELDS n f..." with, now and then, a wrong n.
func (g *diffGen) fieldsArg(values bool) []string {
	n := 1 + g.r.IntN(3)
	args := []string{g.pick("FIELDS", "FIELDS", "FIELDS", "fields", "FIELD"), strconv.Itoa(n)}
	if g.chance(6) {
		args[1] = g.pick("0", "-1", "x", "4", "9223372036854775807")
	}
	for ; n > 0; n-- {
		args = append(args, g.field())
		if values {
			args = append(args, g.value())
		}
	}
	return args
}

func (g *diffGen) hashCmd() []string {
	k := g.key(diffHashKeys)
	cond := func() []string { return g.options(1, []string{"NX"}, []string{"XX"}, []string{"GT"}, []string{"LT"}) }
	switch g.r.IntN(30) {
	case 0, 1, 2, 3:
		args := []string{g.pick("HSET", "HSET", "HMSET"), k}
		for p := 1 + g.r.IntN(3); p > 0; p-- {
			args = append(args, g.field(), g.value())
		}
		if g.chance(4) {
			args = args[:len(args)-1]
		}
		return args
	case 4:
		return cmdOf("HSETNX", k, g.field(), g.value())
	case 5:
		return cmdOf(g.pick("HGET", "HSTRLEN", "HEXISTS"), k, g.field())
	case 6:
		return cmdOf("HMGET", k, g.field(), g.field())
	case 7:
		return cmdOf("HDEL", k, g.field(), g.field())
	case 8:
		return cmdOf(g.pick("HLEN", "HKEYS", "HVALS", "HGETALL"), k)
	case 9, 10:
		return cmdOf("HINCRBY", k, g.field(), g.number())
	case 11, 12:
		return cmdOf("HINCRBYFLOAT", k, g.field(), g.float())
	case 13:
		switch g.r.IntN(4) {
		case 0:
			return cmdOf("HRANDFIELD", k)
		case 1:
			return cmdOf("HRANDFIELD", k, g.pick("-1", "-3", "-10", "0", "x"))
		}
		return cmdOf("HRANDFIELD", k, g.pick("100000", "9223372036854775807"), g.options(1, []string{"WITHVALUES"}))
	case 14:
		return cmdOf("HGETDEL", k, g.fieldsArg(false))
	case 15, 16:
		return cmdOf("HGETEX", k, g.options(1, []string{"EX", g.secs()}, []string{"PX", g.millis()},
			[]string{"EXAT", g.unixSecs()}, []string{"PXAT", g.unixMillis()}, []string{"PERSIST"}), g.fieldsArg(false))
	case 17, 18:
		opts := g.options(2, []string{"FNX"}, []string{"FXX"}, []string{"EX", g.secs()}, []string{"PX", g.millis()},
			[]string{"EXAT", g.unixSecs()}, []string{"PXAT", g.unixMillis()}, []string{"KEEPTTL"})
		return cmdOf("HSETEX", k, opts, g.fieldsArg(true))
	case 19, 20:
		return cmdOf("HEXPIRE", k, g.secs(), cond(), g.fieldsArg(false))
	case 21:
		return cmdOf("HPEXPIRE", k, g.millis(), cond(), g.fieldsArg(false))
	case 22:
		return cmdOf("HEXPIREAT", k, g.unixSecs(), cond(), g.fieldsArg(false))
	case 23:
		return cmdOf("HPEXPIREAT", k, g.unixMillis(), cond(), g.fieldsArg(false))
	case 24, 25:
		return cmdOf(g.pick("HTTL", "HPTTL", "HEXPIRETIME", "HPEXPIRETIME"), k, g.fieldsArg(false))
	case 26:
		return cmdOf("HPERSIST", k, g.fieldsArg(false))
	case 27:
		return cmdOf("HSCAN", k, "0", "COUNT", "1000", g.options(1, []string{"MATCH", g.pick("f*", "*", "?")}, []string{"NOVALUES"}))
	default:
		return cmdOf("HGET", k, g.field())
	}
}

func (g *diffGen) setCmd() []string {
	k := g.key(diffSetKeys)
	switch g.r.IntN(22) {
	case 0, 1, 2, 3:
		return cmdOf("SADD", k, g.members(1, 4))
	case 4, 5:
		return cmdOf("SREM", k, g.members(1, 3))
	case 6:
		return cmdOf(g.pick("SCARD", "SMEMBERS"), k)
	case 7:
		return cmdOf("SISMEMBER", k, g.member())
	case 8:
		return cmdOf("SMISMEMBER", k, g.members(1, 3))
	case 9:
		return cmdOf("SMOVE", k, g.key(diffSetKeys), g.member())
	case 10, 11:
		return cmdOf(g.pick("SINTER", "SUNION", "SDIFF"), g.keys(diffSetKeys, 1, 3))
	case 12, 13:
		return cmdOf(g.pick("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"), g.dest(diffSetKeys), g.keys(diffSetKeys, 1, 3))
	case 14, 15:
		ks := g.keys(diffSetKeys, 1, 3)
		nk := strconv.Itoa(len(ks))
		if g.chance(8) {
			nk = g.pick("0", "-1", "x", "5")
		}
		return cmdOf("SINTERCARD", nk, ks, g.options(1, []string{"LIMIT", g.pick("0", "1", "2", "-1", "x")}))
	case 16:
		// SPOP with a count below the size picks at random: only whole sets.
		return cmdOf("SPOP", k, g.pick("100000", "9223372036854775807", "0", "-1", "x"))
	case 17:
		switch g.r.IntN(3) {
		case 0:
			return cmdOf("SRANDMEMBER", k)
		case 1:
			return cmdOf("SRANDMEMBER", k, g.pick("-1", "-5", "0", "x"))
		}
		return cmdOf("SRANDMEMBER", k, g.pick("100000", "9223372036854775807"))
	case 18:
		return cmdOf("SSCAN", k, "0", "COUNT", "1000", g.options(1, []string{"MATCH", g.pick("*", "1*", "?")}))
	default:
		return cmdOf("SISMEMBER", k, g.member())
	}
}

func (g *diffGen) limit() []string {
	return []string{"LIMIT", g.pick("0", "1", "2", "-1", "x"), g.pick("0", "1", "2", "-1", "5", "x")}
}

// zrangeArgs is "start stop [BYSCORE|BYLEX] [REV] [LIMIT o c]", mostly
// with bounds that suit the mode.
func (g *diffGen) zrangeArgs() []string {
	mode := g.r.IntN(3)
	bound := func() string {
		if g.chance(5) {
			return g.pick(concat(diffIdx, diffScoreBounds, diffLexBounds)...)
		}
		switch mode {
		case 1:
			return g.pick(diffScoreBounds...)
		case 2:
			return g.pick(diffLexBounds...)
		}
		return g.idx()
	}
	args := []string{bound(), bound()}
	switch mode {
	case 1:
		args = append(args, "BYSCORE")
	case 2:
		args = append(args, "BYLEX")
	}
	if g.chance(40) {
		args = append(args, "REV")
	}
	if g.chance(35) {
		args = append(args, g.limit()...)
	}
	return args
}

func (g *diffGen) zsetCmd() []string {
	k := g.key(diffZKeys)
	zkeys := func(min, max int) []string {
		if g.chance(15) {
			return g.keys(concat(diffZKeys, diffSetKeys), min, max)
		}
		return g.keys(diffZKeys, min, max)
	}
	numkeys := func(ks []string) string {
		if g.chance(6) {
			return g.pick("0", "-1", "x", "5")
		}
		return strconv.Itoa(len(ks))
	}
	switch g.r.IntN(40) {
	case 0, 1, 2, 3, 4:
		opts := g.options(3, []string{"NX"}, []string{"XX"}, []string{"GT"}, []string{"LT"}, []string{"CH"}, []string{"INCR"})
		args := cmdOf("ZADD", k, opts)
		// z2 is mostly a set of equal scores, where lex ranges are defined.
		lex := k == "z2" && g.chance(85)
		for p := 1 + g.r.IntN(3); p > 0; p-- {
			if lex {
				args = append(args, "0", g.member())
			} else {
				args = append(args, g.score(), g.member())
			}
		}
		if g.chance(4) {
			args = args[:len(args)-1]
		}
		return args
	case 5, 6:
		return cmdOf("ZINCRBY", k, g.score(), g.member())
	case 7:
		return cmdOf(g.pick("ZCARD", "ZCARD"), k)
	case 8:
		return cmdOf("ZSCORE", k, g.member())
	case 9:
		return cmdOf("ZMSCORE", k, g.members(1, 3))
	case 10, 11:
		return cmdOf(g.pick("ZRANK", "ZREVRANK"), k, g.member(), g.options(1, []string{"WITHSCORE"}, []string{"WITHSCORES"}))
	case 12, 13, 14, 15:
		args := cmdOf("ZRANGE", k, g.zrangeArgs())
		if g.chance(50) {
			args = append(args, "WITHSCORES")
		}
		return args
	case 16:
		return cmdOf("ZRANGESTORE", g.dest(diffZKeys), k, g.zrangeArgs())
	case 17:
		args := cmdOf(g.pick("ZRANGEBYSCORE", "ZREVRANGEBYSCORE"), k, g.pick(diffScoreBounds...), g.pick(diffScoreBounds...))
		return append(args, g.options(2, []string{"WITHSCORES"}, g.limit())...)
	case 18:
		args := cmdOf(g.pick("ZRANGEBYLEX", "ZREVRANGEBYLEX"), k, g.pick(diffLexBounds...), g.pick(diffLexBounds...))
		return append(args, g.options(1, g.limit())...)
	case 19:
		return cmdOf("ZREVRANGE", k, g.idx(), g.idx(), g.options(1, []string{"WITHSCORES"}))
	case 20, 21:
		return cmdOf("ZREM", k, g.members(1, 3))
	case 22:
		switch g.r.IntN(3) {
		case 0:
			return cmdOf("ZREMRANGEBYRANK", k, g.idx(), g.idx())
		case 1:
			return cmdOf("ZREMRANGEBYSCORE", k, g.pick(diffScoreBounds...), g.pick(diffScoreBounds...))
		}
		return cmdOf("ZREMRANGEBYLEX", k, g.pick(diffLexBounds...), g.pick(diffLexBounds...))
	case 23:
		if g.chance(40) {
			return cmdOf(g.pick("ZPOPMIN", "ZPOPMAX"), k)
		}
		return cmdOf(g.pick("ZPOPMIN", "ZPOPMAX"), k, g.count())
	case 24:
		ks := zkeys(1, 3)
		args := cmdOf("ZMPOP", numkeys(ks), ks, g.pick("MIN", "MAX", "max", "MID"))
		return append(args, g.options(1, []string{"COUNT", g.count()})...)
	case 25:
		if g.chance(50) {
			return cmdOf(g.pick("BZPOPMIN", "BZPOPMAX"), zkeys(1, 2), g.pick("0.01", "-1"))
		}
		ks := zkeys(1, 2)
		return cmdOf("BZMPOP", "0.01", strconv.Itoa(len(ks)), ks, g.pick("MIN", "MAX"), g.options(1, []string{"COUNT", g.count()}))
	case 26, 27, 28, 29, 30:
		ks := zkeys(1, 3)
		op := g.pick("ZUNION", "ZINTER", "ZDIFF", "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE")
		args := []string{op}
		if strings.HasSuffix(op, "STORE") {
			args = append(args, g.dest(diffZKeys))
		}
		args = append(args, numkeys(ks))
		args = append(args, ks...)
		var groups [][]string
		if !strings.HasPrefix(op, "ZDIFF") || g.chance(10) {
			w := []string{"WEIGHTS"}
			for range ks {
				w = append(w, g.pick("1", "2", "-1", "0", "0.5", "inf", "-inf", "nan", "x"))
			}
			if g.chance(8) {
				w = w[:len(w)-1]
			}
			groups = append(groups, w, []string{"AGGREGATE", g.pick("SUM", "MIN", "MAX", "min", "AVG")})
		}
		if !strings.HasSuffix(op, "STORE") || g.chance(5) {
			groups = append(groups, []string{"WITHSCORES"})
		}
		if len(groups) > 0 {
			args = append(args, g.options(3, groups...)...)
		}
		return args
	case 31:
		ks := zkeys(1, 3)
		return cmdOf("ZINTERCARD", numkeys(ks), ks, g.options(1, []string{"LIMIT", g.pick("0", "1", "2", "-1", "x")}))
	case 32:
		return cmdOf("ZLEXCOUNT", k, g.pick(diffLexBounds...), g.pick(diffLexBounds...))
	case 33, 34:
		return cmdOf("ZCOUNT", k, g.pick(diffScoreBounds...), g.pick(diffScoreBounds...))
	case 35:
		switch g.r.IntN(3) {
		case 0:
			return cmdOf("ZRANDMEMBER", k)
		case 1:
			return cmdOf("ZRANDMEMBER", k, g.pick("-1", "-5", "0", "x"), g.options(1, []string{"WITHSCORES"}))
		}
		return cmdOf("ZRANDMEMBER", k, g.pick("100000", "9223372036854775807"), g.options(1, []string{"WITHSCORES"}))
	case 36:
		return cmdOf("ZSCAN", k, "0", "COUNT", "1000", g.options(1, []string{"MATCH", g.pick("*", "1*", "?")}))
	default:
		return cmdOf("ZRANGE", k, "0", "-1", "WITHSCORES")
	}
}

func (g *diffGen) bitCmd() []string {
	k := g.key(diffStrKeys)
	off := func() string {
		if g.chance(8) {
			return g.pick("-1", "4294967296", "x", "")
		}
		return strconv.Itoa(g.r.IntN(200))
	}
	unit := func() []string {
		return g.options(1, []string{"BYTE"}, []string{"BIT"}, []string{"bit"}, []string{"WORD"})
	}
	switch g.r.IntN(12) {
	case 0, 1, 2:
		return cmdOf("SETBIT", k, off(), g.pick("0", "1", "1", "2", "-1", "x"))
	case 3, 4:
		return cmdOf("GETBIT", k, off())
	case 5, 6:
		switch g.r.IntN(3) {
		case 0:
			return cmdOf("BITCOUNT", k)
		case 1:
			return cmdOf("BITCOUNT", k, g.idx())
		}
		return cmdOf("BITCOUNT", k, g.idx(), g.idx(), unit())
	case 7, 8:
		args := cmdOf("BITPOS", k, g.pick("0", "1", "1", "2", "x"))
		if g.chance(70) {
			args = append(args, g.idx())
			if g.chance(70) {
				args = append(args, g.idx())
				args = append(args, unit()...)
			}
		}
		return args
	case 9, 10:
		op := g.pick("AND", "OR", "XOR", "NOT", "and", "DIFF", "DIFF1", "ANDOR", "ONE", "NAND")
		return cmdOf("BITOP", op, g.dest(diffStrKeys), g.keys(diffStrKeys, 1, 3))
	default:
		typ := g.pick("u8", "i8", "u1", "i16", "u63", "i64", "u64", "i0")
		args := cmdOf(g.pick("BITFIELD", "BITFIELD_RO"), k, g.options(1, []string{"OVERFLOW", g.pick("WRAP", "SAT", "FAIL")}))
		if op := g.pick("GET", "SET", "INCRBY"); op == "GET" {
			args = append(args, op, typ, g.pick("0", "3", "#1", "100"))
		} else {
			args = append(args, op, typ, g.pick("0", "3", "#1", "100"), g.pick(diffInts...))
		}
		return args
	}
}
