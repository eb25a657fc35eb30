// Package config holds the server's settings: defaults, the redis.conf-style
// file and command-line parsers, and the table CONFIG GET/SET works from.
package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/internal/notify"
	"github.com/hotkv/hotkv/internal/resp"
)

// Config is one immutable snapshot of the settings; CONFIG SET makes a new one.
type Config struct {
	Bind                   []string
	Port                   int
	Databases              int
	RequirePass            string
	ACLFile                string     // users file for ACL LOAD/SAVE; "" = users come from "user" lines
	ACLLogMaxLen           int64      // ACL LOG entries kept
	ACLPubsubAll           bool       // acl-pubsub-default allchannels: new users may use every channel
	Users                  [][]string // "user <name> <rules...>" lines of the config file, without "user"
	Renames                []Rename   // rename-command lines, in order
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
	// ReplicaOfHost and ReplicaOfPort are replicaof (slaveof): the master
	// this server replicates at start-up ("" : none), which REPLICAOF
	// changes at run time (internal/server/replica.go).
	ReplicaOfHost        string
	ReplicaOfPort        int
	MaxMemory            int64
	MaxMemoryPolicy      string
	MaxMemorySamples     int64
	LFULogFactor         int64
	LFUDecayTime         int64 // minutes
	PubSubOutputLimit    int64 // hard output buffer limit for pub/sub clients
	PubSubOutputSoft     SoftLimit
	NormalOutputHard     int64 // client-output-buffer-limit normal: 0 = none
	NormalOutputSoft     SoftLimit
	TrackingTableMaxKeys int64 // keys CLIENT TRACKING remembers before invalidating some; 0 = no limit
	NotifyKeyspaceEvents notify.Class
	SlowlogSlowerThan    int64 // microseconds; negative: off
	SlowlogMaxLen        int64
	LatencyMonitorMs     int64     // latency-monitor-threshold; 0: off
	LatencyTracking      bool      // latency-tracking: per-command latency histograms
	LatencyPercentiles   []float64 // latency-tracking-info-percentiles, as INFO latencystats prints them

	// Process and listeners (docs/configuration.md).
	ProtectedMode  bool   // refuse non-local clients while the default user has no password
	UnixSocket     string // path of a Unix socket to listen on too
	UnixSocketPerm int64  // its permission bits (0: as the umask leaves them)
	PidFile        string
	Daemonize      bool
	Supervised     string // no, upstart, systemd, auto

	// Who may run DEBUG, MODULE LOAD/UNLOAD, and CONFIG SET dir/dbfilename:
	// "no", "yes" or "local" (loopback and Unix socket clients).
	EnableDebugCmd, EnableModuleCmd, EnableProtectedConfigs string

	// Persistence (docs/persistence.md).
	Save                  []SaveRule // snapshot after Seconds if at least Changes writes
	DBFilename            string
	AppendOnly            bool
	AppendFsync           string // always, everysec, no
	AppendDirname         string
	AppendFilename        string
	AutoAOFRewritePercent int64
	AutoAOFRewriteMinSize int64
	AOFLoadTruncated      bool
	StopWritesOnBgsaveErr bool
	saveGiven, dirGiven   bool // for the default save rules, see FromArgs

	File string // absolute path of the configuration file, if any (INFO config_file)

	redis redisValues // Redis's other parameters, by slot (redisparams.go)
}

// SoftLimit is an output buffer soft limit: a client whose unsent output
// stays at or over Bytes for longer than Secs is disconnected. Bytes 0: none.
type SoftLimit struct{ Bytes, Secs int64 }

