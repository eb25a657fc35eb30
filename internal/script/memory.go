package script

import (
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// What INFO's used_memory_vm_* and used_memory_scripts_eval report. The Lua
// state lives in Go's heap, where nothing tells its size, so these are
// estimates from what is known: the state's value and call stacks at their
// initial sizes, and the compiled code of each script and library (which
// Redis keeps in its Lua VMs), measured from the compiled prototypes.

const (
	valueBytes = int(unsafe.Sizeof(lua.LValue(nil)))
	frameBytes = 10 * 8 // gopher-lua's callFrame: ten words
)

// protoBytes is the size of a compiled function and those nested in it.
func protoBytes(p *lua.FunctionProto) int {
	n := int(unsafe.Sizeof(*p)) + 4*cap(p.Code) + valueBytes*cap(p.Constants) + 8*cap(p.DbgSourcePositions) +
		8*cap(p.FunctionPrototypes) + int(unsafe.Sizeof(lua.DbgCall{}))*cap(p.DbgCalls) + 16*cap(p.DbgUpvalues)
	for _, c := range p.Constants {
		if s, ok := c.(lua.LString); ok {
			n += len(s)
		}
	}
	for _, l := range p.DbgLocals {
		n += 8 + int(unsafe.Sizeof(*l)) + len(l.Name)
	}
	for _, c := range p.FunctionPrototypes {
		n += protoBytes(c)
	}
	return n
}

// scriptEntryBytes is a cached script's entry: its Script and map slot
// (key and pointer); its compiled code is counted with the state's.
const scriptEntryBytes = int(unsafe.Sizeof(Script{})) + 40 + 16 + 8

// Memory estimates the script cache's entries (used_memory_scripts_eval),
// the state scripts run in with their compiled code (used_memory_vm_eval)
// and the libraries' compiled code (used_memory_vm_functions: functions
// run in the same state, counted once, with the scripts).
func (e *Engine) Memory() (evalCache, evalVM, functionsVM int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, l := range e.fns.libs {
		functionsVM += l.compiled
	}
	o := &e.L.Options
	return len(e.scripts) * scriptEntryBytes, o.RegistrySize*valueBytes + o.CallStackSize*frameBytes + e.compiled, functionsVM
}
