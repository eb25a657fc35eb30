package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseFile(t *testing.T) {
	c := Default()
	err := Parse(c, `# a comment
   # an indented comment

port 7001
bind 127.0.0.1 -::1
requirepass "with space and \x41"
DATABASES 4
maxmemory 2mb
maxclients 50
timeout 30
hz 1000
loglevel WARNING
proto-max-bulk-len 1gb
pubsub-output-buffer-limit 8mb
client-query-buffer-limit 2GB
`+"logfile ''\r\n")
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Port, want.Bind, want.RequirePass, want.Databases = 7001, []string{"127.0.0.1", "-::1"}, "with space and A", 4
	want.MaxMemory, want.MaxClients, want.Timeout, want.Hz, want.LogLevel = 2<<20, 50, 30, 500, "warning"
	want.ProtoMaxBulkLen, want.PubSubOutputLimit, want.ClientQueryBufferLimit = 1<<30, 8<<20, 2<<30
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got  %+v\nwant %+v", c, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		text string
		line int
		msg  string
	}{
		{"port 1\nnosuch 1\n", 2, "Bad directive or wrong number of arguments"},
		{"port\n", 1, "wrong number of arguments"}, // Redis's words for a known directive
		{"port 1 2\n", 1, "wrong number of arguments"},
		{"\n\nport abc\n", 3, "argument couldn't be parsed into an integer"},
		{"port 70000\n", 1, "argument must be between 0 and 65535 inclusive"},
		{"maxmemory 1t\n", 1, "argument must be a memory value"},
		{"timeout +5\n", 1, "argument couldn't be parsed into an integer"},
		{"databases 0\n", 1, "argument must be between 1 and 4096 inclusive"},
		{"loglevel loud\n", 1, "argument(s) must be one of the following: debug, verbose, notice, warning, nothing"},
		{`requirepass "open`, 1, "Unbalanced quotes in configuration line"},
		{"client-query-buffer-limit 1000\n", 1, "argument must be between 1048576 and 9223372036854775807 inclusive"},
		{"client-query-buffer-limit 99999999999999999999\n", 1, "argument must be between 1048576 and 9223372036854775807 inclusive"},
		{"dbfilename a/b.rdb\n", 1, "dbfilename can't be a path, just a filename"},
		{"appendfilename ''\n", 1, "appendfilename can't be empty"},
		{`appenddirname "a\\b"` + "\n", 1, "appenddirname can't be a path, just a dirname"},
	} {
		err := Parse(Default(), tc.text)
		var fe *FileError
		if !errors.As(err, &fe) || fe.Line != tc.line || fe.Msg != tc.msg {
			t.Errorf("%q: got %v, want line %d %q", tc.text, err, tc.line, tc.msg)
			continue
		}
		if !strings.Contains(err.Error(), "*** FATAL CONFIG FILE ERROR (HotKV) ***") || !strings.Contains(err.Error(), ">>> '") {
			t.Errorf("message: %s", err)
		}
	}
}

func TestParseMemory(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"", 0, true}, {"007", 7, true}, {"5b", 5, true}, {"5B", 5, true},
		{"1k", 1000, true}, {"1kb", 1024, true}, {"1K", 1000, true}, {"1kB", 1024, true},
		{"2m", 2e6, true}, {"2mb", 2 << 20, true}, {"3g", 3e9, true}, {"3gb", 3 << 30, true},
		{"99999999999999999999", 1<<63 - 1, true}, {"9999999999gb", 1<<63 - 1, true},
		{"-1", 0, false}, {"+1", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"1.5", 0, false},
		{"0x10", 0, false}, {"1t", 0, false}, {"kb1", 0, false},
	} {
		got, err := ParseMemory(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("ParseMemory(%q) = %d, %v", tc.in, got, err)
		}
	}
}

