// Package acl is Redis's access control lists: users, the rules ACL SETUSER
// takes, the ACL LIST description of a user, and the check of a command
// against a user's permissions. It knows the command table (package
// command) but nothing of connections or RESP.
package acl

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/glob"
)

// Key permissions a pattern grants (%R~, %W~; ~ grants both).
const (
	Read uint8 = 1 << iota
	Write
)

// Catalog is what rules name besides commands: the categories, each with
// its commands (subcommands included), in Redis's order.
type Catalog struct {
	Order   []string
	members map[string][]*cmdtable.Cmd
}

// NewCatalog builds the categories from the command table, catsOf giving a
// command's categories (without '@').
func NewCatalog(order []string, catsOf func(*cmdtable.Cmd) []string) *Catalog {
	c := &Catalog{Order: order, members: map[string][]*cmdtable.Cmd{}}
	for _, cmd := range cmdtable.All() {
		for _, x := range append([]*cmdtable.Cmd{cmd}, cmd.Subs...) {
			for _, cat := range catsOf(x) {
				c.members[cat] = append(c.members[cat], x)
			}
		}
	}
	return c
}

// Members lists the commands of a category (false if there is no such
// category).
func (c *Catalog) Members(cat string) ([]*cmdtable.Cmd, bool) {
	if !slices.Contains(c.Order, cat) {
		return nil, false
	}
	return c.members[cat], true
}

type keyPattern struct {
	pat   string
	perms uint8
}

// selector is one set of permissions: the root one of a user, or one of
// its "(...)" selectors. A command runs if some selector allows it whole.
type selector struct {
	cmds      []uint64         // a bit per cmdtable.Cmd.ID
	firstArgs map[int][]string // allowed first arguments of commands whose bit is clear (+select|0)
	allCmds   bool             // started from +@all (ACL LIST says "+@all", not "-@all")
	rules     []string         // command rules since the last +@all/-@all, as ACL LIST shows them
	allKeys   bool             // ~*
	keys      []keyPattern     // otherwise
	allChans  bool             // &*
	chans     []string         // otherwise
}

func newSelector(allChans bool) *selector {
	return &selector{cmds: make([]uint64, (cmdtable.Count()+63)/64), allChans: allChans}
}

func (s *selector) clone() *selector {
	n := *s
	n.cmds = slices.Clone(s.cmds)
	n.rules = slices.Clone(s.rules)
	n.keys = slices.Clone(s.keys)
	n.chans = slices.Clone(s.chans)
	if s.firstArgs != nil {
		n.firstArgs = map[int][]string{}
		for k, v := range s.firstArgs {
			n.firstArgs[k] = slices.Clone(v)
		}
	}
	return &n
}

func (s *selector) has(id int) bool { return s.cmds[id/64]&(1<<(id%64)) != 0 }

func (s *selector) set(id int, on bool) {
	if on {
		s.cmds[id/64] |= 1 << (id % 64)
	} else {
		s.cmds[id/64] &^= 1 << (id % 64)
	}
	delete(s.firstArgs, id)
}

// setCmd allows or denies a command, a container with all its subcommands.
func (s *selector) setCmd(c *cmdtable.Cmd, on bool) {
	s.set(c.ID, on)
	for _, sc := range c.Subs {
		s.set(sc.ID, on)
	}
}

func (s *selector) everyCommand() bool {
	for id := range cmdtable.Count() {
		if !s.has(id) {
			return false
		}
	}
	return true
}

// Profile is a user's settings at one moment. ACL SETUSER replaces a user's
// profile whole, so that a connection checking a command meanwhile sees the
// old one or the new one, never a mix.
type Profile struct {
	Enabled      bool
	NoPass       bool
	SkipSanitize bool
	Passwords    []string    // SHA-256, lower-case hex, in the order added
	sels         []*selector // the root selector, then the "(...)" ones

	// Unrestricted is set when the root selector allows every command, key
	// and channel: the dispatcher then checks nothing.
	Unrestricted bool
}

func (p *Profile) clone() *Profile {
	n := *p
	n.Passwords = slices.Clone(p.Passwords)
	n.sels = make([]*selector, len(p.sels))
	for i, s := range p.sels {
		n.sels[i] = s.clone()
	}
	return &n
}

// User is a named user; its profile changes atomically.
type User struct {
	Name    string
	profile atomic.Pointer[Profile]
}

// Profile returns the user's settings in force.
func (u *User) Profile() *Profile { return u.profile.Load() }

// HashPassword is how passwords are kept and shown: SHA-256 in hex.
func HashPassword(pass []byte) string {
	h := sha256.Sum256(pass)
	return hex.EncodeToString(h[:])
}

// Authenticate reports whether pass opens the user's account.
func (p *Profile) Authenticate(pass []byte) bool {
	if !p.Enabled {
		return false
	}
	if p.NoPass {
		return true
	}
	h := HashPassword(pass)
	ok := false
	for _, w := range p.Passwords { // every one, in constant time, as Redis
		ok = subtle.ConstantTimeCompare([]byte(w), []byte(h)) == 1 || ok
	}
	return ok
}

