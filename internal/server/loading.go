package server

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
)

// Loading at start-up, as Redis does it: the addresses are opened first
// (Bind), then the data is loaded (Load) while Serve answers clients:
// commands Redis flags loading (INFO, PING, CONFIG, SHUTDOWN...) run, the
// others get errLoading. INFO persistence reports the progress.

const errLoading = "LOADING Redis is loading the dataset in memory"

// loadState is INFO persistence's loading_* fields, and key-load-delay.
type loadState struct {
	start  atomic.Int64 // unix seconds the load began
	total  atomic.Int64 // bytes of the files to load
	loaded atomic.Int64 // bytes read from them so far
	delay  atomic.Int64 // key-load-delay, microseconds
}

// deniedWhileLoading reports whether cmd must wait for the load to end:
// it is not flagged loading, or it is an EXEC with such a command queued
// (Redis's is_denyloading_command).
func (c *client) deniedWhileLoading(cmd *cmdtable.Cmd) bool {
	if cmd.Flags&cmdtable.Loading == 0 {
		return true
	}
	if cmd.Name == "exec" && c.tx.multi != nil {
		for _, q := range c.tx.multi.cmds {
			if q.cmd.Flags&cmdtable.Loading == 0 {
				return true
			}
		}
	}
	return false
}

// countingReader counts the bytes read through it into n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (r countingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.n.Add(int64(n))
	return n, err
}

// progress counts what is read from r as loaded, while loading at start-up.
func (s *Server) progress(r io.Reader, startup bool) io.Reader {
	if !startup || !s.loading.Load() {
		return r
	}
	return countingReader{r, &s.load.loaded}
}

// toLoad adds the sizes of the files at paths to the bytes to load.
func (s *Server) toLoad(paths ...string) {
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			s.load.total.Add(fi.Size())
		}
	}
}

// keyLoaded applies key-load-delay after a key (or a logged command) loaded
// at start-up (not to loads at run time), as Redis's debugDelay: a positive delay sleeps that many
// microseconds, a negative -N sleeps one microsecond once in N. The sleep
// ends early when the setting is lowered or the server stops, so a test
// can stall a load and then let it finish.
func (s *Server) keyLoaded() {
	d := s.load.delay.Load()
	if d == 0 || !s.loading.Load() {
		return
	}
	if d < 0 {
		if rand.Int64N(-d) == 0 {
			time.Sleep(time.Microsecond)
		}
		return
	}
	start := time.Now()
	for {
		left := time.Duration(d)*time.Microsecond - time.Since(start)
		if left <= 0 || isClosed(s.closed) {
			return
		}
		time.Sleep(min(left, 10*time.Millisecond))
		d = s.load.delay.Load()
	}
}

// infoLoading is the end of INFO persistence during a load, with Redis's
// fields and arithmetic (loading_rdb_used_mem is Redis's estimate for a
// load of unknown size, which HotKV never has: 0).
func (s *Server) infoLoading(b *strings.Builder) {
	total, loaded := s.load.total.Load(), s.load.loaded.Load()
	start := s.load.start.Load()
	perc, remaining := 0.0, int64(1)
	if total > 0 {
		perc = float64(loaded) / float64(total) * 100
		remaining = total - loaded
	}
	eta := int64(1) // Redis's figure before a second has passed
	if elapsed := time.Now().Unix() - start; elapsed > 0 {
		eta = elapsed * remaining / (loaded + 1)
	}
	kv(b, "loading_start_time", start)
	kv(b, "loading_total_bytes", total)
	kv(b, "loading_rdb_used_mem", 0)
	kv(b, "loading_loaded_bytes", loaded)
	kv(b, "loading_loaded_perc", fmt.Sprintf("%.2f", perc))
	kv(b, "loading_eta_seconds", eta)
}

// checkDir refuses a data directory that does not exist or is not a
// directory, as Redis refuses one it cannot chdir to, and, when save points
// or the append-only log will write there, one that cannot be written (Redis
// finds that out only at the first save, refusing writes from then on).
func checkDir(cfg *config.Config) error {
	fi, err := os.Stat(cfg.Dir)
	if err == nil && !fi.IsDir() {
		err = syscall.ENOTDIR
	}
	if err != nil {
		return fmt.Errorf("Can't chdir to '%s': %s", cfg.Dir, strerror(err))
	}
	if len(cfg.Save) == 0 && !cfg.AppendOnly {
		return nil
	}
	f, err := os.CreateTemp(cfg.Dir, ".hotkv-write-check-*")
	if err != nil {
		return fmt.Errorf("Can't write to the data directory '%s' (save points or appendonly write there): %s", cfg.Dir, strerror(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// strerror is err's system error as C's strerror words it ("No such file
// or directory"), or err itself.
func strerror(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	msg := errno.Error()
	return strings.ToUpper(msg[:1]) + msg[1:]
}