// MaxDatabases bounds "databases": every database preallocates its 1024
// shards (about 100 KiB), so Redis's INT_MAX would exhaust memory at start.
const MaxDatabases = 4096

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
		MaxMemorySamples:       5,
		LFULogFactor:           10,
		LFUDecayTime:           1,
		PubSubOutputLimit:      32 << 20,
		PubSubOutputSoft:       SoftLimit{8 << 20, 60},
		TrackingTableMaxKeys:   1000000,
		SlowlogSlowerThan:      10000,
		SlowlogMaxLen:          128,
		LatencyTracking:        true,
		LatencyPercentiles:     []float64{50, 99, 99.9},
		ACLLogMaxLen:           128,
		DBFilename:             "dump.rdb",
		AppendFsync:            "everysec",
		AppendDirname:          "appendonlydir",
		AppendFilename:         "appendonly.aof",
		AutoAOFRewritePercent:  100,
		AutoAOFRewriteMinSize:  64 << 20,
		AOFLoadTruncated:       true,
		StopWritesOnBgsaveErr:  true,
		ProtectedMode:          true,
		Supervised:             "no",
		EnableDebugCmd:         "no",
		EnableModuleCmd:        "no",
		EnableProtectedConfigs: "no",

		redis: redisDefaults(),
	}
}

// SaveRule is one "save <seconds> <changes>" point.
type SaveRule struct{ Seconds, Changes int64 }

// DefaultSave is Redis's built-in save points, in force when a data
// directory is configured and no save line is (see FromArgs).
var DefaultSave = []SaveRule{{3600, 1}, {300, 100}, {60, 10000}}

func parseSave(c *Config, v []string) error {
	f := strings.Fields(strings.Join(v, " "))
	if len(f)%2 != 0 {
		return errBadSave
	}
	var rules []SaveRule
	for i := 0; i < len(f); i += 2 {
		sec, ok1 := parseStrictInt(f[i])
		n, ok2 := parseStrictInt(f[i+1])
		if !ok1 || !ok2 || sec < 1 || n < 0 {
			return errBadSave
		}
		rules = append(rules, SaveRule{sec, n})
	}
	c.Save = rules
	return nil
}

func boolParam(name string, immutable bool, field func(*Config) *bool) *Param {
	return &Param{
		Name:      name,
		Immutable: immutable,
		Get: func(c *Config) string {
			if *field(c) {
				return "yes"
			}
			return "no"
		},
		Set: func(c *Config, v []string) error {
			switch strings.ToLower(v[0]) {
			case "yes":
				*field(c) = true
			case "no":
				*field(c) = false
			default:
				return errNotBool
			}
			return nil
		},
	}
}

// Clone copies c so that a change does not affect readers of c.
func (c *Config) Clone() *Config {
	n := *c
	n.Bind = append([]string(nil), c.Bind...)
	n.Save = append([]SaveRule(nil), c.Save...)
	n.LatencyPercentiles = append([]float64(nil), c.LatencyPercentiles...)
	return &n
}

// Param is one setting as CONFIG GET/SET and the config file see it.
type Param struct {
	Name      string
	Immutable bool // only from the file or the command line
	Multi     bool // takes several arguments (bind)
	Memory    bool // a memory value: takes units (1kb), CONFIG REWRITE writes 64mb
	Quoted    bool // a string CONFIG REWRITE always writes quoted, as Redis does
	Protected bool // CONFIG SET only where enable-protected-configs allows it
	// Values lists a Multi parameter's arguments one by one, so that Text
	// writes back exactly the words that were parsed (Get joins them).
	Values func(*Config) []string
	Get    func(*Config) string
	Set    func(*Config, []string) error
}

// Redis's CONFIG SET / config file value errors, word for word.
var (
	errNotInt    = errors.New("argument couldn't be parsed into an integer")
	errNotMemory = errors.New("argument must be a memory value")
	errBadSave   = errors.New("Invalid save parameters")
	errArgCount  = errors.New("wrong number of arguments") // Redis's words for a known directive
	errNotBool   = errors.New("argument must be 'yes' or 'no'")
)

// errNotOneOf is the error for a value outside an enumeration's values.
func errNotOneOf(values []string) error {
	return errors.New("argument(s) must be one of the following: " + strings.Join(values, ", "))
}

// errBadDirective is the error for an unknown directive (or a "user" line
// without a name).
const errBadDirective = "Bad directive or wrong number of arguments"

func errRange(min, max int64) error {
	return fmt.Errorf("argument must be between %d and %d inclusive", min, max)
}

