// Package nullserver is a RESP server that does no work: it answers every
// request with +OK. Pointing the load generator at it measures the load
// generator's own ceiling.
package nullserver

import (
	"bytes"
	"net"
	"sync"

	"github.com/hotkv/hotkv/internal/bench/respclient"
)

// Server answers +OK to every multibulk request on its listener.
type Server struct {
	ln    net.Listener
	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// Listen starts serving on addr (e.g. "127.0.0.1:0").
func Listen(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, conns: map[net.Conn]struct{}{}}
	s.wg.Go(s.accept)
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the listener and every connection, and waits for them.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// Wait blocks until the listener is closed.
func (s *Server) Wait() { s.wg.Wait() }

func (s *Server) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Go(func() {
			serve(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			c.Close()
		})
	}
}

var oks = bytes.Repeat([]byte("+OK\r\n"), 1024)

// serve answers each batch of requests received in one read with one write.
func serve(c net.Conn) {
	r := respclient.NewReader(c, 64<<10, false)
	pending := 0
	for {
		if _, err := r.Skip(); err != nil {
			return // EOF, a closed connection and protocol errors alike
		}
		pending++
		if r.Buffered() {
			continue
		}
		for pending > 0 {
			n := min(pending, len(oks)/5)
			if _, err := c.Write(oks[:5*n]); err != nil {
				return
			}
			pending -= n
		}
	}
}
