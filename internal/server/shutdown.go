package server

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
)

// Stopping, as Redis's prepareForShutdown and finishShutdown do: the log is
// written out and fsynced and the final snapshot saved (when save points are
// set, or SHUTDOWN SAVE asks) while no command runs; only if that worked
// does the server stop. A failure is logged, SHUTDOWN answers an error, a
// signal leaves the server running, and nothing is lost; FORCE (or force in
// shutdown-on-sigterm/sigint) logs it and stops anyway.
//
// "While no command runs" is every shard, regMu and the script gate held,
// as for a snapshot's instant. The final persistence done, done is set
// before they are released: a command that gets its locks after that
// (call, execLocked, runKeyless, a script) does not run and its client is
// closed unanswered, so no client is told of a write the files lack.

type shutdownState struct {
	mu   sync.Mutex  // one attempt at a time
	done atomic.Bool // the final persistence is done: nothing runs after it
	// asap is the SIGINT or SIGTERM received (Redis's shutdown_asap), by
	// its number, which the cron acts on; cleared when that fails or
	// SHUTDOWN ABORT drops it; 0: none.
	asap atomic.Int32

	stopOnce sync.Once
	stopped  chan struct{} // closed once the server has stopped (or gave up waiting for its clients)
	stopErr  error
}

// errShutdown is SHUTDOWN's answer when the final persistence failed.
const errShutdown = "ERR Errors trying to SHUTDOWN. Check logs."

// stopTimeout bounds how long a shutdown waits for its clients to stop.
const stopTimeout = 10 * time.Second

// finishShutdown makes the final persistence, as SHUTDOWN with flags asks,
// and reports whether the server may stop (false: it keeps running). Once
// it has reported true, it does nothing more and reports true again.
func (s *Server) finishShutdown(flags config.ShutdownFlags) bool {
	st := &s.shut
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done.Load() {
		return true
	}
	s.logf("notice", "User requested shutdown...")
	if s.loading.Load() {
		// As Redis: the data half loaded is not saved over the files it
		// comes from, and the log being read is not written.
		st.done.Store(true)
		return true
	}
	force := flags&config.ShutdownForce != 0
	save := flags&config.ShutdownSave != 0 || flags&config.ShutdownNoSave == 0 && len(s.Config().Save) > 0
	s.claimPersistence() // a BGSAVE or log rewrite running ends first
	start, base := time.Now(), s.dirty()
	g := s.gate.shared(0)
	s.ks.LockAll()
	s.regMu.Lock()
	release := func() {
		s.regMu.Unlock()
		s.ks.UnlockAll()
		g.RUnlock()
	}
	failed := false
	fail := func(what string) {
		if force {
			s.logf("warning", "%s. Exit anyway.", what)
			return
		}
		s.logf("warning", "%s, can't exit.", what)
		failed = true
	}
	if s.aof.TurningOn() { // turned on, and the rewrite writing its first base failed
		fail("The append only file turned on has no base yet")
	} else if a := s.aof.Load(); a != nil {
		s.logf("notice", "Calling fsync() on the AOF file.")
		if err := a.FlushAtExit(); err != nil {
			s.logf("warning", "Error writing the AOF file at shutdown: %v", err)
			fail("Error trying to write the append only file")
		}
	}
	if save && !failed {
		s.logf("notice", "Saving the final snapshot before exiting.")
		if keys, err := s.writeSnapshotHeld(s.snapshotPath()); err != nil {
			s.logf("warning", "Error saving DB on disk: %v", err)
			fail("Error trying to save the DB")
		} else {
			s.saved(base, keys, start)
		}
	}
	if failed {
		release()
		s.persist.running.Store(false)
		s.logf("warning", "Errors trying to shut down the server. Check the logs for more information.")
		return false
	}
	st.done.Store(true) // persist.running stays claimed: no save starts after the final one
	// Closed only now: a shutdown that failed after the log's flush (a
	// failed final save) goes on serving, and its writes must still reach
	// the log. Nothing was written since the flush: every lock is held.
	if a := s.aof.Load(); a != nil {
		a.Close()
	}
	release()
	return true
}

// stopping reports, once the final persistence is done, that the command
// about to run (its locks held) must not: its client is closed instead.
func (c *client) stopping() bool {
	if !c.s.shut.done.Load() {
		return false
	}
	c.io.closing = true
	return true
}

// teardown stops the server once finishShutdown reported true: no more
// connections, every client closed and waited for (up to ctx).
func (s *Server) teardown(ctx context.Context) error {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.closeListeners()
		s.clients.mu.Lock()
		for _, c := range s.clients.byID {
			c.closeConn()
		}
		s.clients.mu.Unlock()
		s.scripts.Abort() // a script in an endless loop would hold its client forever
	})
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		s.migrate.closeIdle(-1)
		s.releaseMemoryLimit()
		s.stopped(nil)
		return nil
	case <-ctx.Done():
		s.stopped(fmt.Errorf("clients did not stop in time: %w", ctx.Err()))
		return ctx.Err()
	}
}

