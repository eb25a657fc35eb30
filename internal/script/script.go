// Package script runs Redis Lua scripts (EVAL, EVALSHA): the script cache,
// a sandboxed Lua 5.1 state (github.com/yuin/gopher-lua) with Redis's redis,
// cjson and bit libraries, and the conversions between RESP replies and Lua
// values that Redis documents. Running a command is the caller's business:
// Run takes a function that executes one and returns its raw reply.
package script

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/hotkv/hotkv/internal/resp"
)

// Version is what redis.REDIS_VERSION reports.
const (
	Version    = "8.0.2"
	VersionNum = 0x080002
)

// Caller is the connection a script runs for.
type Caller interface {
	// Call runs one command from the script and returns its reply as RESP
	// bytes in protocol proto (2, or 3 after redis.setresp(3)). It answers
	// refusals (unknown command, not allowed from scripts, writes in a
	// read-only script, ACL) as error replies too.
	Call(args [][]byte, proto int) []byte
	// MayRun is redis.acl_check_cmd: whether the connection's ACL user may
	// run args, or why the question is wrong (an unknown command, a wrong
	// number of arguments).
	MayRun(args [][]byte) (allowed bool, refusal string)
	// ErrorCounted says the error reply the script ends with is a
	// command's error a redis.call or redis.pcall met, already counted in
	// the error statistics (Redis's ignore_error_stats_update).
	ErrorCounted()
}

// Engine holds the script cache and the Lua state scripts run in, one at a
// time: a script is atomic, and its caller holds every lock anyway.
type Engine struct {
	mu      sync.Mutex
	L       *lua.LState
	env     *lua.LTable // the globals scripts run with (openLibs)
	base    *lua.LTable // behind env: _G, KEYS and ARGV
	onError *lua.LFunction
	lib     *lua.LTable    // the real globals
	refuse  *lua.LFunction // the read-only tables' __newindex
	missing *lua.LTable    // metatable raising on a name a table lacks
	redis   *lua.LTable    // the real redis library
	fnBase  *lua.LTable    // behind every library's globals: _G, then the real globals
	scripts map[string]*Script
	// compiled is the size of the cached scripts' compiled code (memory.go)
	compiled int
	fns      libSet // FUNCTION LOAD's libraries
	// loadL is the state a library's code runs in at load, kept from one
	// load to the next (successful) one; loadMu serialises the loads.
	loadMu  sync.Mutex
	loadL   *lua.LState
	rand    rand48 // math.random's state: the process's in Redis, kept across SCRIPT FLUSH
	running *run
	closed  bool // Abort: no more scripts
	// started is when the running script began (unix ns; 0: none), and
	// function whether it is a function's: read without mu by every
	// command, for BUSY (Busy).
	started  atomic.Int64
	function atomic.Bool
	cur      run // the run in progress, reused

	// redis.call's arguments, reused from call to call.
	args    [][]byte
	argBuf  []byte
	argEnds []int

	// ctx stops a script (SCRIPT KILL, shutdown). It is set in L once and
	// replaced only after a kill: a fresh one per script would cost
	// allocations and a channel each time.
	ctx    context.Context
	cancel context.CancelFunc
}

// run is the state of the script executing.
type run struct {
	call   Caller
	proto  int // redis.setresp
	sc     *Script
	cmd    [][]byte // the command running it, for FUNCTION STATS
	start  time.Time
	wrote  bool // it has written: SCRIPT KILL may no longer stop it
	killed bool
}

// New makes an engine with an empty script cache and no functions.
func New() *Engine {
	e := &Engine{scripts: map[string]*Script{}, fns: newLibSet(), rand: rand48{rand48Init}}
	e.newState()
	return e
}

// SHA1 is the script's name in the cache: its SHA-1, lower-case hex.
func SHA1(body []byte) string {
	h := sha1.Sum(body)
	return hex.EncodeToString(h[:])
}

// Script is a compiled script in the cache, or a library's function
// (Function).
type Script struct {
	SHA   string // its SHA-1, lower-case hex; "" for a function
	Mode  Mode   // what its shebang declares, or the function's flags
	name  string // what its errors and FUNCTION STATS call it: SHA, or the function's name
	proto *lua.FunctionProto
	fn    *lua.LFunction // made from proto by the first run
}

