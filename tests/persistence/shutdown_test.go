package persistence

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Never lose data quietly (issue 24): a shutdown whose final save or log
// flush fails keeps the server running, as Redis's; the data directory is
// checked at start-up; the port is opened before the data is loaded, and
// clients are answered LOADING meanwhile. The cases mirror Redis 8.0.2's
// tests/unit/shutdown.tcl where it has them.

// waitLog waits until the log file at path contains line.
func waitLog(t *testing.T, path, line string) {
	t.Helper()
	harness.Eventually(t, "log line "+strconv.Quote(line), func() bool {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), line)
	})
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// blockSnapshot makes the final save fail as shutdown.tcl does: a
// directory where the snapshot file goes, so the rename fails.
func blockSnapshot(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "dump.rdb")
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// shutdown.tcl: "RDB save will be failed in shutdown", "SHUTDOWN will abort
// if rdb save failed on signal", "... on shutdown command", then nothing is
// lost once the directory is usable again.
func TestShutdownFailedSaveKeepsServing(t *testing.T) {
	harness.OutOfProcess(t)
	dir, logf := t.TempDir(), filepath.Join(t.TempDir(), "hotkv.log")
	p := harness.StartBinary(t, "--dir", dir, "--logfile", logf)
	r := (&harness.Server{Addr: p.Addr}).Raw(t)
	for i := range 20 {
		r.Expect(harness.Status("OK"), "SET", strconv.Itoa(i), strconv.Itoa(i))
	}
	blocker := blockSnapshot(t, dir)

	p.Cmd.Process.Signal(syscall.SIGINT)
	waitLog(t, logf, "Error trying to save the DB, can't exit.")
	waitLog(t, logf, "Errors trying to shut down the server. Check the logs for more information.")
	r.Expect(harness.Status("PONG"), "PING")

	r.Expect(harness.Err("ERR Errors trying to SHUTDOWN. Check logs."), "SHUTDOWN")
	r.Expect(harness.Status("PONG"), "PING")
	r.Expect(int64(20), "DBSIZE")

	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	r.Send(harness.Req("SHUTDOWN"))
	if code := p.Wait(t); code != 0 {
		t.Fatalf("exit code %d; log:\n%s", code, readLog(t, logf))
	}
	p = harness.StartBinary(t, "--dir", dir)
	(&harness.Server{Addr: p.Addr}).Raw(t).Expect(int64(20), "DBSIZE")
}

// With the append-only log on, a shutdown whose final save fails leaves the
// log open: writes acknowledged after it are on disk (here: a SIGKILL, then
// a restart from the log, keeps them).
func TestShutdownFailedSaveKeepsLogging(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	args := []string{"--dir", dir, "--appendonly", "yes", "--appendfsync", "always"}
	p := harness.StartBinary(t, args...)
	r := (&harness.Server{Addr: p.Addr}).Raw(t)
	r.Expect(harness.Status("OK"), "SET", "before", "1")
	blockSnapshot(t, dir)
	r.Expect(harness.Err("ERR Errors trying to SHUTDOWN. Check logs."), "SHUTDOWN")
	r.Expect(harness.Status("OK"), "SET", "after", "2")
	p.Cmd.Process.Kill()
	p.Wait(t)
	p = harness.StartBinary(t, args...)
	r = (&harness.Server{Addr: p.Addr}).Raw(t)
	r.Expect("1", "GET", "before")
	r.Expect("2", "GET", "after")
}