// numParam is an integer setting; a memory setting also takes units (1kb...).
func numParam[T int | int64](name string, memory bool, min, max int64, field func(*Config) *T) *Param {
	return &Param{
		Name:   name,
		Memory: memory,
		Get:    func(c *Config) string { return strconv.FormatInt(int64(*field(c)), 10) },
		Set: func(c *Config, v []string) error {
			n, err := parseNumber(v[0], memory)
			if err != nil {
				return err
			}
			if n == -1 && memory && name == "maxmemory" {
				n = math.MaxInt64 // Redis's goes to 2^64-1, HotKV's to 2^63-1
			}
			if n < min || n > max {
				return errRange(min, max)
			}
			*field(c) = T(n)
			return nil
		},
	}
}

func parseNumber(s string, memory bool) (int64, error) {
	if memory {
		u, ok := Memtoull(s) // Redis's parser (redisparams.go)
		if !ok {
			return 0, errNotMemory
		}
		if u > math.MaxInt64 {
			return -1, nil // out of every memory setting's range, as in Redis
		}
		return int64(u), nil
	}
	n, ok := parseStrictInt(s)
	if !ok {
		return 0, errNotInt
	}
	return n, nil
}

func stringParam(name string, immutable bool, field func(*Config) *string) *Param {
	return &Param{
		Name:      name,
		Immutable: immutable,
		Quoted:    true,
		Get:       func(c *Config) string { return *field(c) },
		Set:       func(c *Config, v []string) error { *field(c) = v[0]; return nil },
	}
}

func immutable(p *Param) *Param { p.Immutable = true; return p }

func protected(p *Param) *Param { p.Protected = true; return p }

// enumParam is a setting with one of a fixed set of lower-case values.
func enumParam(name string, immutable bool, values []string, field func(*Config) *string) *Param {
	return &Param{
		Name:      name,
		Immutable: immutable,
		Get:       func(c *Config) string { return *field(c) },
		Set: func(c *Config, v []string) error {
			l := strings.ToLower(v[0])
			if !slices.Contains(values, l) {
				return errNotOneOf(values)
			}
			*field(c) = l
			return nil
		},
	}
}

// protectedAction are the values of the enable-*-command settings.
var protectedAction = []string{"no", "yes", "local"}

