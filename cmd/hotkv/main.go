// Command hotkv runs the HotKV server. Arguments follow redis-server: an
// optional config file, then "--directive value" overrides, e.g.
//
//	hotkv --port 7000 --requirepass secret
//	hotkv /etc/hotkv.conf --loglevel verbose
package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/server"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--check" {
		os.Exit(checkCmd(os.Args[2:]))
	}
	for _, a := range os.Args[1:] {
		switch a {
		case "-v", "--version":
			fmt.Printf("HotKV %s (Redis %s compatible)\n", server.Version, server.RedisVersion)
			return
		case "-h", "--help":
			fmt.Println("Usage: hotkv [/path/to/hotkv.conf] [--config FILE] [--directive value ...]")
			for _, u := range checkUsage {
				fmt.Println("       " + u)
			}
			fmt.Println("Examples: hotkv --port 7000; hotkv hotkv.conf --requirepass secret")
			fmt.Println("Directives: see docs/configuration.md")
			return
		}
	}
	cfg, err := config.FromArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	supervised := supervisor(cfg)
	pidFile := cfg.PidFile
	if cfg.Daemonize && supervised == "" { // a supervisor wants the process it started
		parent, err := daemonize()
		if err != nil {
			fmt.Fprintln(os.Stderr, "hotkv: daemonize:", err)
			os.Exit(1)
		}
		if parent {
			return
		}
		if pidFile == "" {
			pidFile = defaultPidFile
		}
	}
	s := server.New(cfg)
	// The addresses first, as Redis: a port in use fails before a long
	// load, and clients connecting during the load are answered (LOADING).
	if err := s.Bind(); err != nil {
		fmt.Fprintln(os.Stderr, "hotkv:", err)
		os.Exit(1)
	}
	if pidFile != "" {
		writePidFile(pidFile)
		defer os.Remove(pidFile)
	}
	go func() {
		if err := s.Load(); errors.Is(err, server.ErrStopped) {
			return // shut down during the load: never ready
		} else if err != nil {
			fmt.Fprintln(os.Stderr, "hotkv:", err)
			if pidFile != "" {
				os.Remove(pidFile)
			}
			os.Exit(1)
		}
		notifyReady(supervised)
	}()
	// A signal is the server's to act on, as shutdown-on-sigint and
	// shutdown-on-sigterm say: it may keep running if its final save fails.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for n := range sig {
			if s.Signal(n) {
				os.Exit(1) // a second SIGINT: the user insists
			}
		}
	}()
	go func() {
		<-s.Done()
		if supervised == "systemd" {
			sdNotify("STOPPING=1\n")
		}
	}()
	if err := s.Serve(); err != nil {
		fmt.Fprintln(os.Stderr, "hotkv:", err)
		os.Exit(1)
	}
}
