package admin

import (
	"errors"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/resp"
)

// fake is a server whose CONFIG SET refuses with err after building the
// new settings, and whose cached clock stands still at time.
type fake struct {
	Server // methods a test does not use panic
	cfg    *config.Config
	err    error
	built  *config.Config
	time   int64
}

func (f *fake) Admin() Server              { return f }
func (f *fake) Config() *config.Config     { return f.cfg }
func (f *fake) MayDo(string) bool          { return true }
func (f *fake) CachedTime(now int64) int64 { return f.time }
func (f *fake) SetConfig(build func(*config.Config) error) error {
	next := f.cfg.Clone()
	if err := build(next); err != nil {
		return err
	}
	f.built = next
	return f.err
}

func run(f *fake, args ...string) string {
	x := &cmdtable.Ctx{W: &resp.Writer{Proto: 2}, Conn: f}
	for _, a := range args {
		x.Args = append(x.Args, []byte(a))
	}
	c := cmdtable.Lookup(x.Args[0])
	if len(args) > 1 && c.Subs != nil {
		c = c.Sub(x.Args[1])
	}
	c.Run(x)
	return string(x.W.B)
}

// A change the server cannot make is reported against the argument of the
// setting that failed, in the words Redis uses for it.
func TestConfigSetApplyError(t *testing.T) {
	for _, tc := range []struct {
		param string
		err   error
		want  string
	}{
		{"appendonly", errors.New("disk full"), "-ERR CONFIG SET failed (possibly related to argument 'AppendOnly') - Unable to turn on AOF. Check server logs.\r\n"},
		{"tls-*", errors.New("no cert"), "-ERR CONFIG SET failed (possibly related to argument 'tls-ciphers') - Unable to update TLS configuration: no cert\r\n"},
		{"port", errors.New("address in use"), "-ERR CONFIG SET failed (possibly related to argument 'maxmemory') - address in use\r\n"},
	} {
		f := &fake{cfg: config.Default(), err: &ApplyError{Param: tc.param, Err: tc.err}}
		got := run(f, "config", "set", "maxmemory", "100", "tls-ciphers", "x", "AppendOnly", "yes")
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.param, got, tc.want)
		}
	}
}

// Values are set on the copy the server is handed; a bad one is reported
// against its own argument and nothing is applied.
func TestConfigSetBuild(t *testing.T) {
	f := &fake{cfg: config.Default()}
	if got := run(f, "config", "set", "maxmemory", "100", "appendonly", "yes"); got != "+OK\r\n" {
		t.Fatalf("got %q", got)
	}
	if f.built.MaxMemory != 100 || !f.built.AppendOnly || f.cfg.MaxMemory != 0 {
		t.Fatalf("built %d %v, current %d", f.built.MaxMemory, f.built.AppendOnly, f.cfg.MaxMemory)
	}
	f.built = nil
	got := run(f, "config", "set", "maxmemory", "100", "appendonly", "maybe")
	if !strings.HasPrefix(got, "-ERR CONFIG SET failed (possibly related to argument 'appendonly') - ") || f.built != nil {
		t.Fatalf("got %q, built %v", got, f.built)
	}
	if got := run(f, "config", "set", "maxmemory", "1", "MAXMEMORY", "2"); got != "-ERR CONFIG SET failed (possibly related to argument 'MAXMEMORY') - duplicate parameter\r\n" {
		t.Fatalf("got %q", got)
	}
}

// TIME reports the server's cached clock (a transaction's time).
func TestTimeCached(t *testing.T) {
	f := &fake{time: 1700000000123456}
	if got := run(f, "time"); got != "*2\r\n$10\r\n1700000000\r\n$6\r\n123456\r\n" {
		t.Fatalf("got %q", got)
	}
}