// shutdown.tcl: "SHUTDOWN can proceed if shutdown command was with nosave";
// FORCE goes on past the failed save.
func TestShutdownNoSaveOrForceStops(t *testing.T) {
	harness.OutOfProcess(t)
	for _, tc := range []struct {
		how, log string
	}{
		{"NOSAVE", "HotKV is now ready to exit, bye bye..."},
		{"FORCE", "Error trying to save the DB. Exit anyway."},
	} {
		t.Run(tc.how, func(t *testing.T) {
			dir, logf := t.TempDir(), filepath.Join(t.TempDir(), "hotkv.log")
			p := harness.StartBinary(t, "--dir", dir, "--logfile", logf)
			r := (&harness.Server{Addr: p.Addr}).Raw(t)
			r.Expect(harness.Status("OK"), "SET", "k", "v")
			blockSnapshot(t, dir)
			r.Send(harness.Req("SHUTDOWN", tc.how))
			if code := p.Wait(t); code != 0 {
				t.Fatalf("exit code %d", code)
			}
			log := readLog(t, logf)
			if !strings.Contains(log, tc.log) || strings.Contains(log, "can't exit") {
				t.Fatalf("log:\n%s", log)
			}
			if tc.how == "NOSAVE" && strings.Contains(log, "Saving the final snapshot") {
				t.Fatalf("NOSAVE saved:\n%s", log)
			}
		})
	}
}

// shutdown.tcl: "SHUTDOWN ABORT can cancel SIGTERM" (the cron, which acts
// on signals, paused meanwhile).
func TestShutdownAbortCancelsSignal(t *testing.T) {
	harness.OutOfProcess(t)
	logf := filepath.Join(t.TempDir(), "hotkv.log")
	p := harness.StartBinary(t, "--logfile", logf, "--enable-debug-command", "yes")
	r := (&harness.Server{Addr: p.Addr}).Raw(t)
	r.Expect(harness.Status("OK"), "DEBUG", "PAUSE-CRON", "1")
	p.Cmd.Process.Signal(syscall.SIGTERM)
	waitLog(t, logf, "Received SIGTERM scheduling shutdown...")
	r.Expect(harness.Status("OK"), "SHUTDOWN", "ABORT")
	waitLog(t, logf, "Shutdown manually aborted.")
	r.Expect(harness.Status("OK"), "DEBUG", "PAUSE-CRON", "0")
	r.Expect(harness.Status("PONG"), "PING")
	r.Expect(harness.Err("ERR No shutdown in progress."), "SHUTDOWN", "ABORT")
}

// A second SIGINT while the first is being acted on exits at once, with
// status 1, as Redis's "You insist... exiting now."
func TestShutdownSecondSigintExits(t *testing.T) {
	harness.OutOfProcess(t)
	logf := filepath.Join(t.TempDir(), "hotkv.log")
	p := harness.StartBinary(t, "--logfile", logf, "--enable-debug-command", "yes")
	r := (&harness.Server{Addr: p.Addr}).Raw(t)
	r.Expect(harness.Status("OK"), "DEBUG", "PAUSE-CRON", "1")
	p.Cmd.Process.Signal(syscall.SIGINT)
	waitLog(t, logf, "Received SIGINT scheduling shutdown...")
	p.Cmd.Process.Signal(syscall.SIGINT)
	if code := p.Wait(t); code != 1 {
		t.Fatalf("exit code %d", code)
	}
	waitLog(t, logf, "You insist... exiting now.")
}

