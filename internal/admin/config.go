package admin

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/glob"
)

// CONFIG: GET and SET over the settings table of internal/config; the
// server applies a change (listeners, TLS, the append-only log, memory
// limits) and rewrites its file.

// ApplyError is a CONFIG SET the server could not carry out: Param is a
// pattern of the settings that failed ("port", "bind", "appendonly",
// "tls-*"), which the error names the first of, and Err why.
type ApplyError struct {
	Param string
	Err   error
}

func (e *ApplyError) Error() string { return e.Param + ": " + e.Err.Error() }

// ErrNoConfigFile is CONFIG REWRITE's error when the server was started
// without a configuration file.
var ErrNoConfigFile = errors.New("ERR The server is running without a config file")

// configGet is CONFIG GET: a name without glob characters is looked up
// case-insensitively and answered under the spelling asked for (as Redis
// does); a pattern matches case-insensitively. Each setting appears once.
func configGet(x *cmdtable.Ctx) {
	cfg := srv(x).Config()
	seen := map[*config.Param]bool{}
	var pairs [][2]string
	for _, pat := range x.Args[2:] {
		if !bytes.ContainsAny(pat, "[*?") {
			if p := config.Lookup(string(pat)); p != nil && !seen[p] {
				seen[p] = true
				pairs = append(pairs, [2]string{string(pat), p.Get(cfg)})
			}
			continue
		}
		for _, p := range config.Visible() {
			if !seen[p] && glob.Match(pat, []byte(p.Name), true) {
				seen[p] = true
				pairs = append(pairs, [2]string{p.Name, p.Get(cfg)})
			}
		}
	}
	x.W.Map(len(pairs))
	for _, kv := range pairs {
		x.W.BulkString(kv[0])
		x.W.BulkString(kv[1])
	}
}

// configSet is CONFIG SET, atomic over all its pairs as in Redis 7+: every
// name is checked first (unknown, immutable, duplicate), then the values are
// applied to a copy that replaces the settings only if all of them are valid.
// Errors name the parameter as the client spelled it.
func configSet(x *cmdtable.Ctx) {
	a := srv(x)
	args := x.Args[2:]
	if len(args)%2 != 0 {
		x.Error(cmdtable.ErrSyntax)
		return
	}
	fail := func(name []byte, why string) {
		x.Error(fmt.Sprintf("ERR CONFIG SET failed (possibly related to argument '%s') - %s", cmdtable.CString(name), why))
	}
	params := make([]*config.Param, 0, len(args)/2)
	for i := 0; i < len(args); i += 2 {
		p := config.Lookup(string(args[i]))
		if p == nil {
			x.Error(fmt.Sprintf("ERR Unknown option or number of arguments for CONFIG SET - '%s'", cmdtable.CString(args[i])))
			return
		}
		if p.Immutable {
			fail(args[i], "can't set immutable config")
			return
		}
		if p.Protected && !a.MayDo(a.Config().EnableProtectedConfigs) {
			fail(args[i], "can't set protected config")
			return
		}
		if slices.Contains(params, p) {
			fail(args[i], "duplicate parameter")
			return
		}
		params = append(params, p)
	}
	failed := -1 // the parameter whose value was refused
	err := a.SetConfig(func(next *config.Config) error {
		for i, p := range params {
			vals := []string{string(args[2*i+1])}
			if p.Multi {
				vals = strings.Fields(vals[0])
			}
			if err := p.Set(next, vals); err != nil {
				failed = i
				return err
			}
		}
		return nil
	})
	var ae *ApplyError
	switch {
	case err == nil:
		x.W.OK()
	case errors.As(err, &ae):
		why := ae.Err.Error()
		switch ae.Param {
		case "tls-*":
			why = "Unable to update TLS configuration: " + why
		case "appendonly":
			why = "Unable to turn on AOF. Check server logs."
		}
		fail(args[paramArg(params, ae.Param)], why)
	default:
		fail(args[2*failed], err.Error())
	}
}

// paramArg is the index in CONFIG SET's arguments of the first parameter
// matching pattern (0 if none does).
func paramArg(params []*config.Param, pattern string) int {
	for i, p := range params {
		if glob.Match([]byte(pattern), []byte(p.Name), false) {
			return 2 * i
		}
	}
	return 0
}

// configRewrite is CONFIG REWRITE: the configuration file the server was
// started with is rewritten to the current settings and users (see
// config.Rewrite).
func configRewrite(x *cmdtable.Ctx) {
	a := srv(x)
	err := a.RewriteConfig()
	if err == ErrNoConfigFile {
		x.Error(err.Error())
		return
	}
	if err != nil {
		msg := err.Error()
		var errno syscall.Errno
		if errors.As(err, &errno) { // strerror's wording, as Redis prints it
			msg = errno.Error()
			msg = strings.ToUpper(msg[:1]) + msg[1:]
		}
		a.Logf("warning", "CONFIG-REWRITE failed: %s", msg)
		x.Error("ERR Rewriting config file: " + msg)
		return
	}
	a.Logf("notice", "CONFIG REWRITE executed with success.")
	x.W.OK()
}

func init() {
	const g = "server"
	adm := cmdtable.Admin | cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale
	cmdtable.Register(
		&cmdtable.Cmd{Name: "config", Arity: -2, Group: g, Since: "2.0.0", Summary: "A container for server configuration commands.",
			Subs: []*cmdtable.Cmd{
				{Name: "config|get", Arity: -3, Flags: adm, Run: configGet, Group: g, Since: "2.0.0",
					Summary: "Returns the effective values of configuration parameters.", Args: "parameter [parameter ...]"},
				{Name: "config|set", Arity: -4, Flags: adm, Run: configSet, Group: g, Since: "2.0.0",
					Summary: "Sets configuration parameters in-flight.", Args: "parameter value [parameter value ...]"},
				{Name: "config|resetstat", Arity: 2, Flags: adm, Group: g, Since: "2.0.0",
					Summary: "Resets the server's statistics.",
					Run:     func(x *cmdtable.Ctx) { srv(x).ResetStats(); x.W.OK() }},
				{Name: "config|rewrite", Arity: 2, Flags: adm, Group: g, Since: "2.8.0",
					Summary: "Persists the effective configuration to file.",
					Run:     configRewrite},
				cmdtable.HelpCmd("config", g, "5.0.0", []string{
					"GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
					"SET <directive> <value>", "    Set the configuration <directive> to <value>.",
					"RESETSTAT", "    Reset statistics reported by the INFO command.",
					"REWRITE", "    Rewrite the configuration file.",
				}),
			}},
	)
}
