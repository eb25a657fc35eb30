package server

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hotkv/hotkv/internal/acl"
	"github.com/hotkv/hotkv/internal/admin"
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
	"github.com/hotkv/hotkv/internal/resp"
)

// ACL: users and their permissions (package acl), checked by execute before
// a command runs, by EXEC again for each queued command, and by scripts for
// each redis.call; the ACL command family; the ACL LOG of refusals.

// catalog is the ACL categories of the command table, built once the
// command packages have registered.
var catalog = sync.OnceValue(func() *acl.Catalog {
	return acl.NewCatalog(admin.CategoryOrder, func(c *cmdtable.Cmd) []string {
		var out []string
		for _, cat := range admin.Categories(c) {
			out = append(out, strings.TrimPrefix(cat, "@"))
		}
		return out
	})
})

// aclState is the server's part of ACLs besides the users.
type aclState struct {
	log    aclLog
	denied [acl.DeniedChannel + 1]atomic.Int64 // INFO acl_access_denied_*, by reason
}

// loadUsers sets up the users at start-up: from the config file's user
// lines or the ACL file (not both, as in Redis), then requirepass.
func (s *Server) loadUsers(cfg *config.Config) error {
	s.users.SetPubsubDefault(cfg.ACLPubsubAll)
	if cfg.ACLFile != "" && len(cfg.Users) > 0 {
		return errors.New("Configuring HotKV with users defined in the configuration file and at the same setting an ACL file path is invalid. Please define either an ACL file or declare users directly in the configuration file, but not both.")
	}
	var lines []string
	for _, u := range cfg.Users {
		lines = append(lines, "user "+strings.Join(u, " "))
	}
	if cfg.ACLFile != "" {
		var err error
		if lines, err = readACLFile(cfg.ACLFile); err != nil {
			return err
		}
	}
	if len(lines) > 0 {
		if _, err := s.users.Replace(lines); err != nil {
			return fmt.Errorf("Error in user declaration: %v", err)
		}
	}
	if cfg.RequirePass != "" && !definesDefault(lines) {
		s.setRequirePass(cfg.RequirePass)
	}
	return nil
}

func definesDefault(lines []string) bool {
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "user" && f[1] == "default" {
			return true
		}
	}
	return false
}

func readACLFile(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("Error loading ACLs, opening file '%s': %v", path, err)
	}
	return strings.Split(string(b), "\n"), nil
}

// setRequirePass is requirepass's effect: the default user's password, or
// none ("nopass") when empty.
func (s *Server) setRequirePass(pass string) {
	rules := []string{"nopass"}
	if pass != "" {
		rules = []string{"resetpass", ">" + pass}
	}
	if _, err := s.users.SetUser("default", rules); err != nil {
		panic(err) // these rules always apply
	}
}

// defaultNeedsAuth is Redis's condition for authRequired: the default user
// has a password or is disabled.
func (s *Server) defaultNeedsAuth() bool {
	p := s.defaultUser.Profile()
	return !p.NoPass || !p.Enabled
}

// aclCheck checks cmd, whose key positions in args are keys, against the
// client's user; on refusal it logs the refusal (context: toplevel, multi or
// lua) and returns it.
func (c *client) aclCheck(cmd *cmdtable.Cmd, args [][]byte, keys []int, context string) (acl.Denial, bool) {
	p := c.auth.user.Load().Profile()
	if p.Unrestricted {
		return acl.Denial{}, true
	}
	d := aclAllows(p, cmd, args, keys)
	if d.Reason == acl.OK {
		return d, true
	}
	c.s.aclDenied(c, d.Reason, context, deniedObject(cmd, args, d), c.auth.user.Load().Name)
	return d, false
}

func deniedObject(cmd *cmdtable.Cmd, args [][]byte, d acl.Denial) string {
	if d.Reason == acl.DeniedCmd {
		return cmd.Name
	}
	return string(args[d.Pos])
}

