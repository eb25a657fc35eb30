package persistence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// runCheck runs the binary with args and returns its output (stdout and
// stderr) and exit code.
func runCheck(t *testing.T, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, harness.Binary(t), args...).CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return string(out), 0
}

// checkAOFDir makes an append-only directory as a server leaves it: a base
// snapshot holding keys written before a rewrite, an incremental log of 40
// writes after it, then SHUTDOWN. It returns the directory and the files
// its manifest names (base, then log).
func checkAOFDir(t *testing.T) (aofDir, base, log string) {
	t.Helper()
	dir := t.TempDir()
	p := harness.StartBinary(t, "--dir", dir, "--appendonly", "yes", "--save", "", "--loglevel", "warning")
	c := p.Client(t)
	ctx := context.Background()
	for i := range 10 {
		c.Set(ctx, fmt.Sprint("old", i), i, 0)
	}
	if err := c.Do(ctx, "BGREWRITEAOF").Err(); err != nil {
		t.Fatal(err)
	}
	aofAwaitRewrite(t, c)
	for i := range 40 {
		if err := c.Set(ctx, fmt.Sprint("new", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	(&harness.Server{Addr: p.Addr}).Raw(t).Send(harness.Req("SHUTDOWN")) // no reply: the server exits
	if code := p.Wait(t); code != 0 {
		t.Fatalf("SHUTDOWN: exit %d\n%s", code, p.Stderr)
	}
	aofDir = filepath.Join(dir, "appendonlydir")
	m, err := os.ReadFile(filepath.Join(aofDir, "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(m), "\n") {
		switch f := strings.Fields(line); {
		case len(f) == 6 && f[5] == "b":
			base = filepath.Join(aofDir, f[1])
		case len(f) == 6 && f[5] == "i":
			log = filepath.Join(aofDir, f[1])
		}
	}
	if base == "" || log == "" {
		t.Fatalf("manifest:\n%s", m)
	}
	return aofDir, base, log
}

// TestCheckAppendOnlyDir: hotkv --check verifies an append-only directory
// (given as the directory or its manifest) file by file in the manifest's
// order, with a verdict; each file alone checks as its kind.
func TestCheckAppendOnlyDir(t *testing.T) {
	harness.OutOfProcess(t)
	dir, base, log := checkAOFDir(t)
	manifest := filepath.Join(dir, "appendonly.aof.manifest")
	want := base + ": snapshot OK: 10 keys in "
	for _, target := range []string{dir, manifest} {
		out, code := runCheck(t, "--check", target)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], want) ||
			!strings.HasPrefix(lines[1], log+": append-only log OK: 40 commands in 40 records") ||
			lines[2] != manifest+": append-only directory OK: the 2 files it names are sound" {
			t.Fatalf("--check %s: exit %d\n%s", target, code, out)
		}
	}
	if out, code := runCheck(t, "--check", base); code != 0 || !strings.HasPrefix(out, want) {
		t.Fatalf("--check on the base snapshot: exit %d\n%s", code, out)
	}
	if out, code := runCheck(t, "--check", log); code != 0 || !strings.HasPrefix(out, log+": append-only log OK: 40 commands") {
		t.Fatalf("--check on the log: exit %d\n%s", code, out)
	}

	// A file the manifest names but the directory lacks is named.
	sound, _ := os.ReadFile(manifest)
	os.WriteFile(manifest, append(sound, "file appendonly.aof.99.incr.aof seq 99 type i\n"...), 0o644)
	missing := filepath.Join(dir, "appendonly.aof.99.incr.aof")
	if out, code := runCheck(t, "--check", dir); code == 0 || !strings.Contains(out, missing+": missing") ||
		!strings.Contains(out, "1 of the 3 files it names damaged or missing") {
		t.Fatalf("--check with a missing log: exit %d\n%s", code, out)
	}
	os.WriteFile(manifest, sound, 0o644)

	// A log where the manifest names a base fails, as loading it would.
	os.WriteFile(manifest, []byte(fmt.Sprintf("file %s seq 1 type b\n", filepath.Base(log))), 0o644)
	if out, code := runCheck(t, "--check", manifest); code == 0 || !strings.Contains(out, "an append-only log, not a snapshot") {
		t.Fatalf("--check with a log as base: exit %d\n%s", code, out)
	}
	os.WriteFile(manifest, sound, 0o644)

	// Not an append-only directory.
	if out, code := runCheck(t, "--check", filepath.Dir(dir)); code == 0 || !strings.Contains(out, "no manifest") ||
		!strings.Contains(out, dir+" is one") {
		t.Fatalf("--check on the data directory: exit %d\n%s", code, out)
	}
}

// TestCheckDamagedDir: damage in the directory's log is reported with the
// file and offset, as checking the file alone does; --check --fix on the
// directory cuts that last log there; damage in the base is refused.
func TestCheckDamagedDir(t *testing.T) {
	harness.OutOfProcess(t)
	dir, base, log := checkAOFDir(t)
	b, _ := os.ReadFile(log)
	b[len(b)/2] ^= 0xff
	os.WriteFile(log, b, 0o644)
	alone, code := runCheck(t, "--check", log)
	damage := regexp.MustCompile(`^` + regexp.QuoteMeta(log) + `: at offset \d+: [^\n]*checksum`).FindString(alone)
	if code == 0 || damage == "" {
		t.Fatalf("--check on the damaged log: exit %d\n%s", code, alone)
	}
	out, code := runCheck(t, "--check", dir)
	if code == 0 || !strings.Contains(out, base+": snapshot OK") || !strings.Contains(out, damage) ||
		!strings.Contains(out, "1 of the 2 files it names damaged or missing") {
		t.Fatalf("--check on the directory: exit %d\n%s", code, out)
	}

	var offset int64
	fmt.Sscanf(strings.TrimPrefix(damage, log+": "), "at offset %d:", &offset)
	out, code = runCheck(t, "--check", "--fix", dir)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("%s: cut at offset %d:", log, offset)) {
		t.Fatalf("--check --fix on the directory: exit %d\n%s", code, out)
	}
	if out, code := runCheck(t, "--check", dir); code != 0 {
		t.Fatalf("--check after --fix: exit %d\n%s", code, out)
	}
	if out, code := runCheck(t, "--check", "--fix", dir); code != 0 || !strings.Contains(out, "nothing to fix") {
		t.Fatalf("--check --fix on a sound directory: exit %d\n%s", code, out)
	}

	// A damaged base cannot be cut: refused, naming it, the file untouched.
	s, _ := os.ReadFile(base)
	s[len(s)-6] ^= 0xff
	os.WriteFile(base, s, 0o644)
	out, code = runCheck(t, "--check", "--fix", dir)
	if now, _ := os.ReadFile(base); code == 0 || !strings.Contains(out, "not fixed: "+base+" is damaged") || string(now) != string(s) {
		t.Fatalf("--check --fix with a damaged base: exit %d\n%s", code, out)
	}
	if out, code := runCheck(t, "--check", dir); code == 0 || !strings.Contains(out, base+": at offset") {
		t.Fatalf("--check with a damaged base: exit %d\n%s", code, out)
	}
}

// TestCheckUsage: --check without a file (or with too many) is a usage
// error, not a start-up with a bad configuration.
func TestCheckUsage(t *testing.T) {
	harness.OutOfProcess(t)
	for _, args := range [][]string{{"--check"}, {"--check", "--fix"}, {"--check", "a", "b"}, {"--check", "--fix", "a", "b"}} {
		out, code := runCheck(t, args...)
		if code == 0 || !strings.HasPrefix(out, "Usage: hotkv --check FILE|DIR") || !strings.Contains(out, "hotkv --check --fix FILE|DIR") {
			t.Fatalf("%q: exit %d\n%s", args, code, out)
		}
	}
}
