package commands

import (
	"bytes"
	"strconv"

	"github.com/hotkv/hotkv/internal/cmdtable"
)

// What a write propagates to the append-only log and replicas, where that is
// not the command as sent (see cmdtable's doc.go): handlers record it through
// these helpers as they decide what to do, as Redis's alsoPropagate.

// replyUnchanged answers n (0, or LINSERT's -1) for a write that changed
// nothing: it logs nothing, and Redis's dirty counter does not move.
func replyUnchanged(x *cmdtable.Ctx, n int64) {
	x.NoEffects()
	x.W.Int(n)
}

// propagatePop records, for a pop that chose its key by what it found
// (BLPOP, BZPOPMIN, LMPOP, ZMPOP and their blocking forms), the plain pop of
// the key it served, with the number popped when counted (the *MPOP forms),
// as Redis propagates them: replayed, it finds the data found now. Only
// built when the server logs writes.
func propagatePop(x *cmdtable.Ctx, pop string, key []byte, n int, counted bool) {
	if !x.Logged {
		x.Rewrite()
		return
	}
	if counted {
		x.Propagate([]byte(pop), bytes.Clone(key), strconv.AppendInt(nil, int64(n), 10))
	} else {
		x.Propagate([]byte(pop), bytes.Clone(key))
	}
}

// sremBatch is how many members each SREM propagated for an SPOP removes,
// as Redis (several go as one transaction).
const sremBatch = 1024

// spopEffects collects the members an SPOP removes (it chose them at
// random) into the SREMs that remove the same ones, when logged.
type spopEffects struct {
	x       *cmdtable.Ctx
	key     []byte
	members [][]byte
}

func newSpopEffects(x *cmdtable.Ctx, key []byte) *spopEffects {
	if !x.Logged {
		x.Rewrite() // nothing to build: still, the pop changed the set
		return nil
	}
	return &spopEffects{x: x, key: bytes.Clone(key)}
}

// add records one popped member; m may be reused once add returns.
func (e *spopEffects) add(m []byte) {
	if e == nil {
		return
	}
	e.members = append(e.members, bytes.Clone(m))
	if len(e.members) == sremBatch {
		e.flush()
	}
}

// flush propagates the members collected so far as one SREM.
func (e *spopEffects) flush() {
	if e == nil || len(e.members) == 0 {
		return
	}
	e.x.Propagate(append([][]byte{[]byte("srem"), e.key}, e.members...)...)
	e.members = nil
}
