package commands

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// The hash property test: random command sequences run against the server
// and against a model made of Go maps; every reply and the final state must
// agree. Field expiry times are either far in the future or long past, so
// the outcome does not depend on timing.

type mhash struct {
	vals map[string]string
	ttl  map[string]int64 // unix ms; absent: no expiry
}

type hashModel struct {
	t      *testing.T
	r      *harness.Conn
	rng    *rand.Rand
	proto  int
	hashes map[string]*mhash
	op     int
}

const (
	farFuture = 4102444800000 // 2100-01-01 in ms
	strKey    = "str"
)

var modelKeys = []string{"h0", "h0", "h0", "h0", "h1", "h1", "h2", strKey}

func (m *hashModel) field() string {
	if m.rng.IntN(200) == 0 {
		return strings.Repeat("F", 70) // past Redis's listpack limit
	}
	if m.rng.IntN(5) == 0 {
		return fmt.Sprint("f", m.rng.IntN(60)) // enough to cross the compact limit
	}
	return fmt.Sprint("f", m.rng.IntN(12))
}

func (m *hashModel) value() string {
	switch m.rng.IntN(6) {
	case 0:
		return strconv.Itoa(m.rng.IntN(2000) - 1000)
	case 1:
		return strings.Repeat("v", 65+m.rng.IntN(10))
	case 2:
		return ""
	}
	return fmt.Sprint("v", m.rng.IntN(1000))
}

func (m *hashModel) fields(n int) []string {
	fs := make([]string, n)
	for i := range fs {
		fs[i] = m.field()
	}
	return fs
}

// expireAt is a time far ahead, or long past (which deletes the field).
func (m *hashModel) expireAt() int64 {
	if m.rng.IntN(4) == 0 {
		return 1 + int64(m.rng.IntN(1000))
	}
	return farFuture + int64(m.rng.IntN(4))
}

// get returns key's model hash, creating it when create is set.
func (m *hashModel) get(key string, create bool) *mhash {
	h := m.hashes[key]
	if h == nil && create {
		h = &mhash{vals: map[string]string{}, ttl: map[string]int64{}}
		m.hashes[key] = h
	}
	return h
}

// settle drops an emptied hash, as the server does.
func (m *hashModel) settle(key string) {
	if h := m.hashes[key]; h != nil && len(h.vals) == 0 {
		delete(m.hashes, key)
	}
}

func (m *hashModel) del(h *mhash, f string) {
	delete(h.vals, f)
	delete(h.ttl, f)
}

// expire applies HEXPIRE's rules to one field and returns its reply code.
func (m *hashModel) expire(h *mhash, f string, at int64, cond string) int64 {
	if _, ok := h.vals[f]; !ok {
		return -2
	}
	prev, has := h.ttl[f]
	if !has && (cond == "XX" || cond == "GT") ||
		has && (cond == "NX" || cond == "GT" && prev >= at || cond == "LT" && prev <= at) {
		return 0
	}
	if at < farFuture {
		m.del(h, f)
		return 2
	}
	h.ttl[f] = at
	return 1
}

func (m *hashModel) fail(args []string, got, want any) {
	m.t.Helper()
	m.t.Fatalf("RESP%d op %d %q:\n got  %#v\n want %#v", m.proto, m.op, args, got, want)
}

func (m *hashModel) expect(args []string, want any) {
	m.t.Helper()
	if got := m.r.Do(args...); !reflect.DeepEqual(got, want) {
		m.fail(args, got, want)
	}
}

func ints(v ...int64) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}

// pairsOf reads a flat field/value array or a RESP3 map.
func pairsOf(rep any) map[string]string {
	var flat []any
	switch v := rep.(type) {
	case harness.Map:
		flat = v
	case []any:
		flat = v
	}
	out := map[string]string{}
	for i := 0; i+1 < len(flat); i += 2 {
		out[flat[i].(string)] = flat[i+1].(string)
	}
	return out
}

