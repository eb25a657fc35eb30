package server

import "sync/atomic"

// replStats are replication's INFO figures: as a master, syncs served and
// the bytes of snapshots and stream sent to replicas; as a replica, the
// bytes read from the master.
type replStats struct {
	full, partialOK, partialErr atomic.Int64
	sentBytes, received         atomic.Int64
}

func (st *replStats) reset() {
	st.full.Store(0)
	st.partialOK.Store(0)
	st.partialErr.Store(0)
	st.sentBytes.Store(0)
	st.received.Store(0)
}

// sent counts n bytes of replication written to replica c: in its
// connection's output, as Redis counts them in total_net_output_bytes, and
// in total_net_repl_output_bytes.
func (m *replMaster) sent(c *client, n int64) {
	c.netOut.Add(n)
	m.stats.sentBytes.Add(n)
}

// memory is the backlog's size and the replicas' output buffers' (INFO's
// mem_replication_backlog and mem_clients_slaves).
func (m *replMaster) memory() (backlog, replicas uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.replicas {
		replicas += uint64(cap(r.pending))
	}
	return uint64(len(m.backlog)), replicas
}
