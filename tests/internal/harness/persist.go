package harness

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// PersistKill ends the process at once, as a crash would.
func PersistKill(t *testing.T, p *Proc) {
	t.Helper()
	p.Cmd.Process.Signal(syscall.SIGKILL)
	p.Wait(t)
}

// PersistLogFile is the incremental log the server writes to in dir.
func PersistLogFile(t *testing.T, dir string) string {
	t.Helper()
	m, err := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for _, line := range strings.Split(string(m), "\n") {
		if f := strings.Fields(line); len(f) == 6 && f[5] == "i" {
			last = f[1]
		}
	}
	return filepath.Join(dir, "appendonlydir", last)
}

// PersistMustFail runs the binary to completion and returns its output; it
// must fail.
func PersistMustFail(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if err == nil {
		t.Fatalf("%v succeeded: %s", args, out)
	}
	return string(out)
}