func (m *hashModel) step() {
	key := modelKeys[m.rng.IntN(len(modelKeys))]
	h := m.hashes[key]
	wrong := key == strKey
	var args []string
	var want any
	switch m.rng.IntN(19) {
	case 0, 17, 18: // HSET
		args = []string{"HSET", key}
		n := int64(0)
		for i := 0; i < 1+m.rng.IntN(6); i++ {
			f, v := m.field(), m.value()
			args = append(args, f, v)
			if !wrong {
				h = m.get(key, true)
				if _, ok := h.vals[f]; !ok {
					n++
				}
				h.vals[f] = v
				delete(h.ttl, f)
			}
		}
		want = n
	case 1: // HSETNX
		f, v := m.field(), m.value()
		args = []string{"HSETNX", key, f, v}
		want = int64(0)
		if !has(h, f) {
			if !wrong {
				m.get(key, true).vals[f] = v
				want = int64(1)
			}
		}
	case 2: // HDEL
		args = append([]string{"HDEL", key}, m.fields(1+m.rng.IntN(3))...)
		n := int64(0)
		for _, f := range args[2:] {
			if has(h, f) {
				m.del(h, f)
				n++
			}
		}
		want = n
		m.settle(key)
	case 3: // HGET / HEXISTS / HSTRLEN
		f := m.field()
		switch m.rng.IntN(3) {
		case 0:
			args, want = []string{"HGET", key, f}, nil
			if has(h, f) {
				want = h.vals[f]
			}
		case 1:
			args, want = []string{"HEXISTS", key, f}, int64(0)
			if has(h, f) {
				want = int64(1)
			}
		default:
			args, want = []string{"HSTRLEN", key, f}, int64(0)
			if has(h, f) {
				want = int64(len(h.vals[f]))
			}
		}
	case 4: // HMGET
		fs := m.fields(1 + m.rng.IntN(4))
		args = append([]string{"HMGET", key}, fs...)
		vals := make([]any, len(fs))
		for i, f := range fs {
			if has(h, f) {
				vals[i] = h.vals[f]
			}
		}
		want = vals
	case 5: // HLEN
		args, want = []string{"HLEN", key}, int64(0)
		if h != nil {
			want = int64(len(h.vals))
		}
	case 6: // HINCRBY
		f, incr := m.field(), int64(m.rng.IntN(200)-100)
		args = []string{"HINCRBY", key, f, strconv.FormatInt(incr, 10)}
		old := int64(0)
		if has(h, f) {
			n, err := strconv.ParseInt(h.vals[f], 10, 64)
			if err != nil || strconv.FormatInt(n, 10) != h.vals[f] {
				want = harness.Err("ERR hash value is not an integer")
				break
			}
			old = n
		}
		want = old + incr
		if !wrong {
			m.get(key, true).vals[f] = strconv.FormatInt(old+incr, 10)
		}
	case 7: // HGETALL / HKEYS / HVALS: compared as sets
		m.checkAll(key, wrong)
		return
	case 8: // HPEXPIREAT with a condition
		cond := []string{"", "NX", "XX", "GT", "LT"}[m.rng.IntN(5)]
		at := m.expireAt()
		fs := m.fields(1 + m.rng.IntN(3))
		args = []string{"HPEXPIREAT", key, strconv.FormatInt(at, 10)}
		if cond != "" {
			args = append(args, cond)
		}
		args = append(args, "FIELDS", strconv.Itoa(len(fs)))
		args = append(args, fs...)
		codes := make([]any, len(fs))
		for i, f := range fs {
			codes[i] = int64(-2)
			if h != nil {
				codes[i] = m.expire(h, f, at, cond)
			}
		}
		want = codes
		m.settle(key)
	case 9: // HPERSIST
		fs := m.fields(1 + m.rng.IntN(3))
		args = append([]string{"HPERSIST", key, "FIELDS", strconv.Itoa(len(fs))}, fs...)
		codes := make([]any, len(fs))
		for i, f := range fs {
			switch {
			case !has(h, f):
				codes[i] = int64(-2)
			case h.ttl[f] == 0:
				codes[i] = int64(-1)
			default:
				delete(h.ttl, f)
				codes[i] = int64(1)
			}
		}
		want = codes
	case 10: // HPEXPIRETIME
		fs := m.fields(1 + m.rng.IntN(3))
		args = append([]string{"HPEXPIRETIME", key, "FIELDS", strconv.Itoa(len(fs))}, fs...)
		codes := make([]any, len(fs))
		for i, f := range fs {
			switch {
			case !has(h, f):
				codes[i] = int64(-2)
			case h.ttl[f] == 0:
				codes[i] = int64(-1)
			default:
				codes[i] = h.ttl[f]
			}
		}
		want = codes
	case 11: // HGETDEL
		fs := m.fields(1 + m.rng.IntN(3))
		args = append([]string{"HGETDEL", key, "FIELDS", strconv.Itoa(len(fs))}, fs...)
		vals := make([]any, len(fs))
		for i, f := range fs {
			if has(h, f) {
				vals[i] = h.vals[f]
				m.del(h, f)
			}
		}
		want = vals
		m.settle(key)
	case 12: // HGETEX [PXAT t | PERSIST]
		fs := m.fields(1 + m.rng.IntN(3))
		args = []string{"HGETEX", key}
		opt, at := m.rng.IntN(3), m.expireAt()
		switch opt {
		case 1:
			args = append(args, "PXAT", strconv.FormatInt(at, 10))
		case 2:
			args = append(args, "PERSIST")
		}
		args = append(append(args, "FIELDS", strconv.Itoa(len(fs))), fs...)
		vals := make([]any, len(fs))
		for i, f := range fs {
			if !has(h, f) {
				continue
			}
			vals[i] = h.vals[f]
			switch opt {
			case 1:
				m.expire(h, f, at, "")
			case 2:
				delete(h.ttl, f)
			}
		}
		want = vals
		m.settle(key)
	case 13: // HSETEX [FNX | FXX] [PXAT t | KEEPTTL]
		cond := []string{"", "FNX", "FXX"}[m.rng.IntN(3)]
		exp, at := m.rng.IntN(3), m.expireAt()
		args = []string{"HSETEX", key}
		if cond != "" {
			args = append(args, cond)
		}
		switch exp {
		case 1:
			args = append(args, "PXAT", strconv.FormatInt(at, 10))
		case 2:
			args = append(args, "KEEPTTL")
		}
		n := 1 + m.rng.IntN(3)
		args = append(args, "FIELDS", strconv.Itoa(n))
		var pairs [][2]string
		for i := 0; i < n; i++ {
			p := [2]string{m.field(), m.value()}
			pairs = append(pairs, p)
			args = append(args, p[0], p[1])
		}
		want = int64(1)
		for _, p := range pairs {
			if cond == "FNX" && has(h, p[0]) || cond == "FXX" && !has(h, p[0]) {
				want = int64(0)
			}
		}
		if want == int64(0) || wrong {
			break
		}
		h = m.get(key, true)
		for _, p := range pairs {
			h.vals[p[0]] = p[1]
			switch exp {
			case 0:
				delete(h.ttl, p[0])
			case 1:
				m.expire(h, p[0], at, "")
			}
		}
		m.settle(key)
	case 14: // HSCAN to the end, as a set
		m.checkScan(key, wrong)
		return
	case 15: // HRANDFIELD with a count
		m.checkRandom(key, wrong)
		return
	case 16: // DEL, now and then, to start a hash afresh
		if key == strKey || m.rng.IntN(4) != 0 {
			return
		}
		args, want = []string{"DEL", key}, int64(0)
		if h != nil {
			want = int64(1)
		}
		delete(m.hashes, key)
		wrong = false
	}
	if wrong {
		want = errWrongType
	}
	m.expect(args, want)
}

