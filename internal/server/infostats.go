package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/hotkv/hotkv/internal/acl"
	"github.com/hotkv/hotkv/internal/pubsub"
	"github.com/hotkv/hotkv/internal/rdb"
)

// infoStats is INFO's stats section, Redis's fields in its order, then
// HotKV's recovered_panics and cross_protocol_disconnections. What HotKV has no mechanism for is what Redis
// shows without it: no fork (latest_fork_usec), no active defragmentation,
// no I/O threads, no timer resizing reply buffers, no expiry tracking of a
// writable replica's keys.
func (s *Server) infoStats(b *strings.Builder) {
	calls, nanos, hits, misses := s.commandTotals()
	in, out, reads, writes := s.netTotals()
	errs := s.stats.ErrorTotal()
	inKbps, outKbps, replInKbps, replOutKbps := s.stats.rates.NetKbps()
	rs := &s.repl.Stats
	replIn := rs.Received.Load() // the master's stream, read apart from clients
	cmdMicros := int64(sum(nanos) / 1e3)
	cycles, loopMicros, cyclesPerSec, cycleMicros := s.stats.rates.EventLoop(cmdMicros, reads)
	exp := &s.expirer.Stats
	kv(b, "total_connections_received", s.stats.connections.Load())
	kv(b, "total_commands_processed", sum(calls))
	kv(b, "instantaneous_ops_per_sec", s.stats.ops.Get())
	kv(b, "total_net_input_bytes", in+replIn)
	kv(b, "total_net_output_bytes", out)
	kv(b, "total_net_repl_input_bytes", replIn)
	kv(b, "total_net_repl_output_bytes", rs.SentBytes.Load())
	kv(b, "instantaneous_input_kbps", fmt.Sprintf("%.2f", inKbps))
	kv(b, "instantaneous_output_kbps", fmt.Sprintf("%.2f", outKbps))
	kv(b, "instantaneous_input_repl_kbps", fmt.Sprintf("%.2f", replInKbps))
	kv(b, "instantaneous_output_repl_kbps", fmt.Sprintf("%.2f", replOutKbps))
	kv(b, "rejected_connections", s.stats.refused.Load())
	kv(b, "sync_full", rs.Full.Load())
	kv(b, "sync_partial_ok", rs.PartialOK.Load())
	kv(b, "sync_partial_err", rs.PartialErr.Load())
	kv(b, "expired_subkeys", s.ks.Expiry.Subkeys.Load())
	kv(b, "expired_keys", s.ks.Expiry.Keys.Load())
	kv(b, "expired_stale_perc", fmt.Sprintf("%.2f", exp.StalePerc()))
	kv(b, "expired_time_cap_reached_count", exp.CapHits.Load())
	kv(b, "expire_cycle_cpu_milliseconds", exp.UsedMicro.Load()/1000)
	kv(b, "evicted_keys", s.ev.evicted.Load())
	kv(b, "evicted_clients", 0)
	kv(b, "evicted_scripts", 0)
	exceeded := s.ev.overTime.Load()
	current := int64(0)
	if t := s.ev.overNow.Load(); t != 0 {
		current = time.Now().UnixMilli() - t
	}
	kv(b, "total_eviction_exceeded_time", exceeded+current)
	kv(b, "current_eviction_exceeded_time", current)
	kv(b, "keyspace_hits", hits)
	kv(b, "keyspace_misses", misses)
	kv(b, "pubsub_channels", len(s.hub.Channels(pubsub.Channel, nil)))
	kv(b, "pubsub_patterns", s.hub.NumPat())
	kv(b, "pubsubshard_channels", len(s.hub.Channels(pubsub.Shard, nil)))
	kv(b, "latest_fork_usec", 0)
	kv(b, "total_forks", 0)
	kv(b, "migrate_cached_sockets", s.migrate.size())
	kv(b, "slave_expires_tracked_keys", 0)
	for _, k := range []string{"active_defrag_hits", "active_defrag_misses", "active_defrag_key_hits", "active_defrag_key_misses",
		"total_active_defrag_time", "current_active_defrag_time"} {
		kv(b, k, 0)
	}
	kv(b, "tracking_total_keys", s.track.Keys())
	kv(b, "tracking_total_items", s.track.Items())
	kv(b, "tracking_total_prefixes", s.track.Prefixes())
	kv(b, "unexpected_error_replies", s.stats.unexpectedErrors.Load())
	kv(b, "total_error_replies", errs)
	kv(b, "dump_payload_sanitizations", rdb.Sanitized.Load()-s.stats.sanitizedBase.Load())
	kv(b, "total_reads_processed", reads)
	kv(b, "total_writes_processed", writes)
	kv(b, "io_threaded_reads_processed", 0)
	kv(b, "io_threaded_writes_processed", 0)
	kv(b, "client_query_buffer_limit_disconnections", s.stats.qbufLimitDisconnections.Load())
	kv(b, "client_output_buffer_limit_disconnections", s.stats.obufLimitDisconnections.Load())
	kv(b, "reply_buffer_shrinks", 0)
	kv(b, "reply_buffer_expands", 0)
	kv(b, "eventloop_cycles", cycles)
	kv(b, "eventloop_duration_sum", loopMicros)
	kv(b, "eventloop_duration_cmd_sum", cmdMicros)
	kv(b, "instantaneous_eventloop_cycles_per_sec", cyclesPerSec)
	kv(b, "instantaneous_eventloop_duration_usec", cycleMicros)
	kv(b, "acl_access_denied_auth", s.acl.denied[acl.DeniedAuth].Load())
	kv(b, "acl_access_denied_cmd", s.acl.denied[acl.DeniedCmd].Load())
	kv(b, "acl_access_denied_key", s.acl.denied[acl.DeniedKey].Load())
	kv(b, "acl_access_denied_channel", s.acl.denied[acl.DeniedChannel].Load())
	kv(b, "recovered_panics", s.stats.panics.Load())
	kv(b, "cross_protocol_disconnections", s.stats.crossProtocol.Load())
}
