package script

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/hotkv/hotkv/internal/resp"
)

// Redis 7 functions (FUNCTION LOAD, FCALL). A library's code runs once, at
// load, in a fresh Lua state whose only globals are redis.register_function,
// redis.log and the version constants (as Redis's load run sees them); the
// functions it registers are closures that then run in the engine's state
// like scripts, with the full libraries. Loading in a state of its own
// means a load never waits for a running script, and a library's functions
// keep what its code left in their upvalues, as in Redis.

// Library is a loaded library. It does not change once loaded.
type Library struct {
	Name      string
	Code      string
	Functions []*Function // by name
	compiled  int         // the size of its compiled code (memory.go)
}

// Function is one of a library's functions.
type Function struct {
	Script  // Mode holds its flags (Declared always: a function is never run as a plain EVAL)
	Name    string
	Desc    string
	HasDesc bool // a description was given (FUNCTION LIST answers null otherwise)
	Lib     *Library
}

// libSet is a set of libraries and the functions they register, whose
// names are unique across the set, case-insensitively as Redis's.
type libSet struct {
	libs  map[string]*Library
	funcs map[string]*Function // by lower-cased name
}

func newLibSet() libSet {
	return libSet{libs: map[string]*Library{}, funcs: map[string]*Function{}}
}

// add links lib into the set: with replace, in place of a library of the
// same name (else that is an error); no function name may collide with
// another library's.
func (s *libSet) add(lib *Library, replace bool) error {
	old := s.libs[lib.Name]
	if old != nil && !replace {
		return errLibraryExists(lib.Name)
	}
	for _, f := range lib.Functions {
		if g := s.funcs[strings.ToLower(f.Name)]; g != nil && g.Lib != old {
			return errFunctionExists(f.Name)
		}
	}
	if old != nil {
		s.remove(old)
	}
	s.link(lib)
	return nil
}

// join adds every library of src, all or none, as FUNCTION RESTORE APPEND
// (or REPLACE: in place of libraries of the same names) does.
func (s *libSet) join(src libSet, replace bool) error {
	var replaced []*Library
	undo := func(err error) error {
		for _, l := range replaced {
			s.link(l)
		}
		return err
	}
	libs := src.sorted()
	for _, l := range libs {
		if old := s.libs[l.Name]; old != nil {
			if !replace {
				return undo(fmt.Errorf("ERR Library %s already exists", l.Name))
			}
			s.remove(old)
			replaced = append(replaced, old)
		}
	}
	for _, l := range libs {
		for _, f := range l.Functions {
			if s.funcs[strings.ToLower(f.Name)] != nil {
				return undo(errFunctionExists(f.Name))
			}
		}
	}
	for _, l := range libs {
		s.link(l)
	}
	return nil
}

func (s *libSet) link(lib *Library) {
	s.libs[lib.Name] = lib
	for _, f := range lib.Functions {
		s.funcs[strings.ToLower(f.Name)] = f
	}
}

func (s *libSet) remove(lib *Library) {
	delete(s.libs, lib.Name)
	for _, f := range lib.Functions {
		if s.funcs[strings.ToLower(f.Name)] == f {
			delete(s.funcs, strings.ToLower(f.Name))
		}
	}
}