// noPermText is the error a refused command gets: verbose names the key or
// channel (ACL DRYRUN), as Redis's getAclErrorMessage.
func noPermText(user string, cmd *cmdtable.Cmd, args [][]byte, d acl.Denial, verbose bool) string {
	switch {
	case d.Reason == acl.DeniedCmd:
		return fmt.Sprintf("User %s has no permissions to run the '%s' command", user, cmd.Name)
	case d.Reason == acl.DeniedKey && verbose:
		return fmt.Sprintf("User %s has no permissions to access the '%s' key", user, args[d.Pos])
	case d.Reason == acl.DeniedKey:
		return "No permissions to access a key"
	case verbose:
		return fmt.Sprintf("User %s has no permissions to access the '%s' channel", user, args[d.Pos])
	}
	return "No permissions to access a channel"
}

// execNoPerm is what a queued command gets when the rules changed between
// MULTI and EXEC, as in Redis.
func execNoPerm(reason int) string {
	why := "no permission"
	switch reason {
	case acl.DeniedCmd:
		why = "no permission to execute the command or subcommand"
	case acl.DeniedKey:
		why = "no permission to touch the specified keys"
	case acl.DeniedChannel:
		why = "no permission to access one of the channels used as arguments"
	}
	return "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This command is no longer allowed for the following reason: " + why
}

// authenticate checks credentials: the named user (the default user when
// user is nil), enabled, with a matching password or nopass. A failure is
// logged under the command's name (AUTH, HELLO).
func (c *client) authenticate(via string, user, pass []byte) (*acl.User, bool) {
	name := "default"
	if user != nil {
		name = string(user)
	}
	u := c.s.users.Get(name)
	if u == nil || !u.Profile().Authenticate(pass) {
		c.s.aclDenied(c, acl.DeniedAuth, "toplevel", via, name)
		return nil, false
	}
	return u, true
}

// login makes u the connection's user, unless u was deleted meanwhile
// (ACL DELUSER closes the connections it finds logged in as u: one that
// logs in after its scan must not stay).
func (c *client) login(u *acl.User) bool {
	c.auth.user.Store(u)
	if c.s.users.Get(u.Name) != u {
		c.auth.user.Store(c.s.defaultUser)
		return false
	}
	c.auth.ok = true
	return true
}

// disconnectUsers closes the connections logged in as any of users (ACL
// DELUSER, ACL LOAD), as Redis does; the caller's own closes after its reply.
func (s *Server) disconnectUsers(by *client, users []*acl.User) {
	if len(users) == 0 {
		return
	}
	for _, o := range s.clientList() {
		for _, u := range users {
			if o.auth.user.Load() == u {
				o.kill(by)
			}
		}
	}
}

// dropForbiddenSubscribers closes the connections of u subscribed to a
// channel or pattern its new rules forbid (ACL SETUSER), as Redis does.
func (s *Server) dropForbiddenSubscribers(by *client, u *acl.User) {
	p := u.Profile()
	for _, o := range s.clientList() {
		if o.auth.user.Load() != u {
			continue
		}
		if !s.hub.AllowedFor(&o.pubsub.ep, p) {
			o.kill(by)
		}
	}
}

func aclSetUser(x *cmdtable.Ctx) {
	c := cl(x)
	words := make([]string, len(x.Args)-3)
	for i, a := range x.Args[3:] {
		words[i] = string(a)
	}
	if bytes.ContainsAny(x.Args[2], " \x00") {
		x.Error("ERR Usernames can't contain spaces or null characters")
		return
	}
	rules, err := acl.SplitSelectors(words)
	if err != nil {
		x.Error(err.Error())
		return
	}
	u, err := c.s.users.SetUser(string(x.Args[2]), rules)
	if err != nil {
		x.Error("ERR " + err.Error())
		return
	}
	c.s.dropForbiddenSubscribers(c, u)
	x.W.OK()
}

func aclGetUser(x *cmdtable.Ctx) {
	u := cl(x).s.users.Get(string(x.Args[2]))
	w := x.W
	if u == nil {
		w.NullArray()
		return
	}
	p := u.Profile()
	sels := p.Selectors()
	w.Map(6)
	w.BulkString("flags")
	flags := p.Flags()
	w.Set(len(flags))
	for _, f := range flags {
		w.BulkString(f)
	}
	w.BulkString("passwords")
	w.Array(len(p.Passwords))
	for _, h := range p.Passwords {
		w.BulkString(h)
	}
	writeSelector(w, sels[0])
	w.BulkString("selectors")
	w.Array(len(sels) - 1)
	for _, s := range sels[1:] {
		w.Map(3)
		writeSelector(w, s)
	}
}