// Load compiles body into the cache (SCRIPT LOAD, EVAL) and returns it, or
// Redis's compile error.
func (e *Engine) Load(body []byte) (*Script, error) {
	h := sha1.Sum(body)
	var key [40]byte
	hex.Encode(key[:], h[:])
	e.mu.Lock()
	defer e.mu.Unlock()
	if sc := e.scripts[string(key[:])]; sc != nil { // no allocation for a cached script
		return sc, nil
	}
	mode, err := shebangMode(string(body))
	if err != nil {
		return nil, err
	}
	// As Redis does, the body becomes a function of no arguments (so '...'
	// is refused, and a call builds no vararg table); the wrapper shares the
	// first line, keeping line numbers.
	src := "return function() " + stripShebang(string(body)) + "\nend"
	proto, err := compile(string(body), src, "user_script", "ERR Error compiling script (new function):")
	if err != nil {
		return nil, err
	}
	if len(proto.FunctionPrototypes) != 1 {
		return nil, fmt.Errorf("ERR Error compiling script (new function): user_script: unexpected end of script")
	}
	sc := &Script{SHA: string(key[:]), Mode: mode, proto: proto.FunctionPrototypes[0]}
	sc.name = sc.SHA
	e.scripts[sc.SHA] = sc
	e.compiled += protoBytes(sc.proto)
	return sc, nil
}

// compile compiles src as the chunk named name, after checking body (the
// code as the user wrote it) for what would exhaust the compiler; errors
// read as Redis's, after prefix.
func compile(body, src, name, prefix string) (*lua.FunctionProto, error) {
	if line, msg := checkNesting(body); msg != "" {
		return nil, fmt.Errorf("%s %s:%d: %s", prefix, name, line, msg)
	}
	chunk, err := parse.Parse(strings.NewReader(src), name)
	if err == nil {
		var proto *lua.FunctionProto
		if proto, err = lua.Compile(chunk, name); err == nil {
			trimProto(proto)
			return proto, nil
		}
	}
	return nil, fmt.Errorf("%s %s", prefix, compileMessage(err))
}

// trimProto drops the spare capacity gopher-lua's compiler leaves in a
// prototype's slices (about 5 KB per function, however small): cached
// scripts and loaded libraries keep their prototypes for good.
func trimProto(p *lua.FunctionProto) {
	p.Code = slices.Clone(p.Code)
	p.Constants = slices.Clone(p.Constants)
	p.FunctionPrototypes = slices.Clone(p.FunctionPrototypes)
	p.DbgSourcePositions = slices.Clone(p.DbgSourcePositions)
	p.DbgLocals = slices.Clone(p.DbgLocals)
	p.DbgCalls = slices.Clone(p.DbgCalls)
	p.DbgUpvalues = slices.Clone(p.DbgUpvalues)
	for _, c := range p.FunctionPrototypes {
		trimProto(c)
	}
}

var parseErrRe = regexp.MustCompile(`^(user_script|user_function) line:(\d+)\(column:\d+\) (.*)$`)

// compileMessage puts gopher-lua's message in Lua's "user_script:line: ..." form.
func compileMessage(err error) string {
	msg := strings.TrimSpace(strings.SplitN(err.Error(), "\n", 2)[0])
	if m := parseErrRe.FindStringSubmatch(msg); m != nil {
		return m[1] + ":" + m[2] + ": " + m[3]
	}
	return msg
}

// stripShebang removes a "#!lua ..." first line (Redis 7 script flags),
// keeping the line count.
func stripShebang(src string) string {
	if !strings.HasPrefix(src, "#!") {
		return src
	}
	if i := strings.IndexByte(src, '\n'); i >= 0 {
		return src[i:]
	}
	return ""
}

// Mode is what a script's "#!lua flags=..." first line declares. As in
// Redis, a script with one runs by its flags instead of EVAL's: it may write
// unless no-writes, and is refused when memory is short unless no-writes or
// allow-oom.
type Mode uint8

