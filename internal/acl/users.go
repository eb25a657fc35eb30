package acl

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Users is the server's user table. The "default" user always exists;
// connections start as it.
type Users struct {
	cat *Catalog

	mu       sync.RWMutex
	users    map[string]*User
	allChans bool // acl-pubsub-default allchannels: new users may use every channel
}

// NewUsers returns a table holding only the default user, unrestricted and
// without a password.
func NewUsers(cat *Catalog) *Users {
	t := &Users{cat: cat, users: map[string]*User{}}
	d := &User{Name: "default"}
	p, err := newProfile(true).apply([]string{"on", "nopass", "~*", "&*", "+@all"}, cat, true)
	if err != nil {
		panic(err) // the rules above are valid
	}
	d.profile.Store(p)
	t.users["default"] = d
	return t
}

// Catalog returns the categories rules name.
func (t *Users) Catalog() *Catalog { return t.cat }

// SetPubsubDefault sets whether new users (and "reset") start with every
// channel (acl-pubsub-default allchannels) or none (resetchannels).
func (t *Users) SetPubsubDefault(all bool) {
	t.mu.Lock()
	t.allChans = all
	t.mu.Unlock()
}

// Get returns the named user, or nil.
func (t *Users) Get(name string) *User {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.users[name]
}

// Default returns the default user.
func (t *Users) Default() *User { return t.Get("default") }

// SetUser creates the user if needed and applies rules to it, all or none.
// It returns the user and whether it is new.
func (t *Users) SetUser(name string, rules []string) (*User, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	u := t.users[name]
	from := newProfile(t.allChans)
	if u != nil {
		from = u.Profile()
	}
	p, err := from.apply(rules, t.cat, t.allChans)
	if err != nil {
		return nil, err
	}
	if u == nil {
		u = &User{Name: name}
		t.users[name] = u
	}
	u.profile.Store(p)
	return u, nil
}

// Delete removes the named users that exist and returns them. The default
// user cannot be removed.
func (t *Users) Delete(names []string) ([]*User, error) {
	if slices.Contains(names, "default") {
		return nil, errors.New("ERR The 'default' user cannot be removed")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var gone []*User
	for _, n := range names {
		if u := t.users[n]; u != nil {
			delete(t.users, n)
			gone = append(gone, u)
		}
	}
	return gone, nil
}

// Names lists the users, sorted.
func (t *Users) Names() []string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]string, 0, len(t.users))
	for n := range t.users {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Replace swaps the whole table for users defined by lines of "user <name>
// <rules...>" (an ACL file, or the config file's user directives), after
// checking them all; a line that fails names its number. Users not defined
// are removed (and returned), except the default user, which is reset to
// its initial settings unless defined.
func (t *Users) Replace(lines []string) ([]*User, error) {
	fresh := NewUsers(t.cat)
	fresh.allChans = t.allChans
	for i, line := range lines {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if f[0] != "user" || len(f) < 2 {
			return nil, fmt.Errorf("line %d should start with user keyword", i+1)
		}
		rules, err := SplitSelectors(f[2:])
		if err != nil {
			return nil, fmt.Errorf("line %d: %s", i+1, strings.TrimPrefix(err.Error(), "ERR "))
		}
		if f[1] != "default" && fresh.Get(f[1]) != nil {
			return nil, fmt.Errorf("line %d: duplicate user '%s' found", i+1, f[1])
		}
		if _, err := fresh.SetUser(f[1], append([]string{"reset"}, rules...)); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	old := t.users
	t.users = map[string]*User{}
	for n, u := range fresh.users {
		if o := old[n]; o != nil { // connections logged in as o see the new rules
			o.profile.Store(u.Profile())
			u = o
			delete(old, n)
		}
		t.users[n] = u
	}
	var gone []*User
	for _, u := range old {
		gone = append(gone, u)
	}
	return gone, nil
}

// Describe is a user as ACL LIST and the ACL file write it, without the
// leading "user".
func (u *User) Describe() string {
	p := u.Profile()
	b := []string{u.Name}
	b = append(b, p.Flags()...)
	for _, h := range p.Passwords {
		b = append(b, "#"+h)
	}
	b = append(b, p.sels[0].describe())
	for _, s := range p.sels[1:] {
		b = append(b, "("+s.describe()+")")
	}
	return strings.Join(b, " ")
}

// Flags are the user flags ACL GETUSER lists.
func (p *Profile) Flags() []string {
	f := []string{"off"}
	if p.Enabled {
		f[0] = "on"
	}
	if p.NoPass {
		f = append(f, "nopass")
	}
	if p.SkipSanitize {
		return append(f, "skip-sanitize-payload")
	}
	return append(f, "sanitize-payload")
}

// SelectorText is one selector's commands, keys and channels as ACL
// GETUSER shows them; index 0 is the root selector.
type SelectorText struct{ Commands, Keys, Channels string }

// Selectors describes the root selector, then each "(...)" one.
func (p *Profile) Selectors() []SelectorText {
	var out []SelectorText
	for _, s := range p.sels {
		out = append(out, SelectorText{s.commandsText(), strings.Join(s.keysText(), " "), s.channelsText()})
	}
	return out
}