// shutdown-on-sigterm and shutdown-on-sigint: Redis's values, together,
// from the command line, CONFIG SET and the configuration file.
func TestShutdownOnSignalSettings(t *testing.T) {
	t.Run("default keeps running", func(t *testing.T) {
		dir, logf := t.TempDir(), filepath.Join(t.TempDir(), "hotkv.log")
		p := harness.StartBinary(t, "--dir", dir, "--logfile", logf)
		blockSnapshot(t, dir)
		p.Cmd.Process.Signal(syscall.SIGTERM)
		waitLog(t, logf, "Error trying to save the DB, can't exit.")
		(&harness.Server{Addr: p.Addr}).Raw(t).Expect(harness.Status("PONG"), "PING")
	})
	t.Run("nosave", func(t *testing.T) {
		dir, logf := t.TempDir(), filepath.Join(t.TempDir(), "hotkv.log")
		p := harness.StartBinary(t, "--dir", dir, "--logfile", logf, "--shutdown-on-sigterm", "nosave")
		blockSnapshot(t, dir)
		p.Cmd.Process.Signal(syscall.SIGTERM)
		if code := p.Wait(t); code != 0 {
			t.Fatalf("exit code %d", code)
		}
		if log := readLog(t, logf); strings.Contains(log, "Saving the final snapshot") {
			t.Fatalf("saved:\n%s", log)
		}
	})
	t.Run("force now", func(t *testing.T) {
		dir, logf := t.TempDir(), filepath.Join(t.TempDir(), "hotkv.log")
		p := harness.StartBinary(t, "--dir", dir, "--logfile", logf)
		r := (&harness.Server{Addr: p.Addr}).Raw(t)
		r.Expect(harness.Status("OK"), "CONFIG", "SET", "shutdown-on-sigterm", "force NOW")
		r.Expect([]any{"shutdown-on-sigterm", "now force"}, "CONFIG", "GET", "shutdown-on-sigterm")
		blockSnapshot(t, dir)
		p.Cmd.Process.Signal(syscall.SIGTERM)
		if code := p.Wait(t); code != 0 {
			t.Fatalf("exit code %d", code)
		}
		waitLog(t, logf, "Error trying to save the DB. Exit anyway.")
	})
	t.Run("sigint save", func(t *testing.T) {
		dir := t.TempDir()
		conf := filepath.Join(dir, "hotkv.conf")
		os.WriteFile(conf, []byte("shutdown-on-sigint save\n"), 0o644)
		p := harness.StartBinary(t, conf, "--dir", dir, "--save", "")
		r := (&harness.Server{Addr: p.Addr}).Raw(t)
		r.Expect([]any{"shutdown-on-sigint", "save"}, "CONFIG", "GET", "shutdown-on-sigint")
		r.Expect(harness.Status("OK"), "SET", "k", "v")
		p.Cmd.Process.Signal(syscall.SIGINT)
		if code := p.Wait(t); code != 0 {
			t.Fatalf("exit code %d", code)
		}
		p = harness.StartBinary(t, "--dir", dir, "--save", "")
		(&harness.Server{Addr: p.Addr}).Raw(t).Expect("v", "GET", "k")
	})
	t.Run("rewrite", func(t *testing.T) {
		dir := t.TempDir()
		conf := filepath.Join(dir, "hotkv.conf")
		os.WriteFile(conf, []byte("port 0\n"), 0o644)
		s := harness.Start(t, "--config", conf)
		r := s.Raw(t)
		r.Expect(harness.Status("OK"), "CONFIG", "SET", "shutdown-on-sigterm", "nosave force now")
		r.Expect(harness.Err("ERR CONFIG SET failed (possibly related to argument 'shutdown-on-sigint') - shutdown options SAVE and NOSAVE can't be used simultaneously"),
			"CONFIG", "SET", "shutdown-on-sigint", "save nosave")
		r.Expect(harness.Status("OK"), "CONFIG", "REWRITE")
		if b, _ := os.ReadFile(conf); !strings.Contains(string(b), "\nshutdown-on-sigterm nosave now force\n") || strings.Contains(string(b), "shutdown-on-sigint") {
			t.Fatalf("rewritten:\n%s", b)
		}
	})
}

func TestDifferentialShutdownOnSignalSettings(t *testing.T) {
	var script [][]string
	for _, v := range []string{"nosave force now", "now default", "default", "FORCE", "save nosave", "now now", "", "x", "save x"} {
		script = append(script, []string{"CONFIG", "SET", "shutdown-on-sigterm", v}, []string{"CONFIG", "GET", "shutdown-on-sigterm"})
	}
	harness.Differ(t, script)
}

