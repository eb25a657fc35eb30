package server

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"

	"github.com/hotkv/hotkv/internal/config"
)

// The sockets the server accepts clients on. CONFIG SET bind and port move
// the TCP ones (plain, and TLS for bind) while the server runs, as Redis's
// changeListener does, so the set changes under its own lock and each
// accept loop ends quietly when its listener is retired.

type listenKind uint8

const (
	kindTCP listenKind = iota
	kindTLS
	kindUnix
)

type listener struct {
	l    net.Listener
	kind listenKind
}

type listenerSet struct {
	mu      sync.Mutex
	all     []listener
	retire  map[net.Listener]bool // closed by a move: its accept loop returns nil
	serving *Server               // set by serve: listeners added later start accepting at once
	loops   sync.WaitGroup
	errMu   sync.Mutex
	err     error // the first accept loop that failed
}

func (ls *listenerSet) add(kind listenKind, l ...net.Listener) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for _, x := range l {
		ls.all = append(ls.all, listener{x, kind})
		if ls.serving != nil {
			ls.start(x)
		}
	}
}

func (ls *listenerSet) count() int {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return len(ls.all)
}

// first is the first listener's address, TCP ones first; nil if none.
func (ls *listenerSet) first() net.Addr {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if len(ls.all) == 0 {
		return nil
	}
	return ls.all[0].l.Addr()
}

func (ls *listenerSet) retired(l net.Listener) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.retire[l]
}

func (ls *listenerSet) closeAll() {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for _, x := range ls.all {
		x.l.Close()
	}
}

// start runs l's accept loop; mu is held.
func (ls *listenerSet) start(l net.Listener) {
	ls.loops.Add(1)
	go func() {
		defer ls.loops.Done()
		if err := ls.serving.accept(l); err != nil {
			ls.errMu.Lock()
			if ls.err == nil {
				ls.err = err
			}
			ls.errMu.Unlock()
		}
	}()
}

// serve accepts on every listener, and on those moved in later, until
// shutdown, and returns the first accept loop's error.
func (ls *listenerSet) serve(s *Server) error {
	ls.mu.Lock()
	ls.serving = s
	ls.loops.Add(1) // held until shutdown: the count never drops to 0 while listeners move
	for _, x := range ls.all {
		ls.start(x.l)
	}
	ls.mu.Unlock()
	<-s.closed
	ls.loops.Done()
	ls.loops.Wait()
	ls.errMu.Lock()
	defer ls.errMu.Unlock()
	return ls.err
}

// move replaces the listeners of kind with those open makes. The old ones
// close first, as in Redis (a new address may overlap an old one); if
// open fails, reopen gets the old addresses back and open's error is
// returned.
func (ls *listenerSet) move(kind listenKind, open, reopen func() ([]net.Listener, error)) error {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.serving != nil {
		select {
		case <-ls.serving.closed:
			return errors.New("the server is shutting down")
		default:
		}
	}
	var kept []listener
	for _, x := range ls.all {
		if x.kind != kind {
			kept = append(kept, x)
			continue
		}
		if ls.retire == nil {
			ls.retire = map[net.Listener]bool{}
		}
		ls.retire[x.l] = true
		x.l.Close()
	}
	l, err := open()
	if err != nil {
		var err2 error
		if l, err2 = reopen(); err2 != nil {
			err = fmt.Errorf("%w (and the old addresses could not be listened on again: %v)", err, err2)
		}
	}
	var moved []listener
	for _, x := range l {
		moved = append(moved, listener{x, kind})
		if ls.serving != nil {
			ls.start(x)
		}
	}
	// TCP first, so that Addr stays the plain port's.
	ls.all = append(kept, moved...)
	slices.SortStableFunc(ls.all, func(a, b listener) int { return int(a.kind) - int(b.kind) })
	return err
}

// rebind moves the server to the bind addresses and port of next (CONFIG
// SET bind, port) from those of prev: the plain TCP listeners, and the
// TLS ones when the addresses changed. The error is Redis's text for the
// setting that failed.
func (s *Server) rebind(prev, next *config.Config) error {
	oldPort := prev.Port
	if a, ok := s.Addr().(*net.TCPAddr); ok {
		oldPort = a.Port // the port 0 chose
	}
	if err := s.listeners.move(kindTCP,
		func() ([]net.Listener, error) { return s.listenTCP(next.Bind, next.Port) },
		func() ([]net.Listener, error) { return s.listenTCP(prev.Bind, oldPort) }); err != nil {
		s.logf("warning", "Failed to listen on %v port %d: %v", next.Bind, next.Port, err)
		if next.Port != prev.Port {
			return errors.New("Unable to listen on this port")
		}
		return errors.New("Failed to bind to specified addresses.")
	}
	if t := prev.TLS().Port; t != 0 && !slices.Equal(prev.Bind, next.Bind) {
		err := s.listeners.move(kindTLS,
			func() ([]net.Listener, error) { ls, err := s.listenTCP(next.Bind, t); return s.wrapTLS(ls), err },
			func() ([]net.Listener, error) { ls, err := s.listenTCP(prev.Bind, t); return s.wrapTLS(ls), err })
		if err != nil {
			s.logf("warning", "Failed to listen on %v TLS port %d: %v", next.Bind, t, err)
			s.listeners.move(kindTCP, // back where the TCP listeners were, as the setting is
				func() ([]net.Listener, error) { return s.listenTCP(prev.Bind, oldPort) },
				func() ([]net.Listener, error) { return nil, nil })
			return errors.New("Failed to bind to specified addresses.")
		}
	}
	return nil
}