// Params is the settings table, sorted by name. Ranges are Redis's, except
// where noted in docs/configuration.md.
var Params = []*Param{
	{Name: "acl-pubsub-default",
		Get: func(c *Config) string {
			if c.ACLPubsubAll {
				return "allchannels"
			}
			return "resetchannels"
		},
		Set: func(c *Config, v []string) error {
			switch strings.ToLower(v[0]) {
			case "allchannels", "resetchannels":
				c.ACLPubsubAll = strings.EqualFold(v[0], "allchannels")
				return nil
			}
			return errors.New("argument(s) must be one of the following: allchannels, resetchannels")
		}},
	immutable(stringParam("aclfile", true, func(c *Config) *string { return &c.ACLFile })),
	numParam("acllog-max-len", false, 0, math.MaxInt64, func(c *Config) *int64 { return &c.ACLLogMaxLen }),
	boolParam("aof-load-truncated", false, func(c *Config) *bool { return &c.AOFLoadTruncated }),
	immutable(baseName(stringParam("appenddirname", true, func(c *Config) *string { return &c.AppendDirname }), "dirname", false)),
	immutable(baseName(stringParam("appendfilename", true, func(c *Config) *string { return &c.AppendFilename }), "filename", false)),
	{Name: "appendfsync",
		Get: func(c *Config) string { return c.AppendFsync },
		Set: func(c *Config, v []string) error {
			switch l := strings.ToLower(v[0]); l {
			case "always", "everysec", "no":
				c.AppendFsync = l
				return nil
			}
			return errors.New("argument(s) must be one of the following: everysec, always, no") // Redis's order
		}},
	boolParam("appendonly", false, func(c *Config) *bool { return &c.AppendOnly }),
	numParam("auto-aof-rewrite-min-size", true, 0, math.MaxInt64, func(c *Config) *int64 { return &c.AutoAOFRewriteMinSize }),
	numParam("auto-aof-rewrite-percentage", false, 0, math.MaxInt32, func(c *Config) *int64 { return &c.AutoAOFRewritePercent }),
	{Name: "bind", Multi: true,
		Get:    func(c *Config) string { return strings.Join(c.Bind, " ") },
		Values: func(c *Config) []string { return c.Bind },
		Set:    func(c *Config, v []string) error { c.Bind = append([]string(nil), v...); return nil }},
	numParam("client-query-buffer-limit", true, 1<<20, math.MaxInt64, func(c *Config) *int64 { return &c.ClientQueryBufferLimit }),
	immutable(numParam("databases", false, 1, MaxDatabases, func(c *Config) *int { return &c.Databases })),
	boolParam("daemonize", true, func(c *Config) *bool { return &c.Daemonize }),
	protected(baseName(stringParam("dbfilename", false, func(c *Config) *string { return &c.DBFilename }), "filename", true)),
	protected(stringParam("dir", true, func(c *Config) *string { return &c.Dir })),
	enumParam("enable-debug-command", true, protectedAction, func(c *Config) *string { return &c.EnableDebugCmd }),
	enumParam("enable-module-command", true, protectedAction, func(c *Config) *string { return &c.EnableModuleCmd }),
	enumParam("enable-protected-configs", true, protectedAction, func(c *Config) *string { return &c.EnableProtectedConfigs }),
	{Name: "hz",
		Get: func(c *Config) string { return strconv.Itoa(c.Hz) },
		Set: func(c *Config, v []string) error {
			n, err := parseNumber(v[0], false)
			if err != nil {
				return err
			}
			if n < 0 || n > math.MaxInt32 {
				return errRange(0, math.MaxInt32)
			}
			c.Hz = int(min(max(n, 1), 500)) // Redis clamps to its CONFIG_MIN_HZ..CONFIG_MAX_HZ
			return nil
		}},
	numParam("latency-monitor-threshold", false, 0, math.MaxInt64, func(c *Config) *int64 { return &c.LatencyMonitorMs }),
	boolParam("latency-tracking", false, func(c *Config) *bool { return &c.LatencyTracking }),
	{Name: "latency-tracking-info-percentiles", Multi: true,
		Get:    func(c *Config) string { return strings.Join(percentileWords(c), " ") },
		Values: percentileWords,
		Set:    parsePercentiles},
	numParam("lfu-decay-time", false, 0, math.MaxInt32, func(c *Config) *int64 { return &c.LFUDecayTime }),
	numParam("lfu-log-factor", false, 0, math.MaxInt32, func(c *Config) *int64 { return &c.LFULogFactor }),
	stringParam("logfile", true, func(c *Config) *string { return &c.LogFile }),
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
	numParam("maxclients", false, 1, math.MaxUint32, func(c *Config) *int { return &c.MaxClients }),
	numParam("maxmemory", true, 0, math.MaxInt64, func(c *Config) *int64 { return &c.MaxMemory }),
	{Name: "maxmemory-policy",
		Get: func(c *Config) string { return c.MaxMemoryPolicy },
		Set: func(c *Config, v []string) error {
			p := strings.ToLower(v[0])
			if !slices.Contains(MaxMemoryPolicies, p) {
				return errNotOneOf(MaxMemoryPolicies)
			}
			c.MaxMemoryPolicy = p
			return nil
		}},
	numParam("maxmemory-samples", false, 1, 64, func(c *Config) *int64 { return &c.MaxMemorySamples }),
	{Name: "notify-keyspace-events", Quoted: true,
		Get: func(c *Config) string { return c.NotifyKeyspaceEvents.String() },
		Set: func(c *Config, v []string) error {
			cl, err := notify.Parse(v[0])
			c.NotifyKeyspaceEvents = cl
			return err
		}},
	immutable(stringParam("pidfile", true, func(c *Config) *string { return &c.PidFile })),
	numParam("port", false, 0, 65535, func(c *Config) *int { return &c.Port }),
	boolParam("protected-mode", false, func(c *Config) *bool { return &c.ProtectedMode }),
	// Below Redis's 2^63-1: collections keep member and value lengths in
	// 32 bits (internal/value/dict, keyspace.Entry), which saves 16 bytes per
	// hash field and per key.
	numParam("proto-max-bulk-len", true, 1<<20, math.MaxUint32, func(c *Config) *int64 { return &c.ProtoMaxBulkLen }),
	numParam("proto-max-inline-len", true, 1<<10, 1<<30, func(c *Config) *int64 { return &c.ProtoMaxInlineLen }),
	numParam("proto-max-multibulk-len", true, 1<<10, math.MaxInt32, func(c *Config) *int64 { return &c.ProtoMaxMultibulkLen }),
	numParam("pubsub-output-buffer-limit", true, 1<<10, math.MaxInt64, func(c *Config) *int64 { return &c.PubSubOutputLimit }),
	stringParam("requirepass", false, func(c *Config) *string { return &c.RequirePass }),
	{Name: "save", Multi: true,
		Get:    func(c *Config) string { return strings.Join(saveWords(c), " ") },
		Values: saveWords,
		Set:    parseSave},
	numParam("slowlog-log-slower-than", false, -1, math.MaxInt64, func(c *Config) *int64 { return &c.SlowlogSlowerThan }),
	numParam("slowlog-max-len", false, 0, math.MaxInt64, func(c *Config) *int64 { return &c.SlowlogMaxLen }),
	boolParam("stop-writes-on-bgsave-error", false, func(c *Config) *bool { return &c.StopWritesOnBgsaveErr }),
	enumParam("supervised", true, []string{"upstart", "systemd", "auto", "no"}, func(c *Config) *string { return &c.Supervised }),
	numParam("tcp-keepalive", false, 0, math.MaxInt32, func(c *Config) *int64 { return &c.TCPKeepAlive }),
	numParam("timeout", false, 0, math.MaxInt32, func(c *Config) *int64 { return &c.Timeout }),
	numParam("tracking-table-max-keys", false, 0, math.MaxInt64, func(c *Config) *int64 { return &c.TrackingTableMaxKeys }),
	immutable(stringParam("unixsocket", true, func(c *Config) *string { return &c.UnixSocket })),
	{Name: "unixsocketperm", Immutable: true, // octal, as chmod takes it
		Get: func(c *Config) string { return strconv.FormatInt(c.UnixSocketPerm, 8) },
		Set: func(c *Config, v []string) error {
			n, err := strconv.ParseInt(v[0], 8, 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return errors.New("argument couldn't be parsed as an octal number")
			}
			if err != nil || n < 0 || n > 0o777 {
				return errors.New("argument must be between 0 and 777 inclusive")
			}
			c.UnixSocketPerm = n
			return nil
		}},
}