// stopped ends Serve, with err if the clients did not stop.
func (s *Server) stopped(err error) {
	s.shut.stopOnce.Do(func() {
		if err == nil {
			s.logf("notice", "HotKV is now ready to exit, bye bye...")
		}
		s.shut.stopErr = err
		close(s.shut.stopped)
	})
}

// stopSoon tears the server down in the background, after a SHUTDOWN or a
// signal's final persistence.
func (s *Server) stopSoon() {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
		defer cancel()
		if err := s.teardown(ctx); err != nil {
			s.logf("warning", "Clients did not stop in time: %v", err)
		}
	}()
}

// Signal handles SIGINT or SIGTERM as Redis's signal handler does: the
// cron then shuts down as shutdown-on-sigint or shutdown-on-sigterm says.
// A SIGINT while that is pending or running is the user insisting: the
// temporary snapshot file is removed and Signal reports true, for the
// caller to exit at once with status 1.
func (s *Server) Signal(sig os.Signal) (exitNow bool) {
	n, ok := sig.(syscall.Signal)
	if !ok || n != syscall.SIGINT && n != syscall.SIGTERM {
		return false
	}
	if n == syscall.SIGINT && s.shut.asap.Load() != 0 {
		s.logf("warning", "You insist... exiting now.")
		os.Remove(tempSnapshot(s.snapshotPath()))
		return true
	}
	switch {
	case s.loading.Load():
		s.logf("warning", "Received shutdown signal during loading, scheduling shutdown.")
	case n == syscall.SIGINT:
		s.logf("warning", "Received SIGINT scheduling shutdown...")
	default:
		s.logf("warning", "Received SIGTERM scheduling shutdown...")
	}
	s.shut.asap.Store(int32(n))
	return false
}

// checkSignal is the cron's part: a signal received is acted on; if the
// final persistence fails, the server goes on (a later signal tries again).
func (s *Server) checkSignal() {
	sig := s.shut.asap.Load()
	if sig == 0 {
		return
	}
	if s.finishShutdown(s.Config().ShutdownOn(sig == int32(syscall.SIGINT))) {
		s.stopSoon()
		return
	}
	s.shut.asap.Store(0)
}

// abortShutdown is SHUTDOWN ABORT: a signal not yet acted on is dropped
// (Redis also aborts a shutdown waiting for its replicas; HotKV's does not
// wait). One being acted on is waited for: too late if it succeeded.
func (s *Server) abortShutdown() bool {
	s.shut.mu.Lock()
	defer s.shut.mu.Unlock()
	if s.shut.done.Load() || s.shut.asap.Swap(0) == 0 {
		return false
	}
	s.logf("notice", "Shutdown manually aborted.")
	return true
}

// shutdown is SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT], as Redis's:
// the server stops (the client gets no reply) or, its final persistence
// failed, answers an error and goes on. NOW has nothing to skip: HotKV
// does not wait for replicas.
func shutdown(x *cmdtable.Ctx) {
	c := cl(x)
	var flags config.ShutdownFlags
	abort := false
	for _, a := range x.Args[1:] {
		switch {
		case cmdtable.Is(a, "nosave"):
			flags |= config.ShutdownNoSave
		case cmdtable.Is(a, "save"):
			flags |= config.ShutdownSave
		case cmdtable.Is(a, "now"):
			flags |= config.ShutdownNow
		case cmdtable.Is(a, "force"):
			flags |= config.ShutdownForce
		case cmdtable.Is(a, "abort"):
			abort = true
		default:
			x.Error(cmdtable.ErrSyntax)
			return
		}
	}
	if abort && flags != 0 || flags&config.ShutdownSave != 0 && flags&config.ShutdownNoSave != 0 {
		x.Error(cmdtable.ErrSyntax)
		return
	}
	if abort {
		switch {
		case c.s.abortShutdown():
			x.W.OK()
		case !c.stopping(): // else the server is stopping: no reply
			x.Error("ERR No shutdown in progress.")
		}
		return
	}
	if c.s.scripts.Started() != 0 {
		// As Redis: past busy-reply-threshold, only SHUTDOWN NOSAVE stops
		// a script (before, HotKV's SHUTDOWN waits for it, as Redis's
		// waits its turn). NOSAVE stops the script at once, so that the
		// final persistence can run.
		switch msg := c.s.scripts.Busy(c.s.Config().BusyReplyThreshold()); {
		case flags&config.ShutdownNoSave != 0:
			c.s.scripts.Abort()
			defer func() {
				if !c.io.shutdown {
					c.s.scripts.Resume()
				}
			}()
		case msg != "":
			x.Error(msg)
			return
		}
	}
	if !c.s.finishShutdown(flags) {
		x.Error(errShutdown)
		return
	}
	c.io.closing, c.io.shutdown = true, true
}
