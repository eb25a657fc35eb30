package server

import (
	"fmt"
	"net"
	"os"
)

// Clients on the Unix socket (unixsocket, unixsocketperm).

// listenUnix listens on a Unix socket at path, replacing a stale socket
// file as Redis does, with the permissions perm (0: the umask's).
func (s *Server) listenUnix(path string, perm os.FileMode) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		os.Remove(path)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("Failed opening Unix socket: %w", err)
	}
	if perm != 0 {
		if err := os.Chmod(path, perm); err != nil {
			l.Close()
			return fmt.Errorf("Failed to set permissions on Unix socket %s: %w", path, err)
		}
	}
	s.listeners.add(kindUnix, l)
	return nil
}

// unix reports whether c came through the Unix socket.
func (c *client) unix() bool {
	_, ok := c.io.conn.LocalAddr().(*net.UnixAddr)
	return ok
}

// addr and laddr are the client's and the server's address as CLIENT LIST,
// CLIENT KILL and SLOWLOG show them: "ip:port", or for a Unix socket
// client (which has no address of its own) "<socket path>:0", as in Redis.
func (c *client) addr() string {
	if c.unix() {
		return c.laddr()
	}
	return c.io.conn.RemoteAddr().String()
}

func (c *client) laddr() string {
	if c.unix() {
		return c.io.conn.LocalAddr().String() + ":0"
	}
	return c.io.conn.LocalAddr().String()
}