func writeSelector(w *resp.Writer, s acl.SelectorText) {
	w.BulkString("commands")
	w.BulkString(s.Commands)
	w.BulkString("keys")
	w.BulkString(s.Keys)
	w.BulkString("channels")
	w.BulkString(s.Channels)
}

func aclDelUser(x *cmdtable.Ctx) {
	c := cl(x)
	names := make([]string, len(x.Args)-2)
	for i, a := range x.Args[2:] {
		names[i] = string(a)
	}
	gone, err := c.s.users.Delete(names)
	if err != nil {
		x.Error(err.Error())
		return
	}
	c.s.disconnectUsers(c, gone)
	x.W.Int(int64(len(gone)))
}

func aclUsers(x *cmdtable.Ctx) {
	names := cl(x).s.users.Names()
	x.W.Array(len(names))
	for _, n := range names {
		x.W.BulkString(n)
	}
}

func aclList(x *cmdtable.Ctx) {
	lines := cl(x).s.aclLines()
	x.W.Array(len(lines))
	for _, l := range lines {
		x.W.BulkString(l)
	}
}

// aclLines is every user as ACL LIST and ACL SAVE write it.
func (s *Server) aclLines() []string {
	var out []string
	for _, n := range s.users.Names() {
		if u := s.users.Get(n); u != nil {
			out = append(out, "user "+u.Describe())
		}
	}
	return out
}

func aclWhoami(x *cmdtable.Ctx) { x.W.BulkString(cl(x).auth.user.Load().Name) }

func aclCat(x *cmdtable.Ctx) {
	cat := cl(x).s.users.Catalog()
	w := x.W
	if len(x.Args) == 2 {
		w.Array(len(cat.Order))
		for _, c := range cat.Order {
			w.BulkString(c)
		}
		return
	}
	members, ok := cat.Members(strings.ToLower(string(x.Args[2])))
	if !ok {
		x.Error(fmt.Sprintf("ERR Unknown category '%s'", cstr(x.Args[2], -1)))
		return
	}
	w.Array(len(members))
	for _, m := range members {
		w.BulkString(m.Name)
	}
}

func aclGenPass(x *cmdtable.Ctx) {
	bits := int64(256)
	if len(x.Args) == 3 {
		n, ok := cmdtable.ParseInt(x.Args[2])
		if !ok {
			x.Error(cmdtable.ErrNotInt)
			return
		}
		if n <= 0 || n > 4096 {
			x.Error("ERR ACL GENPASS argument must be the number of bits for the output password, a positive number up to 4096")
			return
		}
		bits = n
	}
	chars := (bits + 3) / 4
	b := make([]byte, (chars+1)/2)
	rand.Read(b)
	x.W.BulkString(hex.EncodeToString(b)[:chars])
}

func aclDryRun(x *cmdtable.Ctx) {
	c := cl(x)
	name := string(x.Args[2])
	u := c.s.users.Get(name)
	if u == nil {
		x.Error(fmt.Sprintf("ERR User '%s' not found", name))
		return
	}
	args := x.Args[3:]
	cmd := c.s.lookup(args[0])
	if cmd != nil && cmd.Subs != nil && len(args) > 1 {
		cmd = cmd.Sub(args[1])
	}
	if cmd == nil {
		x.Error(fmt.Sprintf("ERR Command '%s' not found", cstr(args[0], -1)))
		return
	}
	if !cmd.CheckArity(len(args)) {
		x.Error(cmdtable.WrongArgs(cmd.Name))
		return
	}
	if d := aclAllows(u.Profile(), cmd, args, cmd.KeyPositions(args, nil)); d.Reason != acl.OK {
		x.W.BulkString(noPermText(name, cmd, args, d, true))
		return
	}
	x.W.OK()
}

const errNoACLFile = "ERR This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration."