// A failed write of the append-only log at shutdown keeps the server
// running too (Redis only logs a failed fsync there and exits): here the
// file size limit (ulimit -f, whose signal Go's runtime ignores) makes the
// log's writes fail; once it is lifted, SHUTDOWN writes everything.
func TestShutdownFailedLogWriteKeepsServing(t *testing.T) {
	harness.OutOfProcess(t)
	dir, logf := t.TempDir(), filepath.Join(t.TempDir(), "hotkv.log")
	port := harness.FreePort(t)
	args := []string{"--dir", dir, "--save", "", "--appendonly", "yes", "--logfile", logf, "--port", strconv.Itoa(port)}
	p := &harness.Proc{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Done: make(chan error, 1)}
	p.Cmd = exec.Command("bash", append([]string{"-c", `ulimit -S -f 64 && exec "$0" "$@"`, harness.Binary(t)}, args...)...)
	if err := p.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.Done <- p.Cmd.Wait() }()
	t.Cleanup(func() {
		p.Cmd.Process.Kill()
		<-p.Done
	})
	harness.WaitPort(t, p.Addr)
	harness.WaitLoaded(t, p.Addr)
	r := (&harness.Server{Addr: p.Addr}).Raw(t)
	big := strings.Repeat("x", 100_000) // past the 64 KiB limit
	r.Do("SET", "big", big)             // OK, the write of its record failing (appendfsync everysec)
	waitLog(t, logf, "file too large")

	r.Expect(harness.Err("ERR Errors trying to SHUTDOWN. Check logs."), "SHUTDOWN")
	waitLog(t, logf, "Error trying to write the append only file, can't exit.")
	r.Expect(int64(len(big)), "STRLEN", "big")

	unlimited := unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}
	if err := unix.Prlimit(p.Cmd.Process.Pid, unix.RLIMIT_FSIZE, &unlimited, nil); err != nil {
		t.Fatal(err)
	}
	r.Send(harness.Req("SHUTDOWN"))
	if code := p.Wait(t); code != 0 {
		t.Fatalf("exit code %d; log:\n%s", code, readLog(t, logf))
	}
	p2 := harness.StartBinary(t, "--dir", dir, "--save", "", "--appendonly", "yes")
	(&harness.Server{Addr: p2.Addr}).Raw(t).Expect(int64(len(big)), "STRLEN", "big")
}

// A data directory that is missing or a file is refused at start-up, naming
// it, as Redis refuses one it cannot chdir to; one that cannot be written
// is refused when snapshots or the log would go there. Root writes through
// permission bits, so the unwritable case uses /sys, which not even root
// can create files in.
func TestStartRefusesUnusableDir(t *testing.T) {
	harness.OutOfProcess(t)
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, nil, 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dir", filepath.Join(tmp, "missing")}, "Can't chdir to '" + filepath.Join(tmp, "missing") + "': No such file or directory"},
		{[]string{"--dir", file, "--save", ""}, "Can't chdir to '" + file + "': Not a directory"},
		{[]string{"--dir", "/sys"}, "Can't write to the data directory '/sys' (save points or appendonly write there): Permission denied"},
		{[]string{"--dir", "/sys", "--save", "", "--appendonly", "yes"}, "Can't write to the data directory '/sys'"},
	} {
		if tc.args[1] == "/sys" {
			if f, err := os.CreateTemp("/sys", "probe"); err == nil {
				f.Close()
				os.Remove(f.Name())
				t.Log("/sys is writable here: the unwritable case is not checked")
				continue
			}
		}
		out := harness.PersistMustFail(t, harness.Binary(t), append(tc.args, "--port", strconv.Itoa(harness.FreePort(t)))...)
		if !strings.Contains(out, tc.want) {
			t.Errorf("%v: %s", tc.args, out)
		}
	}
	// Nothing to write: an unwritable directory is fine, as in Redis.
	if _, err := os.Stat("/sys"); err == nil {
		p := harness.StartBinary(t, "--dir", "/sys", "--save", "")
		(&harness.Server{Addr: p.Addr}).Raw(t).Expect(harness.Status("PONG"), "PING")
	}
}

