// Package target describes a server under test: its name, address,
// software and version, and, when it runs on this machine, its process
// (for CPU time and resident memory).
package target

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hotkv/hotkv/internal/bench/respclient"
	"github.com/hotkv/hotkv/internal/bench/sysinfo"
)

// Server is one server under test.
type Server struct {
	Name     string `json:"name"`
	Addr     string `json:"addr"`
	Software string `json:"software"` // hotkv, valkey, redis, ...
	Version  string `json:"version"`
	PID      int    `json:"pid,omitempty"` // set when the process is local and visible
	Engine   string `json:"engine,omitempty"`
}

// Parse reads "NAME=ADDR" or "ADDR" (the name is then the address).
func Parse(spec string) (name, addr string) {
	if n, a, ok := strings.Cut(spec, "="); ok {
		return n, a
	}
	return spec, spec
}

// Probe connects to addr and fills in what the server says about itself.
func Probe(name, addr string, timeout time.Duration) (*Server, error) {
	c, err := respclient.Dial(addr, timeout)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	s := &Server{Name: name, Addr: addr, Software: "unknown"}
	info, err := c.Info("server")
	if err != nil {
		return s, nil // INFO is optional (the null server has none)
	}
	switch {
	case info["hotkv_version"] != "":
		s.Software, s.Version = "hotkv", info["hotkv_version"]
	case info["valkey_version"] != "":
		s.Software, s.Version = "valkey", info["valkey_version"]
	case info["dragonfly_version"] != "":
		s.Software, s.Version = "dragonfly", info["dragonfly_version"]
	case info["redis_version"] != "":
		s.Software, s.Version = "redis", info["redis_version"]
	}
	if pid, err := strconv.Atoi(info["process_id"]); err == nil && isLoopback(addr) {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			s.PID = pid
		}
	}
	return s, nil
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CPU is the server process's CPU time in seconds, or -1 when not local.
func (s *Server) CPU() float64 {
	if s.PID == 0 {
		return -1
	}
	v, err := sysinfo.ProcCPU(s.PID)
	if err != nil {
		return -1
	}
	return v
}

// RSS is the server process's resident memory, or 0 when not local.
func (s *Server) RSS() int64 {
	if s.PID == 0 {
		return 0
	}
	v, _ := sysinfo.ProcRSS(s.PID)
	return v
}

// Label is the name with software and version, for tables.
func (s *Server) Label() string {
	if s.Version == "" || strings.Contains(strings.ToLower(s.Name), s.Version) {
		return s.Name
	}
	return s.Name + " " + s.Version
}