// aclLoad is ACL LOAD: the file replaces every user at once, or nothing
// changes; connections of users it drops are closed.
func aclLoad(x *cmdtable.Ctx) {
	c := cl(x)
	path := c.s.Config().ACLFile
	if path == "" {
		x.Error(errNoACLFile)
		return
	}
	lines, err := readACLFile(path)
	if err == nil {
		var gone []*acl.User
		if gone, err = c.s.users.Replace(lines); err == nil {
			c.s.disconnectUsers(c, gone)
			for _, n := range c.s.users.Names() {
				if u := c.s.users.Get(n); u != nil {
					c.s.dropForbiddenSubscribers(c, u)
				}
			}
			x.W.OK()
			return
		}
	}
	x.Error("ERR " + err.Error())
}

// aclSave is ACL SAVE: written to a temporary file, then renamed over the
// ACL file, so a crash leaves the old file or the new one.
func aclSave(x *cmdtable.Ctx) {
	c := cl(x)
	path := c.s.Config().ACLFile
	if path == "" {
		x.Error(errNoACLFile)
		return
	}
	text := strings.Join(c.s.aclLines(), "\n") + "\n"
	tmp, err := os.CreateTemp(filepath.Dir(path), ".acl-*.tmp")
	if err == nil {
		if err = tmp.Chmod(0o644); err == nil {
			_, err = tmp.WriteString(text)
		}
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}
	if err != nil {
		c.s.logf("warning", "Failed to save the ACL file: %v", err)
		x.Error("ERR There was an error trying to save the ACLs. Please check the server logs for more information")
		return
	}
	x.W.OK()
}

// aclLog keeps the latest refusals, newest first. A refusal like a recent
// one (same reason, context, object and user within a minute) counts on
// that entry instead of adding one, as Redis's does.
type aclLog struct {
	mu      sync.Mutex
	entries []*aclEntry
	nextID  int64
}

type aclEntry struct {
	count                   int64
	reason, context, object string
	username                string
	clientInfo              string
	id                      int64
	created, updated        int64 // unix ms
}

var reasonNames = [...]string{acl.DeniedCmd: "command", acl.DeniedKey: "key", acl.DeniedAuth: "auth", acl.DeniedChannel: "channel"}

func (s *Server) aclDenied(c *client, reason int, context, object, username string) {
	s.acl.denied[reason].Add(1)
	max := int(s.Config().ACLLogMaxLen)
	now := time.Now().UnixMilli()
	info := c.describe()
	l := &s.acl.log
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, e := range l.entries[:min(len(l.entries), 10)] { // as Redis: the ten latest, updated within a minute
		if e.reason == reasonNames[reason] && e.context == context && e.object == object && e.username == username && now-e.updated < 60000 {
			e.count++
			e.updated, e.clientInfo = now, info
			copy(l.entries[1:i+1], l.entries[:i]) // the latest first
			l.entries[0] = e
			return
		}
	}
	e := &aclEntry{count: 1, reason: reasonNames[reason], context: context, object: object, username: username,
		clientInfo: info, id: l.nextID, created: now, updated: now}
	l.nextID++
	l.entries = append([]*aclEntry{e}, l.entries...)
	if len(l.entries) > max {
		l.entries = l.entries[:max]
	}
}

func aclLogCmd(x *cmdtable.Ctx) {
	c := cl(x)
	l := &c.s.acl.log
	n := int64(10)
	if len(x.Args) == 3 {
		if cmdtable.Is(x.Args[2], "reset") {
			l.mu.Lock()
			l.entries = nil
			l.mu.Unlock()
			x.W.OK()
			return
		}
		v, ok := cmdtable.ParseInt(x.Args[2])
		if !ok {
			x.Error(cmdtable.ErrNotInt)
			return
		}
		n = max(v, 0)
	}
	l.mu.Lock()
	entries := l.entries[:min(int(n), len(l.entries))]
	var copied []aclEntry
	for _, e := range entries {
		copied = append(copied, *e)
	}
	l.mu.Unlock()
	now := time.Now().UnixMilli()
	w := x.W
	w.Array(len(copied))
	for _, e := range copied {
		w.Map(10)
		w.BulkString("count")
		w.Int(e.count)
		w.BulkString("reason")
		w.BulkString(e.reason)
		w.BulkString("context")
		w.BulkString(e.context)
		w.BulkString("object")
		w.BulkString(e.object)
		w.BulkString("username")
		w.BulkString(e.username)
		w.BulkString("age-seconds")
		w.Double(float64(now-e.updated) / 1000)
		w.BulkString("client-info")
		w.BulkString(e.clientInfo)
		w.BulkString("entry-id")
		w.Int(e.id)
		w.BulkString("timestamp-created")
		w.Int(e.created)
		w.BulkString("timestamp-last-updated")
		w.Int(e.updated)
	}
}

