package script

import (
	"errors"

	"github.com/hotkv/hotkv/internal/rdb"
)

// FUNCTION DUMP's payload is Redis's own: for each library the RDB opcode
// FUNCTION2 and its code as an RDB string, then DUMP's footer (the RDB
// version and Redis's CRC-64, package rdb). HotKV writes the code
// uncompressed and reads Redis's LZF-compressed strings too, so payloads
// move both ways between HotKV and Redis 7+. Snapshots keep the libraries
// in the same form.

const (
	opFunction2     = 245
	opFunctionPreGA = 246
)

// RestorePolicy is what FUNCTION RESTORE does with the libraries loaded.
type RestorePolicy uint8

const (
	RestoreAppend  RestorePolicy = iota // add them; a name taken fails the restore
	RestoreReplace                      // add them, replacing libraries of the same names
	RestoreFlush                        // replace every library
)

// DumpFunctions is FUNCTION DUMP's payload: every library, by name.
func (e *Engine) DumpFunctions() []byte {
	var b []byte
	for _, l := range e.Libraries() {
		b = append(b, opFunction2)
		b = rdb.AppendString(b, []byte(l.Code))
	}
	return rdb.Seal(b)
}

// RestoreFunctions loads the libraries of a FUNCTION DUMP payload, all or
// none, with Redis's errors.
func (e *Engine) RestoreFunctions(payload []byte, policy RestorePolicy) error {
	codes, err := parseDump(payload)
	if err != nil {
		return err
	}
	set := newLibSet()
	for _, code := range codes {
		name, body, err := libraryMeta(code)
		if err != nil {
			return err
		}
		if set.libs[name] != nil {
			return errLibraryExists(name)
		}
		lib, err := e.newLibrary(name, code, body)
		if err != nil {
			return err
		}
		if err := set.add(lib, false); err != nil {
			return err
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if policy == RestoreFlush {
		e.fns = set
		return nil
	}
	return e.fns.join(set, policy == RestoreReplace)
}

// parseDump checks a payload's footer and returns the libraries' code.
func parseDump(p []byte) ([]string, error) {
	if !rdb.Verify(p) {
		return nil, errors.New(rdb.ErrBadPayload)
	}
	var codes []string
	for b := p[:len(p)-10]; len(b) > 0; {
		switch b[0] {
		case opFunction2:
		case opFunctionPreGA:
			return nil, errors.New("ERR Pre-GA function format not supported")
		default:
			return nil, errors.New("ERR given type is not a function")
		}
		code, rest, ok := rdb.ReadString(b[1:])
		if !ok {
			return nil, errors.New("ERR Failed loading library payload")
		}
		codes = append(codes, string(code))
		b = rest
	}
	return codes, nil
}