// MaxMemoryPolicies are the maxmemory-policy values, in Redis's order.
var MaxMemoryPolicies = []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
	"allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"}

// Lookup finds a parameter by name, case-insensitively.
func Lookup(name string) *Param {
	name = strings.ToLower(name)
	for _, p := range Params {
		if p.Name == name {
			return p
		}
	}
	return redisLookup(name)
}

// parseStrictInt parses as Redis's string2ll: optional '-', digits, no
// leading zeros, no '+', no spaces, within int64.
func parseStrictInt(s string) (int64, bool) {
	if s == "" || s == "-0" || s[0] == '+' || (s[0] == '0' && len(s) > 1) || strings.HasPrefix(s, "-0") {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && !(i == 0 && s[i] == '-') {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// ParseMemory parses a memory value as Redis's memtoull does: decimal
// digits (leading zeros allowed, no sign) and an optional unit, 1k = 1000,
// 1kb = 1024, likewise m/mb and g/gb, case-insensitively. The empty string is
// 0, as in Redis. Values above int64 saturate.
func ParseMemory(s string) (int64, error) {
	l := strings.ToLower(s)
	mul := uint64(1)
	for _, u := range []struct {
		suffix string
		mul    uint64
	}{{"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10}, {"g", 1e9}, {"m", 1e6}, {"k", 1e3}, {"b", 1}} {
		if strings.HasSuffix(l, u.suffix) {
			l, mul = strings.TrimSuffix(l, u.suffix), u.mul
			break
		}
	}
	var n uint64
	for i := 0; i < len(l); i++ {
		c := l[i]
		if c < '0' || c > '9' {
			return 0, errNotMemory
		}
		if n > (math.MaxUint64-uint64(c-'0'))/10 {
			n = math.MaxUint64
			continue
		}
		n = n*10 + uint64(c-'0')
	}
	if n != 0 && n > math.MaxUint64/mul {
		return math.MaxInt64, nil
	}
	return int64(min(n*mul, math.MaxInt64)), nil
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

// Rename is a rename-command line: the command named From is reached as
// To from then on, or not at all when To is "".
type Rename struct{ From, To string }

// CheckRename validates rename-command r, given the renames before it,
// against the command table; the server sets it (this package does not
// know the commands). Nil accepts every rename.
var CheckRename func(done []Rename, r Rename) error

// maxIncludeDepth bounds include chains (a file including itself).
const maxIncludeDepth = 16

// Parse applies redis.conf-syntax text to c: one directive per line, arguments
// split and unquoted as Redis does, '#' comments, unknown directives refused.
func Parse(c *Config, text string) error {
	return (&parser{c: c}).parse(text, 0)
}

// parser is one reading of a configuration and the files it includes.
type parser struct {
	c         *Config
	savesSeen bool // the first save line replaces the save points, later ones add up
}

func (ps *parser) parse(text string, depth int) error {
	c := ps.c
	for i, line := range strings.Split(text, "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		fail := func(msg string) error { return &FileError{Line: i + 1, Text: line, Msg: msg} }
		raw, ok := resp.SplitArgs([]byte(line), nil)
		if !ok {
			return fail("Unbalanced quotes in configuration line")
		}
		if len(raw) == 0 { // only blanks that are not trimmed (VT, FF) or a NUL
			continue
		}
		args := make([]string, len(raw))
		for j, a := range raw {
			args[j] = string(a)
		}
		switch {
		case strings.EqualFold(args[0], "user"): // checked when the server loads its users
			if len(args) < 2 {
				return fail(errBadDirective)
			}
			c.Users = append(c.Users, args[1:])
			continue
		case strings.EqualFold(args[0], "include") && len(args) == 2:
			if depth == maxIncludeDepth {
				return fail(fmt.Sprintf("include nested more than %d deep", maxIncludeDepth))
			}
			if err := ps.include(args[1], depth+1); err != nil {
				return err
			}
			continue
		case strings.EqualFold(args[0], "rename-command") && len(args) == 3:
			r := Rename{From: args[1], To: args[2]}
			if CheckRename != nil {
				if err := CheckRename(c.Renames, r); err != nil {
					return fail(err.Error())
				}
			}
			c.Renames = append(c.Renames, r)
			continue
		}
		if len(args) == 1 && strings.EqualFold(args[0], "save") {
			// A bare save line (Redis's test harness writes one for
			// save ""): Redis reads it as a save line with no points,
			// which drops the defaults if it is the first and adds none.
			if !ps.savesSeen {
				c.Save = nil
			}
			ps.savesSeen = true
			continue
		}
		prevSave := c.Save
		if err := Apply(c, args[0], args[1:]); err != nil {
			return fail(err.Error())
		}
		if strings.EqualFold(args[0], "save") { // as in Redis, save lines add up; save "" clears
			if ps.savesSeen && len(c.Save) > 0 {
				c.Save = slices.Concat(prevSave, c.Save)
			}
			ps.savesSeen = true
		}
	}
	return nil
}

// include reads the file at path, or every file a glob pattern matches
// (in name order), where the include line stands, as Redis 7 does.
func (ps *parser) include(path string, depth int) error {
	files := []string{path}
	if strings.ContainsAny(path, "*?[") {
		var err error
		if files, err = filepath.Glob(path); err != nil {
			return fmt.Errorf("Fatal error, can't open config file '%s': %v", path, err)
		}
	}
	for _, f := range files {
		var b []byte
		fi, err := os.Stat(f)
		if err == nil && !fi.Mode().IsRegular() { // not a device or FIFO that never ends
			err = errors.New("not a regular file")
		}
		if err == nil {
			b, err = os.ReadFile(f)
		}
		if err != nil {
			return fmt.Errorf("Fatal error, can't open config file '%s': %v", f, err)
		}
		if err := ps.parse(string(b), depth); err != nil {
			return err
		}
	}
	return nil
}

// Apply sets one directive from its arguments.
func Apply(c *Config, name string, args []string) error {
	p := Lookup(name)
	if p == nil {
		if isDeprecated(name, args) { // read and ignored, as in Redis
			return nil
		}
		return errors.New(errBadDirective)
	}
	if (len(args) == 0 && specOf[p] == nil) || (!p.Multi && len(args) != 1) {
		return errArgCount
	}
	return p.Set(c, args)
}

// Text renders every setting as configuration file lines that Parse reads
// back to the same values.
func (c *Config) Text() string {
	var b strings.Builder
	for _, p := range allParams() {
		b.WriteString(p.Name)
		vals := []string{p.Get(c)}
		if p.Multi {
			if vals = p.Values(c); len(vals) == 0 {
				vals = []string{""} // save "": no save points
			}
		}
		for _, v := range vals {
			b.WriteByte(' ')
			b.WriteString(quote(v))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// parsePercentiles sets latency-tracking-info-percentiles: numbers from 0
// to 100, or none (one empty argument), with Redis's errors.
func parsePercentiles(c *Config, v []string) error {
	if len(v) == 1 && v[0] == "" {
		v = nil
	}
	ps := make([]float64, 0, len(v))
	for _, w := range v {
		// as strtod: hexadecimal without a binary exponent too; no
		// overflow, underflow, NaN, spaces or underscores
		hex := strings.HasPrefix(strings.ToLower(strings.TrimLeft(w, "+-")), "0x")
		if hex && !strings.ContainsAny(w, "pP") {
			w += "p0"
		}
		f, err := strconv.ParseFloat(w, 64)
		digits, exp := "123456789", "e"
		if hex {
			digits, exp = "123456789abcdef", "p"
		}
		mantissa, _, _ := strings.Cut(strings.ToLower(w), exp)
		underflow := f == 0 && strings.ContainsAny(mantissa, digits) // strtod's ERANGE to zero
		if err != nil || underflow || math.IsNaN(f) || strings.ContainsAny(w, " _") {
			return errors.New("Invalid latency-tracking-info-percentiles parameters")
		}
		if f < 0 || f > 100 {
			return errors.New("latency-tracking-info-percentiles parameters should sit between [0.0,100.0]")
		}
		ps = append(ps, f)
	}
	c.LatencyPercentiles = ps
	return nil
}

// percentileWords lists latency-tracking-info-percentiles as Redis prints
// them ("%f" without trailing zeros: 50 99 99.9).
func percentileWords(c *Config) []string {
	f := make([]string, len(c.LatencyPercentiles))
	for i, p := range c.LatencyPercentiles {
		f[i] = FormatPercentile(p)
	}
	return f
}

// FormatPercentile prints a percentile as Redis does: "%f" without its
// trailing zeros.
func FormatPercentile(p float64) string {
	s := strconv.FormatFloat(p, 'f', 6, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// saveWords lists the save points as "seconds changes" pairs of words.
func saveWords(c *Config) []string {
	var f []string
	for _, r := range c.Save {
		f = append(f, strconv.FormatInt(r.Seconds, 10), strconv.FormatInt(r.Changes, 10))
	}
	return f
}

// FromArgs builds a configuration from command-line arguments in
// redis-server's style: an optional config file (positional, or --config
// FILE), then "--directive value..." pairs that override it.
func FromArgs(argv []string) (*Config, error) {
	c := Default()
	var file, fileText string
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
			return nil, fmt.Errorf("Fatal error, can't open config file '%s': %v", file, err)
		}
		fileText = string(b)
		if err := Parse(c, fileText); err != nil {
			return nil, err
		}
		if abs, err := filepath.Abs(file); err == nil {
			c.File = abs
		}
	}
	if err := Parse(c, strings.Join(lines, "\n")); err != nil {
		return nil, err
	}
	// Redis saves by default into its working directory; HotKV takes Redis's
	// save points only once a data directory is named, so that a bare
	// "hotkv" (and every test server) leaves no files behind.
	if text := fileText + "\n" + strings.Join(lines, "\n"); names(text)["dir"] && !names(text)["save"] {
		c.Save = append([]SaveRule(nil), DefaultSave...)
	}
	return c, nil
}

// names is the set of directives text sets.
func names(text string) map[string]bool {
	m := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			m[strings.ToLower(f[0])] = true
		}
	}
	return m
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
