// Package config holds the server's settings: defaults, the redis.conf-style
// file and command-line parsers, and the table CONFIG GET/SET works from.
package config

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/internal/resp"
)

// Config is one immutable snapshot of the settings; CONFIG SET makes a new one.
type Config struct {
	Bind                   []string
	Port                   int
	Databases              int
	RequirePass            string
	MaxClients             int
	ProtoMaxBulkLen        int64
	ProtoMaxMultibulkLen   int64
	ProtoMaxInlineLen      int64
	ClientQueryBufferLimit int64
	Timeout                int64 // idle seconds before a client is closed, 0 = never
	TCPKeepAlive           int64
	Hz                     int
	LogLevel               string
	LogFile                string
	Dir                    string
	MaxMemory              int64
	MaxMemoryPolicy        string
	PubSubOutputLimit      int64 // hard output buffer limit for pub/sub clients
}

// Default returns Redis's defaults where Redis has the setting.
func Default() *Config {
	return &Config{
		Bind:                   []string{"127.0.0.1"},
		Port:                   6379,
		Databases:              16,
		MaxClients:             10000,
		ProtoMaxBulkLen:        512 << 20,
		ProtoMaxMultibulkLen:   1<<31 - 1,
		ProtoMaxInlineLen:      64 << 10,
		ClientQueryBufferLimit: 1 << 30,
		TCPKeepAlive:           300,
		Hz:                     10,
		LogLevel:               "notice",
		Dir:                    ".",
		MaxMemoryPolicy:        "noeviction",
		PubSubOutputLimit:      32 << 20,
	}
}

// Clone copies c so that a change does not affect readers of c.
func (c *Config) Clone() *Config {
	n := *c
	n.Bind = append([]string(nil), c.Bind...)
	return &n
}

// Param is one setting as CONFIG GET/SET and the config file see it.
type Param struct {
	Name      string
	Immutable bool // only from the file or the command line
	Multi     bool // takes several arguments (bind)
	Get       func(*Config) string
	Set       func(*Config, []string) error
}

var errRange = errors.New("argument must be a number in range")

func intParam(name string, min, max int64, field func(*Config) *int64) *Param {
	return &Param{
		Name: name,
		Get:  func(c *Config) string { return strconv.FormatInt(*field(c), 10) },
		Set: func(c *Config, v []string) error {
			n, err := ParseMemory(v[0])
			if err != nil || n < min || n > max {
				return fmt.Errorf("argument must be between %d and %d inclusive", min, max)
			}
			*field(c) = n
			return nil
		},
	}
}

// Params is the settings table, sorted by name.
var Params = []*Param{
	{Name: "bind", Immutable: true, Multi: true,
		Get: func(c *Config) string { return strings.Join(c.Bind, " ") },
		Set: func(c *Config, v []string) error { c.Bind = append([]string(nil), v...); return nil }},
	intParam("client-query-buffer-limit", 1<<20, 1<<40, func(c *Config) *int64 { return &c.ClientQueryBufferLimit }),
	{Name: "databases", Immutable: true,
		Get: func(c *Config) string { return strconv.Itoa(c.Databases) },
		Set: func(c *Config, v []string) error { return setInt(&c.Databases, v[0], 1, 1<<20) }},
	{Name: "dir", Immutable: true,
		Get: func(c *Config) string { return c.Dir },
		Set: func(c *Config, v []string) error { c.Dir = v[0]; return nil }},
	{Name: "hz",
		Get: func(c *Config) string { return strconv.Itoa(c.Hz) },
		Set: func(c *Config, v []string) error { return setInt(&c.Hz, v[0], 1, 500) }},
	{Name: "logfile", Immutable: true,
		Get: func(c *Config) string { return c.LogFile },
		Set: func(c *Config, v []string) error { c.LogFile = v[0]; return nil }},
	{Name: "loglevel",
		Get: func(c *Config) string { return c.LogLevel },
		Set: func(c *Config, v []string) error {
			switch l := strings.ToLower(v[0]); l {
			case "debug", "verbose", "notice", "warning", "nothing":
				c.LogLevel = l
				return nil
			}
			return errors.New("argument(s) must be one of the following: debug, verbose, notice, warning, nothing")
		}},
	{Name: "maxclients",
		Get: func(c *Config) string { return strconv.Itoa(c.MaxClients) },
		Set: func(c *Config, v []string) error { return setInt(&c.MaxClients, v[0], 1, 1<<30) }},
	intParam("maxmemory", 0, 1<<62, func(c *Config) *int64 { return &c.MaxMemory }),
	{Name: "maxmemory-policy",
		Get: func(c *Config) string { return c.MaxMemoryPolicy },
		Set: func(c *Config, v []string) error {
			if strings.ToLower(v[0]) != "noeviction" {
				return errors.New("only noeviction is supported")
			}
			c.MaxMemoryPolicy = "noeviction"
			return nil
		}},
	{Name: "port", Immutable: true,
		Get: func(c *Config) string { return strconv.Itoa(c.Port) },
		Set: func(c *Config, v []string) error { return setInt(&c.Port, v[0], 0, 65535) }},
	intParam("proto-max-bulk-len", 1<<20, 1<<40, func(c *Config) *int64 { return &c.ProtoMaxBulkLen }),
	intParam("proto-max-inline-len", 1<<10, 1<<30, func(c *Config) *int64 { return &c.ProtoMaxInlineLen }),
	intParam("proto-max-multibulk-len", 1<<10, 1<<31-1, func(c *Config) *int64 { return &c.ProtoMaxMultibulkLen }),
	intParam("pubsub-output-buffer-limit", 1<<10, 1<<40, func(c *Config) *int64 { return &c.PubSubOutputLimit }),
	{Name: "requirepass",
		Get: func(c *Config) string { return c.RequirePass },
		Set: func(c *Config, v []string) error { c.RequirePass = v[0]; return nil }},
	intParam("tcp-keepalive", 0, 1<<31-1, func(c *Config) *int64 { return &c.TCPKeepAlive }),
	intParam("timeout", 0, 1<<31-1, func(c *Config) *int64 { return &c.Timeout }),
}

