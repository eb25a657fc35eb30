package script

import (
	"errors"
	"fmt"
)

// Error texts this package sends from more than one place (see the rule at
// the top of internal/cmdtable/errors.go).

// errBadMetadata is the error for a library whose "#!" line does not parse.
var errBadMetadata = errors.New("ERR Invalid library metadata")

// errLibraryExists is the error for loading a library under a name taken.
func errLibraryExists(name string) error {
	return fmt.Errorf("ERR Library '%s' already exists", name)
}

// errFunctionExists is the error for a function name another library has.
func errFunctionExists(name string) error {
	return fmt.Errorf("ERR Function %s already exists", name)
}