const (
	Declared Mode = 1 << iota // it has a shebang line (a function always has)
	NoWrites
	AllowOOM
	AllowStale // allow-stale and the cluster flags change nothing here
	NoCluster
	AllowCrossSlot
)

// flagNames are the flags Redis knows, in its order (FUNCTION LIST's).
var flagNames = []struct {
	name string
	mode Mode
}{{"no-writes", NoWrites}, {"allow-oom", AllowOOM}, {"allow-stale", AllowStale}, {"no-cluster", NoCluster}, {"allow-cross-slot-keys", AllowCrossSlot}}

// flagMode is the flag named f, or 0. Redis compares a script's shebang
// flags exactly, a function's case-insensitively.
func flagMode(f string, nocase bool) Mode {
	for _, n := range flagNames {
		if n.name == f || nocase && strings.EqualFold(n.name, f) {
			return n.mode
		}
	}
	return 0
}

// Flags names the flags set in m, in Redis's order.
func (m Mode) Flags() []string {
	var out []string
	for _, n := range flagNames {
		if m&n.mode != 0 {
			out = append(out, n.name)
		}
	}
	return out
}

// shebangMode checks the shebang line as Redis does and returns its flags.
func shebangMode(body string) (Mode, error) {
	if !strings.HasPrefix(body, "#!") {
		return 0, nil
	}
	line, _, ok := strings.Cut(body, "\n")
	if !ok {
		return 0, errors.New("ERR Invalid script shebang")
	}
	parts := strings.Fields(line)
	if parts[0] != "#!lua" {
		return 0, fmt.Errorf("ERR Unexpected engine in script shebang: %s", parts[0])
	}
	mode := Declared
	for _, p := range parts[1:] {
		v, ok := strings.CutPrefix(p, "flags=")
		if !ok {
			return 0, fmt.Errorf("ERR Unknown lua shebang option: %s", p)
		}
		if v == "" {
			continue
		}
		for _, f := range strings.Split(v, ",") {
			m := flagMode(f, false)
			if m == 0 {
				return 0, fmt.Errorf("ERR Unexpected flag in script shebang: %s", f)
			}
			mode |= m
		}
	}
	return mode, nil
}

// ModeOf returns the mode of a script given by body (EVAL) or by SHA-1
// (EVALSHA), before it runs: cached, or read from body's shebang. A body
// whose shebang is malformed has mode 0 (its EVAL fails to load).
func (e *Engine) ModeOf(script []byte, sha bool) Mode {
	if sha {
		if sc := e.Lookup(script); sc != nil {
			return sc.Mode
		}
		return 0
	}
	m, _ := shebangMode(string(script))
	return m
}

// Lookup returns the cached script named sha (in lower or upper case), or nil.
func (e *Engine) Lookup(sha []byte) *Script {
	e.mu.Lock()
	defer e.mu.Unlock()
	if sc := e.scripts[string(sha)]; sc != nil || len(sha) != 40 {
		return sc
	}
	var low [40]byte
	for i, c := range sha {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return e.scripts[string(low[:])]
}

// Flush empties the cache, and reports the scripts it held and about the
// bytes they took.
func (e *Engine) Flush() (scripts, bytes int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	scripts, bytes = len(e.scripts), len(e.scripts)*scriptEntryBytes+e.compiled
	e.scripts = map[string]*Script{}
	e.compiled = 0
	return scripts, bytes
}

// Wrote records that the running script has written (SCRIPT KILL then
// refuses to stop it: the data set would keep half its effects).
func (e *Engine) Wrote() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.running != nil {
		e.running.wrote = true
	}
}

// Redis's answers to a script command while the other kind runs.
const (
	ErrBusyScript   = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	ErrBusyFunction = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
)

// Started is when the running script began (unix ns), 0 when none runs.
func (e *Engine) Started() int64 { return e.started.Load() }

// Busy is the BUSY error other clients' commands get while a script has
// run longer than threshold (busy-reply-threshold), as in Redis; "" if
// none has.
func (e *Engine) Busy(threshold time.Duration) string {
	st := e.started.Load()
	if st == 0 || time.Since(time.Unix(0, st)) < threshold {
		return ""
	}
	if e.function.Load() {
		return ErrBusyFunction
	}
	return ErrBusyScript
}

