// Command hotkv runs the HotKV server. Arguments follow redis-server: an
// optional config file, then "--directive value" overrides, e.g.
//
//	hotkv --port 7000 --requirepass secret
//	hotkv /etc/hotkv.conf --loglevel verbose
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/persist"
	"github.com/hotkv/hotkv/internal/rdb"
	"github.com/hotkv/hotkv/internal/server"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "--check" {
		os.Exit(check(os.Args[2]))
	}
	if len(os.Args) == 4 && os.Args[1] == "--check" && os.Args[2] == "--fix" {
		os.Exit(fix(os.Args[3]))
	}
	for _, a := range os.Args[1:] {
		switch a {
		case "-v", "--version":
			fmt.Printf("HotKV %s (Redis %s compatible)\n", server.Version, server.RedisVersion)
			return
		case "-h", "--help":
			fmt.Println("Usage: hotkv [/path/to/hotkv.conf] [--config FILE] [--directive value ...]")
			fmt.Println("       hotkv --check FILE   (verify a snapshot or append-only log file)")
			fmt.Println("       hotkv --check --fix FILE   (cut a damaged log at its first bad record, keeping FILE.bak)")
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
	if err := s.Listen(); err != nil {
		fmt.Fprintln(os.Stderr, "hotkv:", err)
		os.Exit(1)
	}
	if pidFile != "" {
		writePidFile(pidFile)
		defer os.Remove(pidFile)
	}
	notifyReady(supervised)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		select {
		case <-sig:
		case <-s.Done():
		}
		if supervised == "systemd" {
			sdNotify("STOPPING=1\n")
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
	if f, err := os.Open(path); err == nil {
		var magic [9]byte
		n, _ := io.ReadFull(f, magic[:])
		if rdb.IsFile(magic[:n]) {
			f.Seek(0, io.SeekStart)
			defer f.Close()
			return checkRDB(path, f)
		}
		f.Close()
	}
	msg, err := persist.CheckFile(path)
	if err != nil {
		fmt.Printf("%s: %v\n", path, err)
		return 1
	}
	fmt.Printf("%s: %s\n", path, msg)
	return 0
}

// checkRDB verifies a Redis RDB file as HotKV would load it (every value
// decoded and validated), like redis-check-rdb.
func checkRDB(path string, f *os.File) int {
	st, err := rdb.ReadFile(f, time.Now().UnixMilli(), rdb.FileHandler{})
	if err != nil {
		fmt.Printf("%s: %v\n", path, err)
		return 1
	}
	sum := "no checksum"
	if st.Checksum {
		sum = "checksum OK"
	}
	fmt.Printf("%s: Redis RDB file OK: version %d, %d keys, %d bytes, %s\n", path, st.Version, st.Keys, st.Bytes, sum)
	return 0
}

// fix cuts a damaged log at its first bad record (redis-check-aof --fix);
// the flag is the user's consent, so it asks nothing but says what it cut.
func fix(path string) int {
	if later := laterLog(path); later != "" {
		fmt.Printf("%s: not the last log in its manifest (%s follows): cutting it would replay %s over a gap; restore the file from a backup\n", path, later, later)
		return 1
	}
	records, kept, dropped, err := persist.FixLog(path)
	switch {
	case err != nil:
		fmt.Printf("%s: %v\n", path, err)
		return 1
	case dropped == 0:
		fmt.Printf("%s: append-only log OK: %d records, %d bytes; nothing to fix\n", path, records, kept)
	default:
		fmt.Printf("%s: cut at offset %d: kept %d records (%d bytes), dropped %d bytes from the first bad record on; the original is in %s.bak\n",
			path, kept, records, kept, dropped, path)
	}
	return 0
}

// laterLog is the incremental log a manifest beside path names after it,
// "" if path is the last one (or no manifest names it).
func laterLog(path string) string {
	manifests, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.manifest"))
	for _, m := range manifests {
		b, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		var incrs []string
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) == 6 && f[5] == "i" {
				incrs = append(incrs, f[1])
			}
		}
		for i, name := range incrs {
			if name == filepath.Base(path) && i < len(incrs)-1 {
				return incrs[len(incrs)-1]
			}
		}
	}
	return ""
}
