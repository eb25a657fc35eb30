package server

import (
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
)

// CLIENT NO-TOUCH ON: the client's commands leave the access time (LRU) or
// counter (LFU) of the keys they name as they were, as Redis skips the
// update for such a client; TOUCH still touches, from a script too. The
// lookups themselves stay as they are (every read's path): the values are
// put back after the command, which costs only such a client.

type savedAccess struct {
	e      *keyspace.Entry
	access uint32
}

// saveAccess records the access of the keys cmd names (at positions keys of
// args), unless cmd is TOUCH or a script (each command it calls is saved
// for itself, and its TOUCH touches); restoreAccess puts them back.
func (c *client) saveAccess(cmd *cmdtable.Cmd, args [][]byte, keys []int) []savedAccess {
	if cmd.Name == "touch" || cmd.Flags&cmdtable.SelfLock != 0 {
		return nil
	}
	saved := c.noTouchSaved[:0]
	for _, p := range keys {
		if e := c.ctx.DB.Shard(keyspace.ShardIndex(args[p])).Get(args[p]); e != nil {
			saved = append(saved, savedAccess{e, e.Access()})
		}
	}
	c.noTouchSaved = saved
	return saved
}

func restoreAccess(saved []savedAccess) {
	for _, s := range saved {
		s.e.SetAccess(s.access)
	}
}