// Kill stops the running script for SCRIPT KILL (function false) or the
// running function for FUNCTION KILL, or says why not, with Redis's error.
func (e *Engine) Kill(function bool) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch r := e.running; {
	case r == nil:
		return "NOTBUSY No scripts in execution right now."
	case r.wrote:
		return "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
	case function && r.sc.SHA != "":
		return ErrBusyScript
	case !function && r.sc.SHA == "":
		return ErrBusyFunction
	default:
		r.killed = true
		e.cancel()
		return ""
	}
}

// Abort stops the running script, written or not, and refuses any later
// one: the server is shutting down, as SHUTDOWN NOSAVE may in Redis while a
// script is busy.
func (e *Engine) Abort() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	if r := e.running; r != nil {
		r.killed = true
		e.cancel()
	}
}

// Resume lets scripts run again after Abort: the shutdown it was for did
// not happen.
func (e *Engine) Resume() {
	e.mu.Lock()
	e.closed = false
	e.mu.Unlock()
}

// ErrNoScript is EVALSHA's answer for a script not in the cache.
const ErrNoScript = "NOSCRIPT No matching script. Please use EVAL."

// Running describes the script running, for FUNCTION STATS: its name (a
// function's, or the script's SHA-1), a copy of the command that runs it,
// and for how long it has. ok is false when none runs.
func (e *Engine) Running() (name string, function bool, cmd [][]byte, d time.Duration, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := e.running
	if r == nil {
		return "", false, nil, 0, false
	}
	for _, a := range r.cmd { // the caller's buffer: valid while the script runs
		cmd = append(cmd, append([]byte(nil), a...))
	}
	return r.sc.name, r.sc.SHA == "", cmd, time.Since(r.start), true
}

// Run executes the script sc (a function's: f.Script) with its keys and
// arguments, calling commands through call, and writes its result to w in
// w's protocol. cmd is the command running it, kept until Run returns.
func (e *Engine) Run(sc *Script, cmd, keys, argv [][]byte, call Caller, w *resp.Writer) {
	L := e.L
	function := sc.SHA == ""
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		w.Error("ERR the server is shutting down")
		return
	}
	if e.ctx.Err() != nil { // the last script was killed
		e.newContext()
	}
	r := &e.cur
	*r = run{call: call, proto: 2, sc: sc, cmd: cmd, start: time.Now()}
	e.running = r
	e.function.Store(function)
	e.started.Store(r.start.UnixNano())
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.running = nil
		e.started.Store(0)
		e.mu.Unlock()
	}()
	// A panic out of the VM (a gopher-lua limit its own guard missed) is a
	// bug, but must not leave the state half unwound: it becomes an error
	// reply, and scripts go on in a new state.
	defer func() {
		if p := recover(); p != nil {
			w.Error(fmt.Sprintf("ERR internal error in the Lua interpreter: %v", p))
			e.mu.Lock()
			e.newState()
			for _, s := range e.scripts {
				s.fn = nil
			}
			e.mu.Unlock()
		}
	}()

	L.SetTop(0)
	nargs := 0
	if function { // called as f(keys, args); KEYS and ARGV are not globals
		L.Push(sc.fn)
		L.Push(stringTable(L, keys))
		L.Push(stringTable(L, argv))
		nargs = 2
	} else {
		e.base.RawSetString("KEYS", stringTable(L, keys))
		e.base.RawSetString("ARGV", stringTable(L, argv))
		if sc.fn == nil { // scripts run one at a time: no race
			sc.fn = L.NewFunctionFromProto(sc.proto)
			sc.fn.Env = e.env
		}
		L.Push(sc.fn)
	}
	err := L.PCall(nargs, 1, e.onError)
	if err != nil {
		e.mu.Lock()
		killed := r.killed
		e.mu.Unlock()
		if killed { // keep the line the handler found, not the message
			t := errorTable(L, "ERR Script killed by user with SCRIPT KILL...")
			if ae, ok := err.(*lua.ApiError); ok {
				if h, ok := ae.Object.(*lua.LTable); ok {
					t.RawSetString("line", h.RawGetString("line"))
				}
			}
			err = &lua.ApiError{Object: t}
		}
		if writeError(w, err, sc.name, function) {
			call.ErrorCounted()
		}
		L.SetTop(0)
		return
	}
	if countedError(L.Get(-1)) {
		call.ErrorCounted()
	}
	writeValue(w, L.Get(-1), r.proto, 0)
	L.SetTop(0)
}

