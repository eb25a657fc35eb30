package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"

	"github.com/hotkv/hotkv/internal/config"
)

// The process around the server, as redis-server runs it: daemonize,
// pidfile and supervised (systemd's readiness notification, upstart's
// SIGSTOP).

// daemonChild marks the detached copy that daemonize starts.
const daemonChild = "HOTKV_DAEMONIZED"

// defaultPidFile is where a daemon without a pidfile setting writes its
// PID (Redis: /var/run/redis.pid).
const defaultPidFile = "/var/run/hotkv.pid"

// supervisor is how the server reports readiness: "systemd", "upstart" or
// "" (none), from the supervised setting and the environment, as Redis's
// redisIsSupervised decides.
func supervisor(cfg *config.Config) string {
	mode := cfg.Supervised
	if mode == "auto" {
		switch {
		case os.Getenv("UPSTART_JOB") != "":
			mode = "upstart"
		case os.Getenv("NOTIFY_SOCKET") != "":
			mode = "systemd"
		}
	}
	switch mode {
	case "systemd":
		if os.Getenv("NOTIFY_SOCKET") == "" {
			fmt.Fprintln(os.Stderr, "hotkv: systemd supervision requested or auto-detected, but NOTIFY_SOCKET is not set")
			return ""
		}
		return mode
	case "upstart":
		if os.Getenv("UPSTART_JOB") == "" {
			fmt.Fprintln(os.Stderr, "hotkv: upstart supervision requested, but UPSTART_JOB is not set")
			return ""
		}
		return mode
	}
	return ""
}

// daemonize starts this program again in a new session, detached from the
// terminal with its standard files on /dev/null, and reports whether this
// is the parent, which should exit at once as redis-server's parent does.
// The copy sees daemonChild in its environment and goes on as the server.
func daemonize() (parent bool, err error) {
	if os.Getenv(daemonChild) != "" {
		return false, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return false, err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return false, err
	}
	defer null.Close()
	p, err := os.StartProcess(exe, os.Args, &os.ProcAttr{
		Env:   append(os.Environ(), daemonChild+"=1"),
		Files: []*os.File{null, null, null},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return false, err
	}
	return true, p.Release()
}

// writePidFile writes the PID; like Redis, failing to is only a warning.
func writePidFile(path string) {
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "hotkv: failed to write PID file:", err)
	}
}

// notifyReady tells the supervisor the server accepts connections.
func notifyReady(mode string) {
	switch mode {
	case "systemd":
		sdNotify("STATUS=Ready to accept connections\nREADY=1\n")
	case "upstart":
		os.Unsetenv("UPSTART_JOB")
		syscall.Kill(os.Getpid(), syscall.SIGSTOP) // upstart's "expect stop"
	}
}

// sdNotify sends a state to systemd's NOTIFY_SOCKET ("@" names an
// abstract socket).
func sdNotify(state string) {
	path := os.Getenv("NOTIFY_SOCKET")
	if path == "" {
		return
	}
	if path[0] == '@' {
		path = "\x00" + path[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "hotkv: systemd notification:", err)
		return
	}
	defer conn.Close()
	conn.Write([]byte(state))
}
