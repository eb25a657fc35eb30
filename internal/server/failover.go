package server

import (
	"strconv"
	"sync"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/repl"
)

// FAILOVER, Redis 6.2's coordinated failover: the master holds writes
// (pauseState.holdWrites), waits until a replica (the one named with TO, or
// any) has acknowledged everything, then becomes a replica of it, its
// first PSYNC asking it with FAILOVER to take over (repl.Handover); the
// replica's side is takeOver. Nothing written is lost on the way.
type failoverState struct {
	mu    sync.Mutex
	state string // "" (no-failover), waiting-for-sync, failover-in-progress
	end   int64  // unix ms the wait ends (TIMEOUT); 0: none
	force bool   // at the end, hand over to the target even if behind
	host  string // the target, "" until one has caught up when none was named
	port  int
}

const (
	failoverWaiting    = "waiting-for-sync"
	failoverInProgress = "failover-in-progress"
)

// setFailover records the state (mu held) for INFO.
func (s *Server) setFailover(state string) {
	s.failover.state = state
	if state == "" {
		s.repl.Stats.Failover.Store(nil)
	} else {
		s.repl.Stats.Failover.Store(&state)
	}
}

// failoverCmd is FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms].
func failoverCmd(x *cmdtable.Ctx) {
	s := cl(x).s
	f := &s.failover
	if len(x.Args) == 2 && cmdtable.Is(x.Args[1], "abort") {
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.state == "" {
			x.Error("ERR No failover in progress.")
			return
		}
		s.abortFailover("Failover manually aborted")
		x.W.OK()
		return
	}
	var timeout, port int64
	var host string
	force, to := false, false
	for j := 1; j < len(x.Args); j++ {
		switch a := x.Args[j]; {
		case cmdtable.Is(a, "timeout") && j+1 < len(x.Args) && timeout == 0:
			n, ok := cmdtable.ParseInt(x.Args[j+1])
			if !ok {
				x.Error(cmdtable.ErrNotInt)
				return
			}
			if n <= 0 {
				x.Error("ERR FAILOVER timeout must be greater than 0")
				return
			}
			timeout, j = n, j+1
		case cmdtable.Is(a, "to") && j+2 < len(x.Args) && !to:
			n, ok := cmdtable.ParseInt(x.Args[j+2])
			if !ok {
				x.Error(cmdtable.ErrNotInt)
				return
			}
			host, port, to, j = string(x.Args[j+1]), n, true, j+2
		case cmdtable.Is(a, "force") && !force:
			force = true
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case f.state != "":
		x.Error("ERR FAILOVER already in progress.")
		return
	case s.replicaFlag.Load():
		x.Error("ERR FAILOVER is not valid when server is a replica.")
		return
	case s.repl.Replicas() == 0:
		x.Error("ERR FAILOVER requires connected replicas.")
		return
	case force && (timeout == 0 || !to):
		x.Error("ERR FAILOVER with force option requires both a timeout and target HOST and IP.")
		return
	}
	if to {
		t, ok := s.repl.Target(host, int(port))
		if !ok {
			x.Error("ERR FAILOVER target HOST and PORT is not a replica.")
			return
		}
		if !t.Online {
			x.Error("ERR FAILOVER target replica is not online.")
			return
		}
		s.logf("notice", "FAILOVER requested to %s:%d.", host, port)
	} else {
		s.logf("notice", "FAILOVER requested to any replica.")
	}
	f.host, f.port, f.force, f.end = host, int(port), force, 0
	if timeout > 0 {
		f.end = time.Now().UnixMilli() + timeout
	}
	s.setFailover(failoverWaiting)
	s.pause.holdWrites(true)
	x.W.OK()
}

// updateFailover is the cron's part: once the target has caught up (or the
// time is out, with FORCE), the master hands over; out of time without
// FORCE, it gives up.
func (s *Server) updateFailover(now time.Time) {
	f := &s.failover
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.state != failoverWaiting {
		return
	}
	if f.end != 0 && now.UnixMilli() >= f.end {
		if !f.force {
			s.abortFailover("Replica never caught up before timeout")
			return
		}
		s.logf("notice", "FAILOVER to %s:%d time out exceeded, failing over.", f.host, f.port)
	} else if t, ok := s.repl.Target(f.host, f.port); !ok || !t.CaughtUp {
		return
	} else {
		f.host, f.port = t.IP, t.Port
		s.logf("notice", "Failover target %s:%d is synced, failing over.", f.host, f.port)
	}
	s.setFailover(failoverInProgress)
	s.upstream.HandOver(&repl.Handover{ID: s.repl.ID(), Off: s.repl.Offset(), Done: s.handedOver})
	s.replicaOf(f.host, f.port, false)
	s.setReplicaOfConfig(f.host, f.port)
}

// handedOver learns from the replication link whether the target took
// over; if not, this server is a master again.
func (s *Server) handedOver(accepted bool) {
	f := &s.failover
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.state != failoverInProgress {
		return
	}
	if !accepted {
		s.abortFailover("Failover target rejected psync request")
		return
	}
	s.clearFailover()
}

// abortFailover ends a failover that did not happen (f.mu held): a master
// that had started to follow its target is a master again.
func (s *Server) abortFailover(why string) {
	f := &s.failover
	target := "any replica"
	if f.host != "" {
		target = f.host + ":" + strconv.Itoa(f.port)
	}
	s.logf("notice", "FAILOVER to %s aborted: %s", target, why)
	if f.state == failoverInProgress {
		s.replicaOf("", 0, false)
		s.setReplicaOfConfig("", 0)
	}
	s.clearFailover()
}

// clearFailover forgets the failover and lets writes through (f.mu held).
func (s *Server) clearFailover() {
	f := &s.failover
	f.host, f.port, f.force, f.end = "", 0, false, 0
	s.setFailover("")
	s.pause.holdWrites(false)
}

// failingOver reports whether a FAILOVER is under way: REPLICAOF and SYNC
// wait for it to end.
func (s *Server) failingOver() bool {
	s.failover.mu.Lock()
	defer s.failover.mu.Unlock()
	return s.failover.state != ""
}

func init() {
	cmdtable.Register(&cmdtable.Cmd{Name: "failover", Arity: -1, Flags: cmdtable.Admin | cmdtable.NoScript | cmdtable.Stale,
		Run: failoverCmd, Group: "server", Since: "6.2.0", ACL: []string{"admin", "slow", "dangerous"},
		Summary: "Starts a coordinated failover from a server to one of its replicas.",
		Args:    "[TO host port [FORCE]] [ABORT] [TIMEOUT milliseconds]"})
}
