package repl

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/resp"
)

// Stats are replication's INFO figures: as a master, syncs served and
// the bytes of snapshots and stream sent to replicas; as a replica, the
// bytes read from the master.
type Stats struct {
	Full, PartialOK, PartialErr atomic.Int64
	SentBytes, Received         atomic.Int64
	// Failover is master_failover_state, which FAILOVER sets (nil:
	// no-failover), on the master and on the replica it becomes.
	Failover atomic.Pointer[string]
}

// failoverState is INFO's master_failover_state.
func (st *Stats) failoverState() string {
	if p := st.Failover.Load(); p != nil {
		return *p
	}
	return "no-failover"
}

// Reset zeroes them (CONFIG RESETSTAT).
func (st *Stats) Reset() {
	st.Full.Store(0)
	st.PartialOK.Store(0)
	st.PartialErr.Store(0)
	st.SentBytes.Store(0)
	st.Received.Store(0)
}

// sent counts n bytes of replication written to replica r: in its
// connection's output, as Redis counts them in total_net_output_bytes, and
// in total_net_repl_output_bytes.
func (m *Master) sent(r *Replica, n int64) {
	r.conn.Sent(n)
	m.Stats.SentBytes.Add(n)
}

// Memory is the backlog's size and the replicas' output buffers' (INFO's
// mem_replication_backlog and mem_clients_slaves).
func (m *Master) Memory() (backlog, replicas uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.replicas {
		replicas += uint64(cap(r.pending))
	}
	return uint64(len(m.backlog)), replicas
}

func kv(b *strings.Builder, k string, v any) { fmt.Fprintf(b, "%s:%v\r\n", k, v) }

// Info writes INFO's replication section on a master; replid2 and second
// are master_replid2 and second_repl_offset.
func (m *Master) Info(b *strings.Builder, replid2 string, second int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	kv(b, "role", "master")
	kv(b, "connected_slaves", m.countReplicas())
	i := 0
	now := time.Now().UnixMilli()
	for _, r := range m.replicas {
		if r.conf.RDBOnly {
			continue
		}
		kv(b, fmt.Sprintf("slave%d", i), fmt.Sprintf("ip=%s,port=%d,state=%s,offset=%d,lag=%d",
			r.ip, r.port, stateNames[r.state.Load()], r.ack.Load(), (now-r.ackTime.Load())/1000))
		i++
	}
	kv(b, "master_failover_state", m.Stats.failoverState())
	kv(b, "master_replid", m.host.ReplID())
	kv(b, "master_replid2", replid2)
	kv(b, "master_repl_offset", m.off)
	kv(b, "second_repl_offset", second)
	active := 0
	if m.backlog != nil {
		active = 1
	}
	kv(b, "repl_backlog_active", active)
	size := m.settings.BacklogSize
	if m.backlog != nil {
		size = int64(len(m.backlog))
	} else if size == 0 {
		size = m.host.Config().ReplMaster().BacklogSize
	}
	kv(b, "repl_backlog_size", size)
	first := int64(0)
	if m.backlog != nil {
		first = m.off - m.histLen + 1
	}
	kv(b, "repl_backlog_first_byte_offset", first)
	kv(b, "repl_backlog_histlen", m.histLen)
	kv(b, "rdb_keys_skipped", m.Skipped.Load()) // HotKV's: keys Redis cannot load from RDB files (in hotkv-snapshot only)
}

// Role writes ROLE's reply for a master.
func (m *Master) Role(w *resp.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var rs []*Replica
	for _, r := range m.replicas {
		if !r.conf.RDBOnly && r.state.Load() == stateOnline {
			rs = append(rs, r)
		}
	}
	w.Array(3)
	w.BulkString("master")
	w.Int(m.off)
	w.Array(len(rs))
	for _, r := range rs {
		w.Array(3)
		w.BulkString(r.ip)
		w.BulkString(strconv.Itoa(r.port))
		w.BulkString(strconv.FormatInt(r.ack.Load(), 10))
	}
}