// Reasons a command is refused, in the order Redis ranks them when no
// selector allows it (the highest wins).
const (
	OK = iota
	DeniedCmd
	DeniedKey
	DeniedAuth
	DeniedChannel
)

// Denial says why a command may not run: Reason, and the key or channel
// (the argument at Pos) for DeniedKey and DeniedChannel.
type Denial struct {
	Reason int
	Pos    int
}

// Key is a key argument of a command and the permissions it needs: Read
// where the command reads it, Write where it inserts, updates or deletes
// (Redis's key-spec flags access, and insert, update, delete).
type Key struct {
	Pos   int
	Perms uint8
}

// ChecksKeys reports whether Check needs the command's keys: some selector
// does not allow every key.
func (p *Profile) ChecksKeys() bool {
	return slices.ContainsFunc(p.sels, func(s *selector) bool { return !s.allKeys })
}

// Check tells whether the profile allows cmd (a subcommand, when args name
// one) with args, whose keys are keys (needed only if ChecksKeys).
func (p *Profile) Check(cmd *cmdtable.Cmd, args [][]byte, keys []Key) Denial {
	best := Denial{}
	for i, s := range p.sels {
		d := s.check(cmd, args, keys)
		if d.Reason == OK {
			return d
		}
		if i == 0 || d.Reason > best.Reason || d.Reason == best.Reason && d.Pos > best.Pos {
			best = d
		}
	}
	return best
}

func (s *selector) check(cmd *cmdtable.Cmd, args [][]byte, keys []Key) Denial {
	// AUTH, HELLO, QUIT and RESET are never refused, as in Redis: a user
	// without them could not log in as another.
	if cmd.Flags&cmdtable.NoAuth == 0 && !s.has(cmd.ID) && !s.firstArgAllowed(cmd, args) {
		return Denial{Reason: DeniedCmd}
	}
	if !s.allKeys {
		for _, k := range keys {
			if !s.keyAllowed(args[k.Pos], k.Perms) {
				return Denial{DeniedKey, k.Pos}
			}
		}
	}
	if !s.allChans {
		first, pattern := channelArgs(cmd)
		if first > 0 {
			last := len(args) - 1
			if cmd.Name == "publish" || cmd.Name == "spublish" {
				last = first
			}
			for i := first; i <= last && i < len(args); i++ {
				if !s.channelAllowed(args[i], pattern) {
					return Denial{DeniedChannel, i}
				}
			}
		}
	}
	return Denial{}
}

func (s *selector) firstArgAllowed(cmd *cmdtable.Cmd, args [][]byte) bool {
	if len(args) < 2 || s.firstArgs == nil {
		return false
	}
	for _, a := range s.firstArgs[cmd.ID] {
		if strings.EqualFold(a, string(args[1])) {
			return true
		}
	}
	return false
}

func (s *selector) keyAllowed(key []byte, need uint8) bool {
	for _, k := range s.keys {
		if k.perms&need == need && glob.Match([]byte(k.pat), key, false) {
			return true
		}
	}
	return false
}

// channelArgs is where a pub/sub command names channels that ACLs guard
// (publishing and subscribing; unsubscribing is always allowed), and
// whether they are patterns.
func channelArgs(cmd *cmdtable.Cmd) (first int, pattern bool) {
	switch cmd.Name {
	case "publish", "spublish", "subscribe", "ssubscribe":
		return 1, false
	case "psubscribe":
		return 1, true
	}
	return 0, false
}

// channelAllowed matches a channel against the allowed patterns; a pattern
// subscribed to must equal an allowed one, as in Redis.
func (s *selector) channelAllowed(ch []byte, pattern bool) bool {
	for _, p := range s.chans {
		if pattern && p == string(ch) || !pattern && glob.Match([]byte(p), ch, false) {
			return true
		}
	}
	return false
}

// AllKeysFor tells whether one selector both allows cmd with args and may
// read every key (allkeys, or a "*" pattern with read): SORT's BY and GET
// patterns reach keys no check saw, so Redis allows them only then
// (ACLUserCheckCmdWithUnrestrictedKeyAccess).
func (p *Profile) AllKeysFor(cmd *cmdtable.Cmd, args [][]byte, keys []Key) bool {
	for _, s := range p.sels {
		if s.check(cmd, args, keys).Reason != OK {
			continue
		}
		if s.allKeys || slices.ContainsFunc(s.keys, func(k keyPattern) bool { return k.pat == "*" && k.perms&Read != 0 }) {
			return true
		}
	}
	return false
}

// ChannelAllowed tells whether the profile lets a client stay subscribed to
// ch (a pattern if pattern): ACL SETUSER disconnects those it no longer does.
func (p *Profile) ChannelAllowed(ch string, pattern bool) bool {
	for _, s := range p.sels {
		if s.allChans || s.channelAllowed([]byte(ch), pattern) {
			return true
		}
	}
	return false
}