func init() {
	const g = "server"
	adm := cmdtable.Admin | cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale
	f := cmdtable.NoScript | cmdtable.Loading | cmdtable.Stale
	cmdtable.Register(&cmdtable.Cmd{Name: "acl", Arity: -2, Group: g, Since: "6.0.0", Summary: "A container for Access List Control commands.",
		Subs: []*cmdtable.Cmd{
			{Name: "acl|cat", Arity: -2, Flags: f, Run: aclCat, Group: g, Since: "6.0.0",
				Summary: "Lists the ACL categories, or the commands inside a category.", Args: "[category]"},
			{Name: "acl|deluser", Arity: -3, Flags: adm, Run: aclDelUser, Group: g, Since: "6.0.0",
				Summary: "Deletes ACL users, and terminates their connections.", Args: "username [username ...]"},
			{Name: "acl|dryrun", Arity: -4, Flags: adm, Run: aclDryRun, Group: g, Since: "7.0.0",
				Summary: "Simulates the execution of a command by a user, without executing the command.", Args: "username command [arg [arg ...]]"},
			{Name: "acl|genpass", Arity: -2, Flags: f, Run: aclGenPass, Group: g, Since: "6.0.0",
				Summary: "Generates a pseudorandom, secure password that can be used to identify ACL users.", Args: "[bits]"},
			{Name: "acl|getuser", Arity: 3, Flags: adm, Run: aclGetUser, Group: g, Since: "6.0.0",
				Summary: "Lists the ACL rules of a user.", Args: "username"},
			helpCmd("acl", []string{
				"CAT [<category>]",
				"    List all commands that belong to <category>, or all command categories",
				"    when no category is specified.",
				"DELUSER <username> [<username> ...]",
				"    Delete a list of users.",
				"DRYRUN <username> <command> [<arg> ...]",
				"    Returns whether the user can execute the given command without executing the command.",
				"GETUSER <username>",
				"    Get the user's details.",
				"GENPASS [<bits>]",
				"    Generate a secure 256-bit user password. The optional `bits` argument can",
				"    be used to specify a different size.",
				"LIST",
				"    Show users details in config file format.",
				"LOAD",
				"    Reload users from the ACL file.",
				"LOG [<count> | RESET]",
				"    Show the ACL log entries.",
				"SAVE",
				"    Save the current config to the ACL file.",
				"SETUSER <username> <attribute> [<attribute> ...]",
				"    Create or modify a user with the specified attributes.",
				"USERS",
				"    List all the registered usernames.",
				"WHOAMI",
				"    Return the current connection username.",
			}),
			{Name: "acl|list", Arity: 2, Flags: adm, Run: aclList, Group: g, Since: "6.0.0",
				Summary: "Dumps the effective rules in ACL file format."},
			{Name: "acl|load", Arity: 2, Flags: adm, Run: aclLoad, Group: g, Since: "6.0.0",
				Summary: "Reloads the rules from the configured ACL file."},
			{Name: "acl|log", Arity: -2, Flags: adm, Run: aclLogCmd, Group: g, Since: "6.0.0",
				Summary: "Lists recent security events generated due to ACL rules.", Args: "[count | RESET]"},
			{Name: "acl|save", Arity: 2, Flags: adm, Run: aclSave, Group: g, Since: "6.0.0",
				Summary: "Saves the effective ACL rules in the configured ACL file."},
			{Name: "acl|setuser", Arity: -3, Flags: adm, Run: aclSetUser, Group: g, Since: "6.0.0",
				Summary: "Creates and modifies an ACL user and its rules.", Args: "username [rule [rule ...]]"},
			{Name: "acl|users", Arity: 2, Flags: adm, Run: aclUsers, Group: g, Since: "6.0.0",
				Summary: "Lists all ACL users."},
			{Name: "acl|whoami", Arity: 2, Flags: f, Run: aclWhoami, Group: g, Since: "6.0.0",
				Summary: "Returns the authenticated username of the current connection."},
		}})
}

