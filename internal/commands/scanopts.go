package commands

import (
	"math"

	"github.com/hotkv/hotkv/internal/cmdtable"
)

// scanOptions are the options of SCAN, HSCAN, SSCAN and ZSCAN.
type scanOptions struct {
	count    int
	pattern  []byte // nil matches everything
	typ      []byte // SCAN's TYPE; nil for any
	noValues bool   // HSCAN's NOVALUES
}

// Which scan command is parsing, for the options only some accept.
const (
	scanKeys = iota
	scanHash
	scanOther
)

// parseScanOptions parses the arguments after the cursor as Redis's
// scanGenericCommand does, replying with the error itself when they are bad.
func parseScanOptions(x *cmdtable.Ctx, args [][]byte, kind int) (o scanOptions, ok bool) {
	o.count = 10
	for i := 0; i < len(args); {
		a, more := args[i], len(args)-i >= 2
		switch {
		case cmdtable.Is(a, "count") && more:
			n, ok := cmdtable.ParseInt(args[i+1])
			if !ok {
				x.Error(cmdtable.ErrNotInt)
				return o, false
			}
			if n < 1 {
				x.Error(cmdtable.ErrSyntax)
				return o, false
			}
			o.count = int(min(n, math.MaxInt32))
			i += 2
		case cmdtable.Is(a, "match") && more:
			if o.pattern = args[i+1]; len(o.pattern) == 1 && o.pattern[0] == '*' {
				o.pattern = nil
			}
			i += 2
		case kind == scanKeys && cmdtable.Is(a, "type") && more:
			o.typ = args[i+1] // an unknown type matches nothing, as in Redis 8.0
			i += 2
		case cmdtable.Is(a, "novalues"):
			if kind != scanHash {
				x.Error("ERR NOVALUES option can only be used in HSCAN")
				return o, false
			}
			o.noValues = true
			i++
		default:
			x.Error(cmdtable.ErrSyntax)
			return o, false
		}
	}
	return o, true
}

// emptyScan is the reply to a scan of a missing key.
func emptyScan(x *cmdtable.Ctx) {
	x.W.Array(2)
	x.W.BulkString("0")
	x.W.Array(0)
}
