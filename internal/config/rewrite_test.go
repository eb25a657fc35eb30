package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// settingsDiff compares every setting as CONFIG GET shows it.
func settingsDiff(got, want *Config) []string {
	var diff []string
	for _, p := range Params {
		if g, w := p.Get(got), p.Get(want); g != w {
			diff = append(diff, p.Name+": got "+quote(g)+", want "+quote(w))
		}
	}
	return diff
}

// userWords is what the server makes of user lines: each user's words.
func userWords(lines []string) [][]string {
	var out [][]string
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == "user" {
			f = f[1:]
		}
		if len(f) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// checkRoundTrip parses text and checks it holds c's settings and users.
func checkRoundTrip(t *testing.T, text string, c *Config, users []string) {
	t.Helper()
	back := Default()
	if err := Parse(back, text); err != nil {
		t.Fatalf("rewritten file does not parse: %v\n%s", err, text)
	}
	if d := settingsDiff(back, c); d != nil {
		t.Fatalf("settings differ after the round trip: %v\n%s", d, text)
	}
	var got []string
	for _, u := range back.Users {
		got = append(got, "user "+strings.Join(u, " "))
	}
	want := users
	if c.ACLFile != "" {
		want = nil
	}
	if g, w := userWords(got), userWords(want); !slices.EqualFunc(g, w, slices.Equal) {
		t.Fatalf("users after the round trip: got %q, want %q\n%s", g, w, text)
	}
}

func TestRewrite(t *testing.T) {
	alice := "user alice on #0a1b ~a* resetchannels -@all +get"
	for _, tc := range []struct {
		name  string
		old   string
		set   func(c *Config) // applied to Default() after parsing old
		users []string
		want  string
	}{{
		name: "comments, blanks and order kept; lines trimmed; blank runs collapsed",
		old: "# top comment\n   # indented comment\nport 7000\n\n\n\ntimeout 5\n" +
			"  maxclients 50  \n# end\n",
		set:  func(c *Config) { c.Timeout = 9 },
		want: "# top comment\n# indented comment\nport 7000\n\ntimeout 9\nmaxclients 50\n# end\n\n" + forced,
	}, {
		name: "first occurrence rewritten, duplicates blanked",
		old:  "timeout 5\nport 7000\ntimeout 7\nTIMEOUT 8\nhz 20",
		want: "timeout 8\nport 7000\n\nhz 20\n" + forced,
	}, {
		name: "no change: only the forced directives are appended",
		old:  "port 7000\n",
		want: "port 7000\n\n" + forced,
	}, {
		name: "existing signature: appended lines go at the end without another",
		old:  "port 7000\n" + Signature + "\nmaxmemory 10mb\n",
		set:  func(c *Config) { c.MaxMemoryPolicy = "allkeys-lru" },
		want: "port 7000\n" + Signature + "\nmaxmemory 10mb\n\n" + strings.TrimPrefix(forcedWith("maxmemory-policy allkeys-lru"), Signature+"\n"),
	}, {
		name: "non-default values without a line are appended, defaults without a line are not",
		old:  "port 7000",
		set: func(c *Config) {
			c.MaxMemory, c.AutoAOFRewriteMinSize, c.ProtoMaxBulkLen = 3<<30, 65536, 1<<20+1
			c.LogFile, c.AppendOnly, c.LatencyTracking = "/var/log/x y.log", true, false
			c.NotifyKeyspaceEvents = 0 // default: not written
			c.TCPKeepAlive = 300       // default: not written
		},
		want: "port 7000\n" + forcedWith(
			"appendonly yes",
			"auto-aof-rewrite-min-size 64kb",
			"latency-tracking no",
			`logfile "/var/log/x y.log"`,
			"maxmemory 3gb",
			"proto-max-bulk-len 1048577"),
	}, {
		name: "lines at the default value are kept with the default",
		old:  "maxmemory 100mb\nnotify-keyspace-events KEA\nlogfile /tmp/x\nappendonly yes",
		set:  func(c *Config) { *c = *Default() },
		want: "maxmemory 0\nnotify-keyspace-events \"\"\nlogfile \"\"\nappendonly no\n" + forced,
	}, {
		name: "bind at its default and an empty requirepass lose their lines",
		old:  "bind 127.0.0.1 ::1\nrequirepass secret\nport 7000\n",
		set:  func(c *Config) { c.Bind, c.RequirePass = []string{"127.0.0.1"}, "" },
		want: "\nport 7000\n\n" + forced,
	}, {
		name: "bind and requirepass otherwise written, appended if need be",
		old:  "port 7000\n",
		set:  func(c *Config) { c.Bind, c.RequirePass = []string{"0.0.0.0", "-::1"}, `p"w` },
		want: "port 7000\n\n" + forcedWith("bind 0.0.0.0 -::1", `requirepass "p\x22w"`),
	}, {
		name: "save: one line per point, in place first, extra points appended",
		old:  "save 900 1\nport 7000\n",
		set:  func(c *Config) { c.Save = []SaveRule{{10, 1}, {20, 2}, {30, 3}} },
		want: "save 10 1\nport 7000\n\n" + Signature + "\ndir \".\"\nlatency-tracking-info-percentiles 50 99 99.9\nsave 20 2\nsave 30 3\n",
	}, {
		name: "save: fewer points blank the old lines left",
		old:  "save 900 1\nsave 300 10\nsave 60 10000\nport 7000\n",
		set:  func(c *Config) { c.Save = nil },
		want: "save \"\"\n\nport 7000\n\n" + Signature + "\ndir \".\"\nlatency-tracking-info-percentiles 50 99 99.9\n",
	}, {
		name: "save: none is save \"\" so that a dir does not bring the default points",
		old:  "dir /data\n",
		set:  func(c *Config) { c.Save = nil },
		want: "dir \"/data\"\n\n" + Signature + "\nlatency-tracking-info-percentiles 50 99 99.9\nsave \"\"\n",
	}, {
		name:  "users replace the user lines in place, extra users appended",
		old:   "user alice on nopass ~* +@all\nport 7000\nuser bob off\nuser carol off\n",
		users: []string{alice, "user default on nopass sanitize-payload ~* &* +@all"},
		want: alice + "\nport 7000\nuser default on nopass sanitize-payload ~* &* +@all\n\n" +
			forced,
	}, {
		name:  "with an aclfile the user lines go",
		old:   "aclfile /etc/users.acl\nuser alice on nopass ~* +@all\nport 7000\n",
		set:   func(c *Config) { c.Users = nil },
		users: []string{alice},
		want:  "aclfile \"/etc/users.acl\"\n\nport 7000\n\n" + forced,
	}, {
		name:  "user words that need quotes get them",
		old:   "",
		users: []string{`user carol on ~k"y ~'z' +@all (~foo +get)`},
		want:  forcedWith(`user carol on "~k\x22y" "~'z'" +@all (~foo +get)`),
	}, {
		name: "unknown directives and unbalanced quotes become comments",
		old:  "foo bar\nsave \"unbalanced\nport 7000\n",
		set:  func(c *Config) { c.Port = 7000 },
		want: "# ??? foo bar\n# ??? save \"unbalanced\nport 7000\n\n" + forced,
	}, {
		name: "no old file: written from scratch",
		old:  "",
		set:  func(c *Config) { c.Port = 7000 },
		want: forcedWith("port 7000"),
	}, {
		name: "quoting: strings, control bytes, empty words",
		old:  "",
		set: func(c *Config) {
			c.RequirePass, c.DBFilename, c.LogFile = "a b\x00\n\"\\'", "d'b.rdb", "é"
			c.LatencyPercentiles = nil
			c.Bind = []string{"127.0.0.1", "-'x"}
		},
		want: Signature + "\n" + `bind 127.0.0.1 "-'x"` + "\n" + `dbfilename "d'b.rdb"` + "\ndir \".\"\n" +
			"latency-tracking-info-percentiles \"\"\nlogfile \"é\"\n" + `requirepass "a b\x00\x0a\x22\x5c'"` + "\nsave \"\"\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			if err := Parse(c, tc.old); err != nil {
				c = Default() // the server could not start from it; it was edited since
			}
			if tc.set != nil {
				tc.set(c)
			}
			got := Rewrite(tc.old, c, tc.users)
			if got != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			checkRoundTrip(t, got, c, tc.users)
			if again := Rewrite(got, c, tc.users); again != got {
				t.Fatalf("second rewrite differs:\n%s\nfirst:\n%s", again, got)
			}
		})
	}
}