// sorted lists the set's libraries by name.
func (s *libSet) sorted() []*Library {
	out := make([]*Library, 0, len(s.libs))
	for _, l := range s.libs {
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b *Library) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// LoadLibrary loads code for FUNCTION LOAD and returns the library's name,
// or Redis's error.
func (e *Engine) LoadLibrary(code []byte, replace bool) (string, error) {
	name, body, err := libraryMeta(string(code))
	if err != nil {
		return "", err
	}
	e.mu.Lock()
	exists := e.fns.libs[name] != nil
	e.mu.Unlock()
	if exists && !replace { // before running its code, as Redis checks
		return "", errLibraryExists(name)
	}
	lib, err := e.newLibrary(name, string(code), body)
	if err != nil {
		return "", err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return name, e.fns.add(lib, replace)
}

// libraryMeta reads a library's "#!<engine> name=<name>" first line as
// Redis does, and returns the name and the code after that line (from its
// newline, so that line numbers hold).
func libraryMeta(code string) (name, body string, err error) {
	if !strings.HasPrefix(code, "#!") {
		return "", "", errors.New("ERR Missing library metadata")
	}
	line, _, ok := strings.Cut(code, "\n")
	if !ok {
		return "", "", errBadMetadata
	}
	parts, ok := resp.SplitArgs([]byte(line), nil) // decodes in place: a copy
	if !ok || len(parts) == 0 {
		return "", "", errBadMetadata
	}
	found := false
	for _, p := range parts[1:] {
		if len(p) < 5 || !strings.EqualFold(string(p[:5]), "name=") {
			return "", "", fmt.Errorf("ERR Invalid metadata value given: %s", p)
		}
		if found {
			return "", "", errors.New("ERR Invalid metadata value, name argument was given multiple times")
		}
		name, found = string(p[5:]), true
	}
	if !found {
		return "", "", errors.New("ERR Library name was not given")
	}
	if !validName(name) {
		return "", "", errors.New(errBadName)
	}
	if engine := string(parts[0][2:]); !strings.EqualFold(engine, "lua") {
		return "", "", fmt.Errorf("ERR Engine '%s' not found", engine)
	}
	return name, code[len(line):], nil
}

// errBadName is Redis's error for a bad library name, and (sic) for a bad
// function name too.
const errBadName = "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !(c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// loadTimeout bounds the run of a library's code, as Redis's.
const loadTimeout = 500 * time.Millisecond

// newLibrary compiles and runs a library's code, collecting the functions
// it registers.
func (e *Engine) newLibrary(name, code, body string) (lib *Library, err error) {
	proto, err := compile(body, body, "user_function", "ERR Error compiling function:")
	if err != nil {
		return nil, err
	}
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	L := e.loadL
	if L == nil {
		L = newLState()
	}
	e.loadL = nil
	ctx, cancel := context.WithTimeout(context.Background(), loadTimeout)
	defer cancel()
	L.SetContext(ctx)
	defer func() {
		if p := recover(); p != nil { // a gopher-lua bug must not take the server down
			lib, err = nil, fmt.Errorf("ERR Error registering functions: ERR internal error in the Lua interpreter: %v", p)
		}
		if err != nil {
			L.Close()
			return
		}
		// Kept for the next load: a state's stacks are most of what a
		// load allocates (FUNCTION RESTORE of thousands of libraries).
		L.RemoveContext()
		e.loadL = L
	}()

	lib = &Library{Name: name, Code: code, compiled: protoBytes(proto)}
	loading := true
	// Sized as used: NewTable's room for 32 and 32 would stay with the
	// library for good.
	env, envMeta := L.CreateTable(0, 0), L.CreateTable(0, 3)
	e.mu.Lock() // a panic in a script replaces the state these come from (newState)
	refuse, fnBase := e.refuse, e.fnBase
	envMeta.RawSetString("__index", e.loadGlobals(L, func(L *lua.LState) int {
		if !loading { // kept in a variable and called from a function
			raise(L, "redis.register_function can only be called on FUNCTION LOAD command")
		}
		if msg := registerFunction(L, lib); msg != "" {
			L.Error(errorTable(L, "ERR "+msg), 0)
		}
		return 0
	}))
	e.mu.Unlock()
	envMeta.RawSetString("__newindex", refuse)
	envMeta.RawSetString("__metatable", lua.LFalse)
	L.SetMetatable(env, envMeta)
	fn := L.NewFunctionFromProto(proto)
	fn.Env = env
	L.Push(fn)
	if err := L.PCall(0, 0, nil); err != nil {
		msg := "ERR FUNCTION LOAD timeout"
		if ctx.Err() == nil {
			msg = loadError(err)
		}
		return nil, errors.New("ERR Error registering functions: " + msg)
	}
	loading = false
	if len(lib.Functions) == 0 {
		return nil, errors.New("ERR No functions registered")
	}
	// From now on its functions see the scripts' globals.
	envMeta.RawSetString("__index", fnBase)
	slices.SortStableFunc(lib.Functions, func(a, b *Function) int { return strings.Compare(a.Name, b.Name) })
	return lib, nil
}

// loadError is the message of an error raised while a library's code ran
// (no line: Redis's load has no error handler to add one).
func loadError(err error) string {
	if ae, ok := err.(*lua.ApiError); ok {
		if t, ok := ae.Object.(*lua.LTable); ok {
			if s, ok := t.RawGetString("err").(lua.LString); ok {
				return string(s)
			}
		}
		return "ERR " + lua.LVAsString(ae.Object)
	}
	return "ERR " + err.Error()
}

// loadGlobals are the globals a library's code runs with: a read-only redis
// table holding register_function, log and the version constants; any
// other name raises.
func (e *Engine) loadGlobals(L *lua.LState, register lua.LGFunction) *lua.LTable {
	r := L.CreateTable(0, 8)
	r.RawSetString("register_function", L.NewFunction(register))
	for _, name := range []string{"log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING", "REDIS_VERSION", "REDIS_VERSION_NUM"} {
		r.RawSetString(name, e.redis.RawGetString(name))
	}
	L.SetMetatable(r, e.missing)
	g := L.CreateTable(0, 1)
	g.RawSetString("redis", readOnly(L, r, e.refuse))
	L.SetMetatable(g, e.missing)
	return g
}

// registerFunction is redis.register_function(name, callback) or
// redis.register_function{function_name=..., callback=..., flags=...,
// description=...}; it returns Redis's error, if any.
func registerFunction(L *lua.LState, lib *Library) string {
	f := &Function{Lib: lib}
	f.Mode = Declared
	switch L.GetTop() {
	case 1:
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			return "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments)."
		}
		var msg string
		named := false
		each(t, func(k, v lua.LValue) { // in insertion order: the first bad argument is the same every time
			if msg == "" {
				msg = namedArg(f, &named, k, v)
			}
		})
		switch {
		case msg != "":
			return msg
		case !named:
			return "redis.register_function must get a function name argument"
		case f.fn == nil:
			return "redis.register_function must get a callback argument"
		}
	case 2:
		name, ok := luaString(L.Get(1))
		if !ok {
			return "first argument to redis.register_function must be a string"
		}
		fn, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			return "second argument to redis.register_function must be a function"
		}
		f.Name, f.fn = name, fn
	default:
		return "wrong number of arguments to redis.register_function"
	}
	if !validName(f.Name) {
		return strings.TrimPrefix(errBadName, "ERR ")
	}
	for _, g := range lib.Functions {
		if strings.EqualFold(g.Name, f.Name) { // Redis takes f and F, then fails an assertion deleting them
			return "Function already exists in the library"
		}
	}
	f.name = f.Name
	lib.Functions = append(lib.Functions, f)
	return ""
}