// saveKeys leaves a snapshot of n keys k0... in dir.
func saveKeys(t *testing.T, dir string, n int) {
	t.Helper()
	p := harness.StartBinary(t, "--dir", dir)
	r := (&harness.Server{Addr: p.Addr}).Raw(t)
	for i := range n {
		r.Expect(harness.Status("OK"), "SET", "k"+strconv.Itoa(i), "v")
	}
	r.Send(harness.Req("SHUTDOWN"))
	if code := p.Wait(t); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// The port is opened before the data is loaded: one in use fails at once,
// not after the load.
func TestStartBindsBeforeLoading(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	saveKeys(t, dir, 10)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	out := harness.PersistMustFail(t, harness.Binary(t), "--dir", dir, "--port", port, "--bind", "127.0.0.1")
	if !strings.Contains(out, "address already in use") || strings.Contains(out, "DB loaded") {
		t.Fatalf("%s", out)
	}
}

// While loading, commands Redis flags loading run and the others get
// LOADING; INFO persistence shows the progress. key-load-delay stalls the
// load until CONFIG SET lowers it.
func TestLoadingAnswersLoading(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	saveKeys(t, dir, 3)
	fi, err := os.Stat(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	p := harness.StartBinaryLoading(t, "--dir", dir, "--key-load-delay", "1000000000")
	r := (&harness.Server{Addr: p.Addr}).Raw(t)
	loading := harness.Err("LOADING Redis is loading the dataset in memory")
	r.Expect(loading, "GET", "k0")
	r.Expect(loading, "PING")
	r.Expect(harness.Status("OK"), "MULTI")
	r.Expect(loading, "SET", "x", "1")
	r.Expect(harness.Err("EXECABORT Transaction discarded because of previous errors."), "EXEC")
	info := harness.InfoFields(t, r, "persistence")
	if info["loading"] != "1" || info["loading_total_bytes"] != strconv.FormatInt(fi.Size(), 10) || info["loading_start_time"] == "" ||
		info["loading_loaded_perc"] == "" || info["loading_eta_seconds"] == "" || info["loading_rdb_used_mem"] != "0" {
		t.Fatalf("INFO persistence while loading: %v", info)
	}
	if n, _ := strconv.ParseInt(info["loading_loaded_bytes"], 10, 64); n <= 0 || n > fi.Size() {
		t.Fatalf("loading_loaded_bytes %s of %d", info["loading_loaded_bytes"], fi.Size())
	}
	r.Expect(harness.Status("OK"), "CONFIG", "SET", "key-load-delay", "0")
	harness.Eventually(t, "the load to end", func() bool { return r.Do("GET", "k2") == "v" })
	info = harness.InfoFields(t, r, "persistence")
	if _, ok := info["loading_start_time"]; info["loading"] != "0" || ok {
		t.Fatalf("INFO persistence after the load: %v", info)
	}
	r.Expect(int64(3), "DBSIZE")
}

// A signal during the load stops the server without saving, as Redis's
// "Received shutdown signal during loading".
func TestLoadingSignalStopsWithoutSaving(t *testing.T) {
	harness.OutOfProcess(t)
	dir, logf := t.TempDir(), filepath.Join(t.TempDir(), "hotkv.log")
	saveKeys(t, dir, 3)
	before, _ := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	p := harness.StartBinaryLoading(t, "--dir", dir, "--key-load-delay", "1000000000", "--logfile", logf)
	r := (&harness.Server{Addr: p.Addr}).Raw(t)
	r.Expect(harness.Err("LOADING Redis is loading the dataset in memory"), "DBSIZE")
	p.Cmd.Process.Signal(syscall.SIGTERM)
	if code := p.Wait(t); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if log := readLog(t, logf); string(after) != string(before) || !strings.Contains(log, "Received shutdown signal during loading, scheduling shutdown.") {
		t.Fatalf("snapshot changed or log:\n%s", log)
	}
}

// The replies while loading, and INFO persistence's fields, are Redis's:
// both load the same Redis RDB file, held at its first keys by
// key-load-delay. Redis answers between keys, every 1024 bytes here, so
// its delay is half a second a key (10 seconds for the file) and the
// commands go in one batch, which it answers at once.
func TestDifferentialLoading(t *testing.T) {
	harness.OutOfProcess(t)
	bin := harness.RedisServerPath()
	if bin == "" {
		t.Skip("redis8-server not installed (run ../shared/peers/install.sh)")
	}
	rdbFile, err := os.ReadFile(rdbTestdata + "redis-8.0.2.rdb")
	if err != nil {
		t.Fatal(err)
	}
	redisDir, hotDir := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(redisDir, "dump.rdb"), rdbFile, 0o644)
	os.WriteFile(filepath.Join(hotDir, "dump.rdb"), rdbFile, 0o644)
	port := harness.FreePort(t)
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--dir", redisDir,
		"--key-load-delay", "500000", "--loading-process-events-interval-bytes", "1024")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	redisAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	harness.WaitPort(t, redisAddr)
	p := harness.StartBinaryLoading(t, "--dir", hotDir, "--save", "", "--key-load-delay", "1000000000")
	rr, hr := (&harness.Server{Addr: redisAddr}).Raw(t), (&harness.Server{Addr: p.Addr}).Raw(t)
	batch := [][]string{{"GET", "a"}, {"PING"}, {"DBSIZE"}, {"CONFIG", "GET", "appendonly"}, {"MULTI"}, {"SET", "x", "1"}, {"EXEC"}, {"INFO", "persistence"}}
	var all strings.Builder
	for _, c := range batch {
		all.WriteString(harness.Req(c...))
	}
	rr.Send(all.String())
	hr.Send(all.String())
	var rinfo, hinfo string
	for _, c := range batch {
		want, got := rr.Read(), hr.Read()
		if c[0] == "INFO" {
			rinfo, _ = want.(string)
			hinfo, _ = got.(string)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q while loading: HotKV %#v, Redis %#v", c, got, want)
		}
	}
	fields := func(txt string) map[string]string {
		m := map[string]string{}
		for _, line := range strings.Split(txt, "\r\n") {
			if k, v, ok := strings.Cut(line, ":"); ok {
				m[k] = v
			}
		}
		return m
	}
	want, got := fields(rinfo), fields(hinfo)
	if want["loading"] != "1" {
		t.Fatalf("Redis is not loading: %v", want)
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			t.Errorf("INFO persistence while loading: HotKV lacks %s", k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("INFO persistence while loading: Redis lacks %s", k)
		}
	}
	if got["loading"] != "1" || got["loading_total_bytes"] != want["loading_total_bytes"] {
		t.Errorf("loading %s of %s bytes, Redis %s of %s", got["loading"], got["loading_total_bytes"], want["loading"], want["loading_total_bytes"])
	}
}