// forced is what every rewrite appends to a file without these directives.
var forced = forcedWith()

// forcedWith is the appended section: the signature, then extra lines and
// the always-written directives in the order of Params.
func forcedWith(extra ...string) string {
	lines := append([]string{`dir "."`, "latency-tracking-info-percentiles 50 99 99.9", `save ""`}, extra...)
	var users []string
	for i := 0; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "user ") {
			users = append(users, lines[i])
			lines = slices.Delete(lines, i, i+1)
			i--
		}
	}
	slices.SortStableFunc(lines, func(a, b string) int {
		return strings.Compare(strings.Fields(a)[0], strings.Fields(b)[0])
	})
	return Signature + "\n" + strings.Join(append(lines, users...), "\n") + "\n"
}

func TestFormatMemory(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 1: "1", 1024: "1kb", 1536: "1536", 64 << 20: "64mb", 3 << 30: "3gb",
		1<<31 - 1: "2147483647", 1<<63 - 1: "9223372036854775807", 1 << 40: "1024gb"} {
		if got := FormatMemory(n); got != want {
			t.Errorf("FormatMemory(%d) = %q, want %q", n, got, want)
		}
		if back, err := ParseMemory(FormatMemory(n)); err != nil || back != n {
			t.Errorf("ParseMemory(%q) = %d, %v", FormatMemory(n), back, err)
		}
	}
}

