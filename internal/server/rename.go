package server

import (
	"errors"
	"sort"
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/config"
)

// rename-command: the names clients, scripts, the append-only log and
// COMMAND reach commands by, when the configuration renames some or takes
// them away. Replies still name a command by its own name (COMMAND INFO of
// a renamed GET says "get"), as in Redis; ACL rules too use the own names.

// commandNames maps the lower-case names in use to their commands; nil
// (no rename-command) means the table's own names, looked up without it.
type commandNames map[string]*cmdtable.Cmd

func init() { config.CheckRename = checkRename }

// renamed applies renames to the command table's names, as Redis's
// configuration loading does, one after the other.
func renamed(renames []config.Rename) (commandNames, error) {
	names := commandNames{}
	for _, c := range cmdtable.All() {
		names[c.Name] = c
	}
	for _, r := range renames {
		from, to := lowerASCII(r.From), lowerASCII(r.To)
		cmd := names[from]
		if cmd == nil {
			return nil, errors.New("No such command in rename-command")
		}
		delete(names, from)
		if to == "" {
			continue
		}
		if names[to] != nil {
			return nil, errors.New("Target command name already exists")
		}
		names[to] = cmd
	}
	return names, nil
}

func checkRename(done []config.Rename, r config.Rename) error {
	_, err := renamed(append(done[:len(done):len(done)], r))
	return err
}

// lookup is cmdtable.Lookup through the configuration's renames.
func (s *Server) lookup(name []byte) *cmdtable.Cmd {
	if s.names == nil {
		return cmdtable.Lookup(name)
	}
	return s.names.lookup(name)
}

func (names commandNames) lookup(name []byte) *cmdtable.Cmd {
	var buf [64]byte
	if len(name) > len(buf) {
		return names[lowerASCII(string(name))]
	}
	low := buf[:len(name)]
	for i, b := range name {
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		low[i] = b
	}
	return names[string(low)]
}

// lowerASCII lowers ASCII letters only: command names compare as Redis's
// command table compares them (strings.ToLower would also fold non-ASCII
// capitals, which a name lowered by lookup's loop keeps).
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// commands are the commands clients can reach, sorted by their own names
// (COMMAND, COMMAND LIST, COMMAND COUNT).
func (s *Server) commands() []*cmdtable.Cmd {
	if s.names == nil {
		return cmdtable.All()
	}
	out := make([]*cmdtable.Cmd, 0, len(s.names))
	for _, c := range s.names {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ownName returns args as the append-only log records them: under cmd's
// own name rather than the one the client used. The server logs some
// writes under own names anyway (XADD with its ID, SPOP as SREM, MIGRATE's
// and eviction's DEL), so replay looks names up in the command table
// itself: a log then replays whether those names are renamed, taken away
// or renamed differently since.
func (s *Server) ownName(cmd *cmdtable.Cmd, args [][]byte) [][]byte {
	if s.names == nil {
		return args
	}
	name, _, _ := strings.Cut(cmd.Name, "|")
	if strings.EqualFold(string(args[0]), name) {
		return args
	}
	out := make([][]byte, len(args))
	copy(out, args)
	out[0] = []byte(name)
	return out
}