// Every write acknowledged before SHUTDOWN is in the files it leaves,
// while clients keep writing through it: the final save and the log's
// flush run while no command does, and nothing runs after them. In
// process, so that the race detector sees the shutdown.
func TestShutdownKeepsEveryAcknowledgedWrite(t *testing.T) {
	for _, mode := range [][]string{{"--save", "3600 1"}, {"--save", "", "--appendonly", "yes"}} {
		t.Run(mode[len(mode)-1], func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"--dir", dir}, mode...)
			s := harness.Start(t, args...)
			const writers = 8
			acked := make([]atomic.Int64, writers)
			done := make(chan struct{}, writers)
			for i := range writers {
				conn, err := net.Dial("tcp", s.Addr)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { conn.Close() })
				go func() {
					defer func() { done <- struct{}{} }()
					br := bufio.NewReader(conn)
					incr := harness.Req("INCR", "w"+strconv.Itoa(i))
					for {
						conn.SetDeadline(time.Now().Add(10 * time.Second))
						if _, err := conn.Write([]byte(incr)); err != nil {
							return
						}
						v, err := harness.ReadReply(br)
						n, ok := v.(int64)
						if err != nil || !ok {
							return
						}
						acked[i].Store(n)
					}
				}()
			}
			harness.Eventually(t, "writes acknowledged", func() bool {
				for i := range acked {
					if acked[i].Load() < 50 {
						return false
					}
				}
				return true
			})
			s.Raw(t).Send(harness.Req("SHUTDOWN"))
			for range writers {
				<-done
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := s.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			r2 := harness.Start(t, args...).Raw(t)
			for i := range acked {
				n := acked[i].Load()
				got, _ := strconv.ParseInt(fmt.Sprint(r2.Do("GET", "w"+strconv.Itoa(i))), 10, 64)
				if got < n {
					t.Errorf("writer %d: %d acknowledged, %d kept", i, n, got)
				}
			}
		})
	}
}