func TestFromArgs(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "hotkv.conf")
	if err := os.WriteFile(file, []byte("port 7002\nrequirepass fromfile\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{
		{file, "--requirepass", "override", "--bind", "127.0.0.1", "::1"},
		{"--config", file, "--requirepass", "override", "--bind", "127.0.0.1", "::1"},
	} {
		c, err := FromArgs(argv)
		if err != nil {
			t.Fatal(err)
		}
		if c.Port != 7002 || c.RequirePass != "override" || !reflect.DeepEqual(c.Bind, []string{"127.0.0.1", "::1"}) || c.File != file {
			t.Fatalf("%v: %+v", argv, c)
		}
	}
	c, err := FromArgs([]string{"--requirepass", "a \"b\" \\ \x00 \n"}) // any bytes survive the quoting
	if err != nil || c.RequirePass != "a \"b\" \\ \x00 \n" {
		t.Fatalf("%q, %v", c.RequirePass, err)
	}
	if _, err := FromArgs([]string{"--port", "1", "stray"}); err == nil {
		t.Fatal("stray argument accepted")
	}
	if _, err := FromArgs([]string{filepath.Join(dir, "missing.conf")}); err == nil || !strings.Contains(err.Error(), "can't open config file") {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := FromArgs([]string{"--nosuch", "1"}); err == nil || !strings.Contains(err.Error(), "'nosuch \"1\"'") {
		t.Fatalf("unknown option: %v", err)
	}
}

// TestTextRoundTrip: Text renders settings that parse back identically,
// strange bytes included.
func TestTextRoundTrip(t *testing.T) {
	c := Default()
	c.RequirePass = "p\"a\\s s\x00\x7f\xff\n"
	c.Bind = []string{"127.0.0.1", "-::1"}
	c.Hz, c.MaxMemory = 100, 12345
	back := Default()
	if err := Parse(back, c.Text()); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, c) {
		t.Fatalf("got  %+v\nwant %+v", back, c)
	}
}

// FuzzConfig: Parse never panics, and what it accepts renders (Text) to a
// file that parses back to the same settings.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{
		"port 7000\nbind 127.0.0.1 ::1\n",
		"requirepass \"a\\x00b\"\n# comment\n",
		"maxmemory 1gb\nhz 0\nloglevel DEBUG\n",
		"timeout 0\ndatabases 16\nproto-max-bulk-len 2mb\n",
		"\v\n\x00\n'quoted name' 1\n",
		"requirepass 'x'y\n",
		"dir \"/tmp/a b\"\nlogfile \"\"\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c := Default()
		if err := Parse(c, text); err != nil {
			return
		}
		back := Default()
		if err := Parse(back, c.Text()); err != nil {
			t.Fatalf("Text does not parse: %v\n%s", err, c.Text())
		}
		if !reflect.DeepEqual(back, c) {
			t.Fatalf("round trip:\n got  %+v\n want %+v", back, c)
		}
	})
}

func TestInclude(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("b.conf", "timeout 2\nsave 60 1\n")
	write("a.conf", "timeout 1\nsave 30 1\n")
	self := write("self.conf", "include "+filepath.Join(dir, "self.conf")+"\n")
	for _, tc := range []struct{ text, err string }{
		{"include " + filepath.Join(dir, "*.conf"), "include nested more than 16 deep"}, // self.conf is among them
		{"include " + self, "include nested more than 16 deep"},
		{"include /dev/null", "Fatal error, can't open config file '/dev/null': not a regular file"},
		{"include " + filepath.Join(dir, "nope.conf"), "Fatal error, can't open config file"},
		{"include", "Bad directive or wrong number of arguments"},
		{"rename-command get", "Bad directive or wrong number of arguments"},
	} {
		if err := Parse(Default(), tc.text); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.err)
		}
	}
	os.Remove(self)
	c := Default()
	if err := Parse(c, "timeout 9\ninclude "+filepath.Join(dir, "*.conf")+"\nsave 10 1\nrename-command get x\n"); err != nil {
		t.Fatal(err)
	}
	// a.conf then b.conf, in name order; save lines add up across files.
	if c.Timeout != 2 || len(c.Save) != 3 || c.Save[0] != (SaveRule{30, 1}) || c.Save[2] != (SaveRule{10, 1}) {
		t.Errorf("timeout %d, save %v", c.Timeout, c.Save)
	}
	if len(c.Renames) != 1 || c.Renames[0] != (Rename{"get", "x"}) {
		t.Errorf("renames %v", c.Renames)
	}
}
