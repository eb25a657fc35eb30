package acl

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
)

// Rule errors, with Redis's texts (ACL SETUSER wraps them with the rule).
var (
	errSyntax          = errors.New("Syntax error")
	errUnknown         = errors.New("Unknown command or category name in ACL")
	errNoSuchPassword  = errors.New("The password you are trying to remove from the user does not exist")
	errBadHash         = errors.New("The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters")
	errKeyAfterAll     = errors.New("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns")
	errChannelAfterAll = errors.New("Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels")
	errSubFirstArg     = errors.New("Allowing first-arg of a subcommand is not supported")
)

// RuleError is a rule ACL SETUSER refused, and why.
type RuleError struct {
	Rule string
	Err  error
}

func (e *RuleError) Error() string {
	rule, _, _ := strings.Cut(e.Rule, "\x00") // as Redis prints it, with %s
	return fmt.Sprintf("Error in ACL SETUSER modifier '%s': %s", rule, e.Err)
}

// SplitSelectors groups arguments into rules: "(" ... ")" spanning several
// arguments becomes one selector rule, as ACL SETUSER and the ACL file
// allow. The error is Redis's for an unclosed parenthesis.
func SplitSelectors(args []string) ([]string, error) {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "(") || strings.HasSuffix(a, ")") {
			out = append(out, a)
			continue
		}
		j := i
		for j < len(args) && !strings.HasSuffix(args[j], ")") {
			j++
		}
		if j == len(args) {
			return nil, fmt.Errorf("ERR Unmatched parenthesis in acl selector starting at '%s'.", a)
		}
		out = append(out, strings.Join(args[i:j+1], " "))
		i = j
	}
	return out, nil
}

// newProfile is a new user's settings: off, no password, no permissions,
// every channel if acl-pubsub-default is allchannels.
func newProfile(allChans bool) *Profile {
	return &Profile{sels: []*selector{newSelector(allChans)}}
}

// apply applies rules in order to a copy of p, or fails at the first it
// cannot apply (p unchanged).
func (p *Profile) apply(rules []string, cat *Catalog, allChans bool) (*Profile, error) {
	n := p.clone()
	for _, r := range rules {
		if err := n.applyOne(r, cat, allChans); err != nil {
			return nil, &RuleError{r, err}
		}
	}
	root := n.sels[0]
	n.Unrestricted = root.allKeys && root.allChans && root.everyCommand()
	return n, nil
}

func (p *Profile) applyOne(r string, cat *Catalog, allChans bool) error {
	switch lr := strings.ToLower(r); {
	case lr == "on":
		p.Enabled = true
	case lr == "off":
		p.Enabled = false
	case lr == "skip-sanitize-payload":
		p.SkipSanitize = true
	case lr == "sanitize-payload":
		p.SkipSanitize = false
	case lr == "nopass":
		p.NoPass, p.Passwords = true, nil
	case lr == "resetpass":
		p.NoPass, p.Passwords = false, nil
	case lr == "reset":
		*p = *newProfile(allChans)
	case lr == "clearselectors":
		p.sels = p.sels[:1]
	case strings.HasPrefix(r, ">"):
		p.addPassword(HashPassword([]byte(r[1:])))
	case strings.HasPrefix(r, "#"):
		if !validHash(r[1:]) {
			return errBadHash
		}
		p.addPassword(r[1:])
	case strings.HasPrefix(r, "<"):
		return p.removePassword(HashPassword([]byte(r[1:])))
	case strings.HasPrefix(r, "!"):
		if !validHash(r[1:]) {
			return errBadHash
		}
		return p.removePassword(r[1:])
	case strings.HasPrefix(r, "(") && strings.HasSuffix(r, ")"):
		s := newSelector(allChans)
		for _, sr := range strings.Fields(r[1 : len(r)-1]) {
			if err := s.apply(sr, cat, allChans); err != nil {
				return err
			}
		}
		p.sels = append(p.sels, s)
	default:
		return p.sels[0].apply(r, cat, allChans)
	}
	return nil
}

func (p *Profile) addPassword(h string) {
	p.NoPass = false
	if !slices.Contains(p.Passwords, h) {
		p.Passwords = append(p.Passwords, h)
	}
}