// Lookup finds a parameter by name, case-insensitively.
func Lookup(name string) *Param {
	name = strings.ToLower(name)
	for _, p := range Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Match returns the parameters whose names match a glob pattern (CONFIG GET).
func Match(pattern string) []*Param {
	var out []*Param
	pattern = strings.ToLower(pattern)
	for _, p := range Params {
		if ok, _ := path.Match(pattern, p.Name); ok || pattern == p.Name {
			out = append(out, p)
		}
	}
	return out
}

func setInt(dst *int, s string, min, max int64) error {
	n, err := ParseMemory(s)
	if err != nil || n < min || n > max {
		return fmt.Errorf("argument must be between %d and %d inclusive", min, max)
	}
	*dst = int(n)
	return nil
}

// ParseMemory parses a number with an optional unit as redis.conf allows
// (1k = 1000, 1kb = 1024, likewise m/mb and g/gb), case-insensitively.
func ParseMemory(s string) (int64, error) {
	l := strings.ToLower(s)
	mul := int64(1)
	for _, u := range []struct {
		suffix string
		mul    int64
	}{{"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10}, {"g", 1e9}, {"m", 1e6}, {"k", 1e3}, {"b", 1}} {
		if strings.HasSuffix(l, u.suffix) {
			l, mul = strings.TrimSuffix(l, u.suffix), u.mul
			break
		}
	}
	n, err := strconv.ParseInt(l, 10, 64)
	if err != nil {
		return 0, errRange
	}
	if n != 0 && (n*mul)/mul != n {
		return 0, errRange
	}
	return n * mul, nil
}

// FileError is a configuration file error, reported as Redis reports it.
type FileError struct {
	Line int
	Text string
	Msg  string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("\n*** FATAL CONFIG FILE ERROR (HotKV) ***\nReading the configuration file, at line %d\n>>> '%s'\n%s", e.Line, e.Text, e.Msg)
}

// Parse applies redis.conf-syntax text to c: one directive per line, arguments
// split and unquoted as Redis does, '#' comments, unknown directives refused.
func Parse(c *Config, text string) error {
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		fail := func(msg string) error { return &FileError{Line: i + 1, Text: line, Msg: msg} }
		raw, ok := resp.SplitArgs([]byte(line), nil)
		if !ok {
			return fail("Unbalanced quotes in configuration line")
		}
		args := make([]string, len(raw))
		for j, a := range raw {
			args[j] = string(a)
		}
		if err := Apply(c, args[0], args[1:]); err != nil {
			return fail(err.Error())
		}
	}
	return nil
}

// Apply sets one directive from its arguments.
func Apply(c *Config, name string, args []string) error {
	p := Lookup(name)
	if p == nil || len(args) == 0 || (!p.Multi && len(args) != 1) {
		return errors.New("Bad directive or wrong number of arguments")
	}
	return p.Set(c, args)
}

// FromArgs builds a configuration from command-line arguments in
// redis-server's style: an optional config file (positional, or --config
// FILE), then "--directive value..." pairs that override it.
func FromArgs(argv []string) (*Config, error) {
	c := Default()
	var file string
	var lines []string
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--config" && i+1 < len(argv):
			file = argv[i+1]
			i++
		case strings.HasPrefix(a, "--"):
			vals := []string{}
			for i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "--") {
				vals = append(vals, quote(argv[i+1]))
				i++
			}
			lines = append(lines, strings.TrimPrefix(a, "--")+" "+strings.Join(vals, " "))
		case i == 0:
			file = a
		default:
			return nil, fmt.Errorf("unexpected argument %q (directives are given as --name value)", a)
		}
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("can't open config file %q: %w", file, err)
		}
		if err := Parse(c, string(b)); err != nil {
			return nil, err
		}
	}
	if err := Parse(c, strings.Join(lines, "\n")); err != nil {
		return nil, err
	}
	return c, nil
}

// quote wraps s in double quotes that SplitArgs reads back byte for byte.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < ' ' || c == 0x7f {
			fmt.Fprintf(&b, "\\x%02x", c)
			continue
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return b.String()
}