// TestRewriteKinds checks Param.Memory against what each setting parses: a
// numeric setting takes "1kb" exactly when it is a memory value.
func TestRewriteKinds(t *testing.T) {
	for _, p := range Params {
		if p.Multi || p.Quoted {
			continue
		}
		if _, err := parseStrictIntErr(p.Get(Default())); err != nil {
			continue // an enum or yes/no
		}
		err := p.Set(Default(), []string{"1kb"})
		if memory := err == nil || strings.Contains(err.Error(), "between"); memory != p.Memory {
			t.Errorf("%s: takes a memory value: %v, Param.Memory: %v", p.Name, memory, p.Memory)
		}
	}
}

func parseStrictIntErr(s string) (int64, error) {
	if n, ok := parseStrictInt(s); ok {
		return n, nil
	}
	return 0, errNotInt
}

// TestParseSaveLines: several save lines add up, as in Redis; save "" clears.
func TestParseSaveLines(t *testing.T) {
	for text, want := range map[string][]SaveRule{
		"save 900 1\nsave 300 10 60 10000\n": {{900, 1}, {300, 10}, {60, 10000}},
		"save 900 1\nsave \"\"\nsave 60 5\n": {{60, 5}},
		"save 900 1\nsave \"\"\n":            nil,
	} {
		c := Default()
		if err := Parse(c, text); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.Save, want) {
			t.Errorf("%q: got %v, want %v", text, c.Save, want)
		}
	}
}

func TestRewriteFile(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.conf")
	link := filepath.Join(dir, "hotkv.conf")
	if err := os.WriteFile(real, []byte("# mine\nport 7000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.conf", link); err != nil {
		t.Fatal(err)
	}
	c := Default()
	c.Port, c.Dir = 7000, "data"
	if err := RewriteFile(link, c, nil); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	fi, err := os.Stat(real)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode not kept: %v %v", fi, err)
	}
	b, _ := os.ReadFile(real)
	abs, _ := filepath.Abs("data")
	if want := "# mine\nport 7000\n\n" + Signature + "\ndir " + quote(abs) + "\nlatency-tracking-info-percentiles 50 99 99.9\nsave \"\"\n"; string(b) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b, want)
	}
	if c.Dir != "data" {
		t.Fatal("RewriteFile changed the caller's config")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("temporary file left: %v", ents)
	}

	// a file that is gone is written from scratch, 0644 less the umask
	gone := filepath.Join(dir, "gone.conf")
	if err := RewriteFile(gone, c, nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(gone); !strings.HasPrefix(string(b), Signature+"\n") || !strings.Contains(string(b), "\nport 7000\n") {
		t.Fatalf("got:\n%s", b)
	}
	// an unwritable directory fails and leaves nothing behind
	if os.Getuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o755)
		os.WriteFile(filepath.Join(ro, "x.conf"), []byte("port 1\n"), 0o644)
		os.Chmod(ro, 0o555)
		defer os.Chmod(ro, 0o755)
		if err := RewriteFile(filepath.Join(ro, "x.conf"), c, nil); err == nil {
			t.Fatal("rewrite in a read-only directory succeeded")
		}
	}
}

func FuzzRewrite(f *testing.F) {
	for _, s := range []string{
		"# comment\nport 7000\n\n\nsave 900 1\nsave 300 10\n",
		"timeout 5\ntimeout 7\nuser alice on nopass ~* +@all\nuser bob off\n",
		"requirepass \"a\\x00b\"\nbind 127.0.0.1 -::1\n" + Signature + "\nmaxmemory 1gb\n",
		"foo bar\nsave \"unbalanced\n\v\n\x00\n'quoted name' 1\n",
		"aclfile /x\nuser a on\nnotify-keyspace-events KEA\nlatency-tracking-info-percentiles 1e-9 99.99999\n",
		"dir \"/tmp/a b\"\nlogfile \"\"\nsave \"\"\n  hz 0 \r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c := Default()
		if err := Parse(c, text); err != nil {
			c = Default() // the output must parse all the same
		}
		var users []string
		for _, u := range c.Users {
			users = append(users, "user "+strings.Join(u, " "))
		}
		out := Rewrite(text, c, users)
		checkRoundTrip(t, out, c, users)
		if again := Rewrite(out, c, users); again != out {
			t.Fatalf("second rewrite differs:\n%q\nfirst:\n%q", again, out)
		}
	})
}
