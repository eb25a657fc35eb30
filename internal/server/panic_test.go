package server

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/internal/command"
	"github.com/hotkv/hotkv/internal/config"
)

// A handler that panics must not leave its shard locked: the client gets an
// error and is closed, the panic is counted, and the key stays usable.
func TestPanicReleasesShardLocks(t *testing.T) {
	command.Register(&command.Cmd{Name: "test-panic", Arity: 2, Flags: command.Write, First: 1, Last: 1, Step: 1,
		Run: func(*command.Ctx) { panic("boom") }})
	cfg := config.Default()
	cfg.Port, cfg.LogLevel = 0, "nothing"
	s := New(cfg)
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	defer s.Shutdown(context.Background())

	talk := func(cmds string) (string, net.Conn) {
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write([]byte(cmds))
		line, _ := bufio.NewReader(c).ReadString('\n')
		return line, c
	}
	line, c := talk("TEST-PANIC k\r\n")
	if line != "-ERR internal error\r\n" {
		t.Fatalf("panicking command answered %q", line)
	}
	if n, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatalf("connection stayed open after a panic (read %d bytes)", n)
	}
	c.Close()
	line, c = talk("SET k v\r\n")
	c.Close()
	if line != "+OK\r\n" {
		t.Fatalf("SET on the panicked command's key answered %q: shard still locked?", line)
	}
	var b strings.Builder
	s.infoSection(&b, "stats")
	if !strings.Contains(b.String(), "recovered_panics:1\r\n") {
		t.Fatalf("INFO stats does not count the panic:\n%s", b.String())
	}
}
