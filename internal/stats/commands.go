package stats

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/cmdtable"
)

// Commands holds INFO's commandstats, errorstats and latencystats apart
// from the live connections' counts: each connection counts its calls, time
// and histograms itself (no cache line shared on the command path), and
// the server sums them with these on demand; a closing connection's
// counts are folded in here (AddClosed). Refusals, failures and error
// codes are rarer and counted here directly.
type Commands struct {
	mu      sync.Mutex
	calls   []uint64 // closed connections' calls per command ID
	nanos   []uint64
	hits    int64
	misses  int64
	rejects []uint64 // per command ID: refused before running
	fails   []uint64 // per command ID: ran and answered an error
	errs    map[string]uint64
	lat     []*Counts // closed connections' latency histograms per command ID
}

func (st *Commands) init() {
	if st.calls == nil {
		n := cmdtable.Count()
		st.calls, st.nanos = make([]uint64, n), make([]uint64, n)
		st.rejects, st.fails = make([]uint64, n), make([]uint64, n)
		st.errs = map[string]uint64{}
	}
}

// CountError counts an error reply by its code, the text up to the first
// space.
func (st *Commands) CountError(msg string) {
	code := msg
	if i := strings.IndexByte(code, ' '); i > 0 {
		code = code[:i]
	}
	st.mu.Lock()
	st.init()
	st.errs[code]++
	st.mu.Unlock()
}

// Rejected counts a call of cmd refused before it ran.
func (st *Commands) Rejected(cmd *cmdtable.Cmd) {
	st.mu.Lock()
	st.init()
	st.rejects[cmd.ID]++
	st.mu.Unlock()
}

// Failed counts a failed call of cmd and its error reply (after the '-'),
// unless reply is nil (an error counted already).
func (st *Commands) Failed(cmd *cmdtable.Cmd, reply []byte) {
	end := 0
	for end < len(reply) && reply[end] != ' ' && reply[end] != '\r' {
		end++
	}
	st.mu.Lock()
	st.init()
	st.fails[cmd.ID]++
	if reply != nil {
		st.errs[string(reply[:end])]++
	}
	st.mu.Unlock()
}

// Conn is what a connection counts: its calls and nanoseconds per command
// ID, keyspace hits and misses, and latency histograms.
type Conn struct {
	Calls, Nanos []atomic.Uint64
	Hits, Misses int64
	Latency      *ConnLatency
}

// AddClosed folds a closing connection's counts in.
func (st *Commands) AddClosed(c Conn) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.init()
	for i := range c.Calls {
		st.calls[i] += c.Calls[i].Load()
		st.nanos[i] += c.Nanos[i].Load()
	}
	st.hits += c.Hits
	st.misses += c.Misses
	if st.lat == nil {
		st.lat = make([]*Counts, cmdtable.Count())
	}
	AddConn(st.lat, c.Latency, c.Calls, nil)
}

// Totals returns copies of the closed connections' calls and nanoseconds
// per command ID, and their hits and misses.
func (st *Commands) Totals() (calls, nanos []uint64, hits, misses int64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.init()
	return append([]uint64(nil), st.calls...), append([]uint64(nil), st.nanos...), st.hits, st.misses
}

// Refusals returns copies of the refused and failed calls per command ID.
func (st *Commands) Refusals() (rejected, failed []uint64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.init()
	return append([]uint64(nil), st.rejects...), append([]uint64(nil), st.fails...)
}

// ErrorCount is an error code's count (INFO errorstats).
type ErrorCount struct {
	Code  string
	Count uint64
}

// Errors returns the error codes counted, sorted.
func (st *Commands) Errors() []ErrorCount {
	st.mu.Lock()
	defer st.mu.Unlock()
	var codes []ErrorCount
	for c, n := range st.errs {
		codes = append(codes, ErrorCount{c, n})
	}
	sort.Slice(codes, func(i, j int) bool { return codes[i].Code < codes[j].Code })
	return codes
}

// ErrorTotal is the number of error replies counted.
func (st *Commands) ErrorTotal() uint64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	var total uint64
	for _, n := range st.errs {
		total += n
	}
	return total
}

// LatencyTotals returns copies of the closed connections' histograms by
// command ID (nil where a command has none), for the command IDs want
// selects (nil: all).
func (st *Commands) LatencyTotals(want []bool) []*Counts {
	out := make([]*Counts, cmdtable.Count())
	st.mu.Lock()
	defer st.mu.Unlock()
	for id, h := range st.lat {
		if h != nil && (want == nil || want[id]) {
			cp := *h
			out[id] = &cp
		}
	}
	return out
}

// Reset is CONFIG RESETSTAT's part.
func (st *Commands) Reset() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.init()
	clear(st.calls)
	clear(st.nanos)
	clear(st.rejects)
	clear(st.fails)
	clear(st.errs)
	st.hits, st.misses = 0, 0
	st.lat = nil // Redis frees the histograms: commands without calls since are not listed
}