func has(h *mhash, f string) bool {
	if h == nil {
		return false
	}
	_, ok := h.vals[f]
	return ok
}

func (m *hashModel) checkAll(key string, wrong bool) {
	h := m.hashes[key]
	args := []string{"HGETALL", key}
	got := m.r.Do(args...)
	if wrong {
		if got != errWrongType {
			m.fail(args, got, errWrongType)
		}
		return
	}
	want := map[string]string{}
	if h != nil {
		want = h.vals
	}
	if _, isMap := got.(harness.Map); isMap != (m.proto == 3) {
		m.fail(args, got, "a map in RESP3, an array in RESP2")
	}
	if p := pairsOf(got); !reflect.DeepEqual(p, want) {
		m.fail(args, p, want)
	}
	var keys, vals []string
	for f, v := range want {
		keys, vals = append(keys, f), append(vals, v)
	}
	for _, c := range []struct {
		cmd  string
		want []string
	}{{"HKEYS", keys}, {"HVALS", vals}} {
		rep, _ := m.r.Do(c.cmd, key).([]any)
		var got []string
		for _, x := range rep {
			got = append(got, x.(string))
		}
		slices.Sort(got)
		slices.Sort(c.want)
		if !slices.Equal(got, c.want) {
			m.fail([]string{c.cmd, key}, got, c.want)
		}
	}
}