// namedArg takes one named argument of redis.register_function; named
// records that function_name was given.
func namedArg(f *Function, named *bool, k, v lua.LValue) string {
	key, ok := luaString(k)
	if !ok {
		return "named argument key given to redis.register_function is not a string"
	}
	switch strings.ToLower(key) {
	case "function_name":
		if f.Name, ok = luaString(v); !ok {
			return "function_name argument given to redis.register_function must be a string"
		}
		*named = true
	case "description":
		if f.Desc, ok = luaString(v); !ok {
			return "description argument given to redis.register_function must be a string"
		}
		f.HasDesc = true
	case "callback":
		if f.fn, ok = v.(*lua.LFunction); !ok {
			return "callback argument given to redis.register_function must be a function"
		}
	case "flags":
		t, ok := v.(*lua.LTable)
		if !ok {
			return "flags argument to redis.register_function must be a table representing function flags"
		}
		for i := 1; t.RawGetInt(i) != lua.LNil; i++ {
			s, ok := luaString(t.RawGetInt(i))
			m := flagMode(s, true)
			if !ok || m == 0 {
				return "unknown flag given"
			}
			f.Mode |= m
		}
	default:
		return "unknown argument given to redis.register_function"
	}
	return ""
}

// luaString is v as lua_isstring and lua_tostring see it: strings, and
// numbers in their string form.
func luaString(v lua.LValue) (string, bool) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		return v.String(), true
	}
	return "", false
}

// Function returns the function named name (case-insensitively), or nil.
func (e *Engine) Function(name []byte) *Function {
	e.mu.Lock()
	defer e.mu.Unlock()
	if f := e.fns.funcs[string(name)]; f != nil {
		return f
	}
	return e.fns.funcs[strings.ToLower(string(name))]
}

// Libraries lists the libraries by name.
func (e *Engine) Libraries() []*Library {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.fns.sorted()
}

// DeleteLibrary removes the library named name, reporting whether it was
// there.
func (e *Engine) DeleteLibrary(name []byte) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	lib := e.fns.libs[string(name)]
	if lib != nil {
		e.fns.remove(lib)
	}
	return lib != nil
}

// FlushFunctions removes every library, and reports the functions they
// held and about the bytes they took.
func (e *Engine) FlushFunctions() (funcs, bytes int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, l := range e.fns.libs {
		funcs += len(l.Functions)
		bytes += l.compiled + len(l.Code)
	}
	e.fns = newLibSet()
	return funcs, bytes
}

// Counts reports the scripts cached, the libraries loaded, their functions
// and the bytes of their code (INFO, FUNCTION STATS).
func (e *Engine) Counts() (scripts, libs, funcs, code int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, l := range e.fns.libs {
		funcs += len(l.Functions)
		code += len(l.Code)
	}
	return len(e.scripts), len(e.fns.libs), funcs, code
}