// scriptACL checks a script's redis.call against the client's user, as
// Redis's scriptVerifyACL: the refusal is logged in context "lua", also
// for a script EXEC runs (as Redis 8.0.2 does).
func (c *client) scriptACL(cmd *cmdtable.Cmd, args [][]byte, keys []int, refusal *string) bool {
	d, ok := c.aclCheck(cmd, args, keys, "lua")
	if !ok {
		*refusal = "ERR ACL failure in script: " + noPermText(c.auth.user.Load().Name, cmd, args, d, false)
	}
	return ok
}

// aclKeys lists cmd's keys in args with the permissions each needs, as
// Redis finds them (keysOf, from positions, cmd's key positions in args)
// and reads its key-spec flags: access needs read; insert, update, delete
// need write; a key with neither only needs to match some pattern.
func aclKeys(cmd *cmdtable.Cmd, args [][]byte, positions []int) []acl.Key {
	pos, flags := keysOf(cmd, args, positions)
	keys := make([]acl.Key, 0, len(pos))
	for i, p := range pos {
		if flags[i]&ksNotKey != 0 {
			continue
		}
		k := acl.Key{Pos: p}
		if flags[i]&ksAccess != 0 {
			k.Perms |= acl.Read
		}
		if flags[i]&(ksInsert|ksUpdate|ksDelete) != 0 {
			k.Perms |= acl.Write
		}
		keys = append(keys, k)
	}
	return keys
}

// aclAllows checks cmd, whose key positions in args are positions, against
// profile p.
func aclAllows(p *acl.Profile, cmd *cmdtable.Cmd, args [][]byte, positions []int) acl.Denial {
	var keys []acl.Key
	if p.ChecksKeys() {
		keys = aclKeys(cmd, args, positions)
	}
	return p.Check(cmd, args, keys)
}

// FullKeyAccess reports whether the client's user may run args (a SORT)
// with access to every key, which its BY and GET options need, as in Redis.
func (c *client) FullKeyAccess(args [][]byte) bool {
	p := c.auth.user.Load().Profile()
	if p.Unrestricted {
		return true
	}
	cmd := c.s.lookup(args[0])
	return cmd != nil && p.AllKeysFor(cmd, args, aclKeys(cmd, args, cmd.KeyPositions(args, nil)))
}

// aclRecheck checks again a command that waited (blocked on keys, or held
// by CLIENT PAUSE) before it runs: the rules may have changed meanwhile,
// and Redis checks a command when it runs. It returns the refusal, or "".
func (c *client) aclRecheck(cmd *cmdtable.Cmd, args [][]byte, keys []int) string {
	if d, ok := c.aclCheck(cmd, args, keys, "toplevel"); !ok {
		return "NOPERM " + noPermText(c.auth.user.Load().Name, cmd, args, d, false)
	}
	return ""
}

// refused checks a blocked command about to be served against its user's
// rules, which may have changed while it waited, and answers the refusal.
func (b *blocked) refused() bool {
	if b.c.auth.user.Load().Profile().Unrestricted {
		return false
	}
	msg := b.c.aclRecheck(b.cmd, b.args, b.pos)
	if msg != "" {
		b.out.Error(msg)
	}
	return msg != ""
}

// MayRun is redis.acl_check_cmd for the script running on c: whether its
// user may run args (script.Caller), with Redis's refusals of the question.
// ErrorCounted is script.Caller's: the script's error reply is one its
// commands met, already in the error statistics.
func (c *client) ErrorCounted() { c.errCounted = true }

func (c *client) MayRun(args [][]byte) (bool, string) {
	cmd := c.s.lookup(args[0])
	if cmd != nil && cmd.Subs != nil && len(args) > 1 {
		cmd = cmd.Sub(args[1])
	}
	switch {
	case cmd == nil:
		return false, "Invalid command passed to redis.acl_check_cmd()"
	case !cmd.CheckArity(len(args)):
		return false, "Wrong number of args for redis.acl_check_cmd()"
	}
	p := c.auth.user.Load().Profile()
	return p.Unrestricted || aclAllows(p, cmd, args, cmd.KeyPositions(args, nil)).Reason == acl.OK, ""
}