// newState makes the Lua state scripts run in.
func (e *Engine) newState() {
	e.L = newLState()
	e.openLibs()
	e.onError = e.L.NewFunction(errorHandler)
	e.newContext()
}

// newLState makes a bare Lua state. Its value stack starts at 1,024 slots
// (gopher-lua's default of 5,120 is 80 KB a state, far more than scripts
// use) and grows on demand up to regMax (as Lua's does: unpack of
// thousands of arguments works), so that overflowing it is a Lua error,
// not a panic.
func newLState() *lua.LState {
	return lua.NewState(lua.Options{SkipOpenLibs: true, RegistrySize: 1024, RegistryMaxSize: regMax, RegistryGrowStep: 4096})
}

const regMax = 1 << 20

// newContext gives L a fresh context to stop scripts with; under mu.
func (e *Engine) newContext() {
	e.ctx, e.cancel = context.WithCancel(context.Background())
	e.L.SetContext(e.ctx)
}

// stringTable makes a Lua array of the arguments.
func stringTable(L *lua.LState, args [][]byte) *lua.LTable {
	t := L.CreateTable(len(args), 0)
	for _, a := range args {
		t.Append(lua.LString(a))
	}
	return t
}

// errorHandler turns whatever a script raised into an error table that
// knows where it was raised: {err = "...", line = n}.
func errorHandler(L *lua.LState) int {
	obj := L.Get(1)
	t, ok := obj.(*lua.LTable)
	if !ok || t.RawGetString("err").Type() != lua.LTString {
		msg := lua.LVAsString(obj)
		if s, ok := obj.(*lua.LTable); ok && s != nil {
			msg = "ERR " + s.String()
		} else {
			msg = "ERR " + msg
		}
		t = L.CreateTable(0, 2)
		t.RawSetString("err", lua.LString(msg))
	}
	if t.RawGetString("line") == lua.LNil {
		if line := lineOf(L); line != "" {
			t.RawSetString("line", lua.LString(line))
		}
	}
	L.Push(t)
	return 1
}

var whereRe = regexp.MustCompile(`user_(?:script|function):(\d+):`)

// lineOf finds the script's line being run, from the innermost frame in
// the script.
func lineOf(L *lua.LState) string {
	for level := 1; level < 8; level++ {
		if m := whereRe.FindStringSubmatch(L.Where(level)); m != nil {
			return m[1]
		}
	}
	return ""
}

// countedError reports whether v is the error table of a command's error
// reply (reply.go marks them), which the error statistics have counted.
func countedError(v lua.LValue) bool {
	t, ok := v.(*lua.LTable)
	if !ok {
		return false
	}
	_, isErr := t.RawGetString("err").(lua.LString)
	return isErr && lua.LVAsBool(t.RawGetString("ignore_error_stats_update"))
}

// writeError answers a script's failure as Redis does:
// "<error> script: <sha>, on @user_script:<line>.", or for a function
// "<error> script: <name>, on @user_function:<line>.". It reports whether
// the error is a command's, already counted.
func writeError(w *resp.Writer, err error, name string, function bool) (counted bool) {
	msg, line := err.Error(), ""
	if ae, ok := err.(*lua.ApiError); ok {
		if t, ok := ae.Object.(*lua.LTable); ok {
			msg = lua.LVAsString(t.RawGetString("err"))
			line = lua.LVAsString(t.RawGetString("line"))
			counted = countedError(t)
		} else {
			msg = "ERR " + lua.LVAsString(ae.Object)
		}
	}
	msg = cString(msg) // as Redis's "-%s", which keeps a '-' the script gave
	if line == "" {
		if m := whereRe.FindStringSubmatch(err.Error()); m != nil {
			line = m[1]
		}
	}
	msg += " script: " + name
	if line != "" && function {
		msg += ", on @user_function:" + line + "."
	} else if line != "" {
		msg += ", on @user_script:" + line + "."
	}
	w.Error(strings.NewReplacer("\r", " ", "\n", " ").Replace(msg))
	return counted
}

