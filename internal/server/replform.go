package server

import (
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
)

// replicaForm is the command replicas (Redis ones too) run to do what the
// logged args did at now: the logged command's own ReplForm (relative
// expiry made absolute, a blocking form without its timeout), or args as
// they are. nil: nothing to send.
func replicaForm(args [][]byte, now int64, st *config.ReplMaster) [][]byte {
	if len(args) < 2 {
		return args
	}
	cmd := cmdtable.Lookup(args[0])
	if cmd == nil || cmd.ReplForm == nil {
		return args
	}
	return cmd.ReplForm(args, cmdtable.ReplEnv{Now: now, LazyExpire: st.LazyExpire, LazyServerDel: st.LazyServerDel})
}
