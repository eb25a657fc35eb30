// Command hotkv runs the HotKV server. Arguments follow redis-server: an
// optional config file, then "--directive value" overrides, e.g.
//
//	hotkv --port 7000 --requirepass secret
//	hotkv /etc/hotkv.conf --loglevel verbose
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/persist"
	"github.com/hotkv/hotkv/internal/server"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "--check" {
		os.Exit(check(os.Args[2]))
	}
	for _, a := range os.Args[1:] {
		switch a {
		case "-v", "--version":
			fmt.Printf("HotKV %s (Redis %s compatible)\n", server.Version, server.RedisVersion)
			return
		case "-h", "--help":
			fmt.Println("Usage: hotkv [/path/to/hotkv.conf] [--config FILE] [--directive value ...]")
			fmt.Println("       hotkv --check FILE   (verify a snapshot or append-only log file)")
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
	s := server.New(cfg)
	if err := s.Listen(); err != nil {
		fmt.Fprintln(os.Stderr, "hotkv:", err)
		os.Exit(1)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		select {
		case <-sig:
		case <-s.Done():
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "hotkv: clients did not stop in time:", err)
			os.Exit(1)
		}
	}()
	if err := s.Serve(); err != nil {
		fmt.Fprintln(os.Stderr, "hotkv:", err)
		os.Exit(1)
	}
}

// check verifies a snapshot or log file as redis-check-rdb/aof do, naming the
// offset of the first damage; the exit status is 0 only for a sound file.
func check(path string) int {
	msg, err := persist.CheckFile(path)
	if err != nil {
		fmt.Printf("%s: %v\n", path, err)
		return 1
	}
	fmt.Printf("%s: %s\n", path, msg)
	return 0
}