// writeValue converts a script's result to a reply, as Redis's
// luaReplyToRedisReply: proto is the script's RESP version (redis.setresp),
// the reply is in w's.
func writeValue(w *resp.Writer, v lua.LValue, proto, depth int) {
	if depth > 1000 {
		w.Error("ERR reached lua stack limit")
		return
	}
	switch v := v.(type) {
	case lua.LString:
		w.BulkString(string(v))
	case lua.LBool:
		switch {
		case proto == 3:
			w.Bool(bool(v))
		case bool(v):
			w.Int(1)
		default:
			w.Null()
		}
	case lua.LNumber:
		w.Int(int64(v))
	case *lua.LTable:
		writeTable(w, v, proto, depth)
	default:
		w.Null()
	}
}

// writeTable converts a table: the first of the fields err, ok, double,
// big_number, verbatim_string, map and set it has (of the right type), else
// its array part up to the first nil. Like Redis, it reads err and ok as C
// strings, and keeps the replies on one line.
func writeTable(w *resp.Writer, t *lua.LTable, proto, depth int) {
	if e, ok := t.RawGetString("err").(lua.LString); ok {
		w.Error(strings.TrimRight(cString(string(e)), "\r\n"))
		return
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		w.Simple(oneLine.Replace(cString(string(s))))
		return
	}
	if d, ok := t.RawGetString("double").(lua.LNumber); ok {
		w.Double(float64(d))
		return
	}
	if s, ok := t.RawGetString("big_number").(lua.LString); ok {
		w.BigNum(oneLine.Replace(string(s)))
		return
	}
	if v, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		format, okf := v.RawGetString("format").(lua.LString)
		s, oks := v.RawGetString("string").(lua.LString)
		if okf && oks {
			w.VerbatimAs(cString(string(format)), string(s))
			return
		}
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		w.Map(count(m))
		each(m, func(k, v lua.LValue) {
			writeValue(w, k, proto, depth+1)
			writeValue(w, v, proto, depth+1)
		})
		return
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		w.Set(count(s))
		each(s, func(k, _ lua.LValue) { writeValue(w, k, proto, depth+1) })
		return
	}
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.Array(n)
	for i := 1; i <= n; i++ {
		writeValue(w, t.RawGetInt(i), proto, depth+1)
	}
}

var oneLine = strings.NewReplacer("\r", " ", "\n", " ")

// each visits t's entries in insertion order (lua_next's), so that a map
// comes back in the order it was read.
func each(t *lua.LTable, fn func(k, v lua.LValue)) {
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		fn(k, v)
	}
}

func count(t *lua.LTable) int {
	n := 0
	each(t, func(lua.LValue, lua.LValue) { n++ })
	return n
}

// callArgs converts redis.call's arguments: strings and numbers only. The
// result is valid until the next call (commands copy what they keep).
func (e *Engine) callArgs(L *lua.LState) ([][]byte, string) {
	n := L.GetTop()
	if n == 0 {
		return nil, "Please specify at least one argument for this redis lib call"
	}
	buf, ends := e.argBuf[:0], e.argEnds[:0]
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			buf = append(buf, v...)
		case lua.LNumber:
			// As Redis: integers in full (1000000, never 1e+06), other
			// numbers in the shortest form that reads back the same.
			if v == 0 {
				v = 0 // -0 too
			}
			buf = resp.AppendFloat(buf, float64(v))
		default:
			return nil, "Lua redis lib command arguments must be strings or integers"
		}
		ends = append(ends, len(buf))
	}
	args, start := e.args[:0], 0
	for _, end := range ends {
		args = append(args, buf[start:end:end])
		start = end
	}
	e.argBuf, e.argEnds, e.args = buf, ends, args
	return args, ""
}