func (m *hashModel) checkScan(key string, wrong bool) {
	seen := map[string]string{}
	cursor := "0"
	for i := 0; ; i++ {
		args := []string{"HSCAN", key, cursor, "COUNT", strconv.Itoa(1 + m.rng.IntN(20))}
		rep := m.r.Do(args...)
		if wrong {
			if rep != errWrongType {
				m.fail(args, rep, errWrongType)
			}
			return
		}
		a, ok := rep.([]any)
		if !ok || len(a) != 2 || i > 1000 {
			m.fail(args, rep, "a [cursor, items] pair, ending")
		}
		for f, v := range pairsOf(a[1]) {
			seen[f] = v
		}
		if cursor = a[0].(string); cursor == "0" {
			break
		}
	}
	want := map[string]string{}
	if h := m.hashes[key]; h != nil {
		want = h.vals
	}
	if !reflect.DeepEqual(seen, want) {
		m.fail([]string{"HSCAN", key, "..."}, seen, want)
	}
}

func (m *hashModel) checkRandom(key string, wrong bool) {
	count := m.rng.IntN(30) - 10
	args := []string{"HRANDFIELD", key, strconv.Itoa(count), "WITHVALUES"}
	rep := m.r.Do(args...)
	if wrong {
		if rep != errWrongType {
			m.fail(args, rep, errWrongType)
		}
		return
	}
	h := m.hashes[key]
	n := 0
	if h != nil {
		n = len(h.vals)
	}
	want := count
	if count < 0 {
		want = -count
	} else {
		want = min(count, n)
	}
	if n == 0 {
		want = 0
	}
	items, _ := rep.([]any)
	var got [][2]string
	for i := 0; i < len(items); i++ {
		if m.proto == 3 {
			p := items[i].([]any)
			got = append(got, [2]string{p[0].(string), p[1].(string)})
		} else {
			got = append(got, [2]string{items[i].(string), items[i+1].(string)})
			i++
		}
	}
	if len(got) != want {
		m.fail(args, rep, fmt.Sprintf("%d pairs", want))
	}
	distinct := map[string]bool{}
	for _, p := range got {
		if v, ok := h.vals[p[0]]; !ok || v != p[1] {
			m.fail(args, rep, "pairs of the hash")
		}
		distinct[p[0]] = true
	}
	if count > 0 && len(distinct) != len(got) {
		m.fail(args, rep, "distinct fields for a positive count")
	}
}

// checkState compares every key with the model.
func (m *hashModel) checkState() {
	m.t.Helper()
	for _, key := range modelKeys {
		if key == strKey {
			continue
		}
		m.checkAll(key, false)
		h := m.hashes[key]
		if h == nil {
			m.expect([]string{"EXISTS", key}, int64(0))
			continue
		}
		var fs []string
		var want []int64
		for f := range h.vals {
			fs = append(fs, f)
			if at, ok := h.ttl[f]; ok {
				want = append(want, at)
			} else {
				want = append(want, -1)
			}
		}
		m.expect(append([]string{"HPEXPIRETIME", key, "FIELDS", strconv.Itoa(len(fs))}, fs...), ints(want...))
	}
	m.expect([]string{"DBSIZE"}, int64(len(m.hashes)+1))
}

func TestHashModel(t *testing.T) {
	s := harness.Start(t)
	for _, proto := range []int{2, 3} {
		for seed := uint64(1); seed <= 3; seed++ {
			r := s.Raw(t)
			if proto == 3 {
				r.Do("HELLO", "3")
			}
			r.Do("FLUSHALL")
			r.Do("SET", strKey, "x")
			m := &hashModel{t: t, r: r, rng: rand.New(rand.NewPCG(seed, uint64(proto))), proto: proto, hashes: map[string]*mhash{}}
			for m.op = 0; m.op < 1500; m.op++ {
				m.step()
				if m.op%250 == 0 {
					m.checkState()
				}
			}
			m.checkState()
		}
	}
}