func (p *Profile) removePassword(h string) error {
	i := slices.Index(p.Passwords, h)
	if i < 0 {
		return errNoSuchPassword
	}
	p.NoPass = false
	p.Passwords = slices.Delete(p.Passwords, i, i+1)
	return nil
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for _, c := range h {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// apply applies one selector rule: keys, channels or commands.
func (s *selector) apply(r string, cat *Catalog, allChans bool) error {
	switch lr := strings.ToLower(r); {
	case lr == "allkeys" || r == "~*":
		s.allKeys, s.keys = true, nil
	case lr == "resetkeys":
		s.allKeys, s.keys = false, nil
	case lr == "allchannels" || r == "&*":
		s.allChans, s.chans = true, nil
	case lr == "resetchannels":
		s.allChans, s.chans = false, nil
	case lr == "allcommands" || lr == "+@all":
		s.allCmds, s.rules = true, nil
		for i := range s.cmds {
			s.cmds[i] = ^uint64(0)
		}
		s.firstArgs = nil
	case lr == "nocommands" || lr == "-@all":
		s.allCmds, s.rules = false, nil
		clear(s.cmds)
		s.firstArgs = nil
	case strings.HasPrefix(r, "~") || strings.HasPrefix(r, "%"):
		return s.addKeyPattern(r)
	case strings.HasPrefix(r, "&"):
		if strings.ContainsAny(r, " \x00") {
			return errSyntax
		}
		if s.allChans {
			return errChannelAfterAll
		}
		if !slices.Contains(s.chans, r[1:]) {
			s.chans = append(s.chans, r[1:])
		}
	case strings.HasPrefix(r, "+") || strings.HasPrefix(r, "-"):
		return s.applyCommandRule(lr, cat)
	default:
		return errSyntax
	}
	return nil
}

// addKeyPattern adds ~pattern, or %R~, %W~, %RW~ (in any order of R and W).
func (s *selector) addKeyPattern(r string) error {
	perms, pat := Read|Write, r[1:]
	if r[0] == '%' {
		i := strings.IndexByte(r, '~')
		if i < 2 {
			return errSyntax
		}
		perms = 0
		for _, c := range strings.ToUpper(r[1:i]) {
			switch c {
			case 'R':
				perms |= Read
			case 'W':
				perms |= Write
			default:
				return errSyntax
			}
		}
		pat = r[i+1:]
	}
	if strings.ContainsAny(pat, " \x00") {
		return errSyntax
	}
	if s.allKeys {
		return errKeyAfterAll
	}
	if perms == Read|Write && pat == "*" {
		s.allKeys, s.keys = true, nil
		return nil
	}
	for i, k := range s.keys {
		if k.pat == pat { // a pattern named again gains the permissions
			s.keys[i].perms |= perms
			return nil
		}
	}
	s.keys = append(s.keys, keyPattern{pat, perms})
	return nil
}

// applyCommandRule applies +name, -name, +@category, -@category,
// +container|sub or +command|firstarg (lr lower-cased), and records it
// for ACL LIST the way Redis does: an earlier rule for the same target, or
// for a subcommand of a command now named whole, is dropped.
func (s *selector) applyCommandRule(lr string, cat *Catalog) error {
	allow, name := lr[0] == '+', lr[1:]
	switch {
	case strings.HasPrefix(name, "@"):
		members, ok := cat.Members(name[1:])
		if !ok {
			return errUnknown
		}
		for _, c := range members {
			s.set(c.ID, allow)
		}
	case strings.Contains(name, "|"):
		parent, arg, _ := strings.Cut(name, "|")
		c := cmdtable.Lookup([]byte(parent))
		switch {
		case c == nil:
			return errUnknown
		case arg == "" || strings.ContainsAny(arg, " \x00"):
			return errSyntax
		}
		if c.Subs == nil { // a first argument: +select|0
			if strings.Contains(arg, "|") {
				return errUnknown
			}
			if !allow {
				return errUnknown
			}
			if s.firstArgs == nil {
				s.firstArgs = map[int][]string{}
			}
			if !slices.Contains(s.firstArgs[c.ID], arg) {
				s.firstArgs[c.ID] = append(s.firstArgs[c.ID], arg)
			}
			break
		}
		if strings.Contains(arg, "|") {
			return errSubFirstArg
		}
		sc := c.Sub([]byte(arg))
		if sc == nil {
			return errUnknown
		}
		s.set(sc.ID, allow)
	default:
		c := cmdtable.Lookup([]byte(name))
		if c == nil {
			return errUnknown
		}
		s.setCmd(c, allow)
	}
	s.rules = slices.DeleteFunc(s.rules, func(r string) bool {
		t := r[1:]
		return t == name || !strings.HasPrefix(name, "@") && !strings.Contains(name, "|") && strings.HasPrefix(t, name+"|")
	})
	s.rules = append(s.rules, lr)
	return nil
}

// describe is the selector as ACL LIST writes it: keys, channels, commands.
func (s *selector) describe() string {
	var b []string
	b = append(b, s.keysText()...)
	if s.allChans {
		b = append(b, "&*")
	} else {
		b = append(b, "resetchannels")
		for _, c := range s.chans {
			b = append(b, "&"+c)
		}
	}
	b = append(b, s.commandsText())
	return strings.Join(b, " ")
}

func (s *selector) keysText() []string {
	if s.allKeys {
		return []string{"~*"}
	}
	var b []string
	for _, k := range s.keys {
		switch k.perms {
		case Read | Write:
			b = append(b, "~"+k.pat)
		case Read:
			b = append(b, "%R~"+k.pat)
		case Write:
			b = append(b, "%W~"+k.pat)
		}
	}
	return b
}

func (s *selector) commandsText() string {
	start := "-@all"
	if s.allCmds {
		start = "+@all"
	}
	return strings.Join(append([]string{start}, s.rules...), " ")
}

func (s *selector) channelsText() string {
	if s.allChans {
		return "&*"
	}
	var b []string
	for _, c := range s.chans {
		b = append(b, "&"+c)
	}
	return strings.Join(b, " ")
}
