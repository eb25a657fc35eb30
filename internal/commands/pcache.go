package commands

import (
	"encoding/hex"
	"math"
	"slices"

	"github.com/hotkv/hotkv/internal/ai"
	"github.com/hotkv/hotkv/internal/cmdtable"
)

// PCACHE.*: the exact prompt cache (package ai holds the state), and
// PCACHE.PREFIX, the KV-cache offload probe over ordinary keys.

const errPromptHash = "ERR invalid prompt hash: 64 hexadecimal digits expected"

// errNoNamespace is package ai's text, answered when the lookup finds none.
var errNoNamespace = ai.ErrNoNamespace.Error()

// promptRequest is the part of PCACHE.GET/SET/DEL/TTL that names an entry:
// the prompt, then [MODEL m] [PARAMS n name value ...].
type promptRequest struct {
	prompt []byte
	model  string
	params [][2]string
}

// promptOpt consumes a MODEL or PARAMS option; it reports whether it
// found one.
func (o *opts) promptOpt(r *promptRequest) bool {
	switch {
	case o.kw("model"):
		r.model = o.str()
	case o.kw("params"):
		n := o.int(0, math.MaxInt32)
		if o.err == "" && int64(len(o.args)-o.i) < 2*n {
			o.fail(cmdtable.ErrSyntax)
		}
		for range n {
			if o.err != "" {
				break
			}
			r.params = append(r.params, [2]string{o.str(), o.str()})
		}
	default:
		return false
	}
	return true
}

// parsePromptArgs parses everything after the namespace of GET, DEL and
// TTL: prompt [MODEL m] [PARAMS n name value ...].
func parsePromptArgs(args [][]byte) (promptRequest, string) {
	r := promptRequest{prompt: args[0]}
	o := opts{args: args, i: 1}
	for o.more() {
		if !o.promptOpt(&r) {
			o.fail(cmdtable.ErrSyntax)
		}
	}
	return r, o.err
}

// promptCache returns the namespace named by args[1] and the parsed entry
// key, or answers an error and returns nil.
func promptCache(x *cmdtable.Ctx) (*ai.PromptCache, ai.PromptKey) {
	r, msg := parsePromptArgs(x.Args[2:])
	if msg != "" {
		x.Error(msg)
		return nil, ai.PromptKey{}
	}
	c := x.AI.Prompt(string(x.Args[1]))
	if c == nil {
		x.Error(errNoNamespace)
		return nil, ai.PromptKey{}
	}
	return c, ai.HashPrompt(string(x.Args[1]), r.model, r.params, r.prompt)
}

func pcacheCreate(x *cmdtable.Ctx) {
	o := opts{args: x.Args, i: 2}
	p := ai.PromptOptions{Refresh: true}
	for o.more() {
		switch {
		case o.kw("ttl"):
			p.TTL = o.seconds()
		case o.kw("maxentries"):
			p.MaxEntries = o.int(0, math.MaxInt64)
		case o.kw("maxbytes"):
			p.MaxBytes = o.int(0, math.MaxInt64)
		case o.kw("refresh"):
			p.Refresh = true
		case o.kw("norefresh"):
			p.Refresh = false
		default:
			o.fail(cmdtable.ErrSyntax)
		}
	}
	if o.err != "" {
		x.Error(o.err)
		return
	}
	if err := x.AI.CreatePrompt(string(x.Args[1]), p); err != nil {
		x.Error(err.Error())
		return
	}
	x.W.OK()
}

// pcacheSet is PCACHE.SET ns prompt response [MODEL m] [PARAMS ...]
// [EX s | PX ms | PERSIST].
func pcacheSet(x *cmdtable.Ctx) {
	r := promptRequest{prompt: x.Args[2]}
	var ttl int64
	o := opts{args: x.Args, i: 4}
	for o.more() {
		if !o.promptOpt(&r) && !o.ttl(&ttl) {
			o.fail(cmdtable.ErrSyntax)
		}
	}
	if o.err != "" {
		x.Error(o.err)
		return
	}
	c := x.AI.Prompt(string(x.Args[1]))
	if c == nil {
		x.Error(errNoNamespace)
		return
	}
	added, evicted, err := c.Set(ai.HashPrompt(string(x.Args[1]), r.model, r.params, r.prompt), x.Args[3], ttl, x.Now, x.Master)
	if err != nil {
		x.Error(err.Error())
		return
	}
	if len(evicted) > 0 {
		propagateEvicted(x, PromptRemoval(string(x.Args[1]), evicted...), "PCACHE.SET")
	}
	x.W.Int(b2i(added))
}

// PromptRemoval is PCACHE.DELHASH of the entries of keys in namespace ns:
// how the removal of entries the cache's limits or maxmemory evicted is
// logged and sent to replicas.
func PromptRemoval(ns string, keys ...ai.PromptKey) [][]byte {
	args := [][]byte{[]byte("PCACHE.DELHASH"), []byte(ns)}
	for _, k := range keys {
		args = append(args, hex.AppendEncode(nil, k[:]))
	}
	return args
}

// propagateEvicted logs and replicates the entries a cache's own limits
// evicted for the running write (removal), ahead of the write itself
// (named name, its arguments those the client sent), as one unit: a
// replica, whose caches follow the master's evictions rather than their
// own order of use, and a replay of the log then remove the same entries.
func propagateEvicted(x *cmdtable.Ctx, removal [][]byte, name string) {
	if !x.Logged {
		return
	}
	self := make([][]byte, len(x.Args))
	self[0] = []byte(name)
	for i, a := range x.Args[1:] {
		self[i+1] = slices.Clone(a)
	}
	x.Propagate(removal...)
	x.Propagate(self...)
}

func pcacheGet(x *cmdtable.Ctx) {
	c, k := promptCache(x)
	if c == nil {
		return
	}
	if v, ok := c.Get(k, x.Now); ok {
		x.W.Bulk(v)
		return
	}
	x.W.Null()
}

func pcacheDel(x *cmdtable.Ctx) {
	if c, k := promptCache(x); c != nil {
		x.W.Int(int64(c.Delete(x.Now, k)))
	}
}

// pcacheDelHash is PCACHE.DELHASH namespace hash [hash ...]: deletes
// entries by their key, the SHA-256 of the request in hex, the form in
// which the entries the namespace's limits or maxmemory evict reach the
// append-only log and replicas (PromptRemoval).
func pcacheDelHash(x *cmdtable.Ctx) {
	keys := make([]ai.PromptKey, len(x.Args)-2)
	for i, a := range x.Args[2:] {
		if len(a) != hex.EncodedLen(len(keys[i])) {
			x.Error(errPromptHash)
			return
		}
		if _, err := hex.Decode(keys[i][:], a); err != nil {
			x.Error(errPromptHash)
			return
		}
	}
	c := x.AI.Prompt(string(x.Args[1]))
	if c == nil {
		x.Error(errNoNamespace)
		return
	}
	x.W.Int(int64(c.Delete(x.Now, keys...)))
}

func pcacheTTL(x *cmdtable.Ctx) {
	if c, k := promptCache(x); c != nil {
		x.W.Int(c.TTL(k, x.Now))
	}
}

func pcacheInfo(x *cmdtable.Ctx) {
	c := x.AI.Prompt(string(x.Args[1]))
	if c == nil {
		x.Error(errNoNamespace)
		return
	}
	p, s := c.Options(), c.Stats(x.Now)
	writeInfo(x.W, info{"entries", s.Entries}, info{"bytes", s.Bytes}, info{"hits", s.Hits},
		info{"misses", s.Misses}, info{"sets", s.Sets}, info{"evicted", s.Evicted}, info{"expired", s.Expired},
		info{"ttl", float64(p.TTL) / 1000}, info{"maxentries", p.MaxEntries}, info{"maxbytes", p.MaxBytes},
		info{"refresh", p.Refresh})
}

func pcacheDrop(x *cmdtable.Ctx) {
	if !x.AI.DropPrompt(string(x.Args[1])) {
		x.Error(errNoNamespace)
		return
	}
	x.W.OK()
}

// pcachePrefix is PCACHE.PREFIX key [key ...]: how many of the keys, from
// the first, exist without a gap. It is the prefix probe of an LLM
// KV-cache offload (one key per token chunk): one round trip instead of one
// EXISTS per chunk.
func pcachePrefix(x *cmdtable.Ctx) {
	n := 0
	for _, k := range x.Args[1:] {
		if x.Lookup(k) == nil {
			break
		}
		n++
	}
	x.W.Int(int64(n))
}

func init() {
	const g = "ai"
	w, r := cmdtable.Write|cmdtable.DenyOOM, cmdtable.ReadOnly
	entry := "namespace prompt [MODEL model] [PARAMS count name value [name value ...]]"
	cmdtable.Register(
		&cmdtable.Cmd{Name: "pcache.create", Arity: -2, Flags: w, Effects: cmdtable.AsSent, Run: pcacheCreate, Group: g, Since: "1.0.0",
			Summary: "Creates a prompt cache namespace: default TTL in seconds, size caps (LRU eviction), TTL refresh on hit.",
			Args:    "namespace [TTL seconds] [MAXENTRIES count] [MAXBYTES bytes] [REFRESH | NOREFRESH]"},
		&cmdtable.Cmd{Name: "pcache.set", Arity: -4, Flags: w, Effects: cmdtable.Recorded, Run: pcacheSet, Group: g, Since: "1.0.0",
			Summary: "Caches a response under the server-side hash of namespace, model, parameters and prompt. Returns 1 if new, 0 if replaced.",
			Args:    "namespace prompt response [MODEL model] [PARAMS count name value [name value ...]] [EX seconds | PX milliseconds | PERSIST]"},
		&cmdtable.Cmd{Name: "pcache.get", Arity: -3, Flags: r | cmdtable.Fast, Run: pcacheGet, Group: g, Since: "1.0.0",
			Summary: "Returns the cached response (a hit) or nil (a miss).", Args: entry},
		&cmdtable.Cmd{Name: "pcache.del", Arity: -3, Flags: cmdtable.Write | cmdtable.Fast, Effects: cmdtable.AsSent, Run: pcacheDel, Group: g, Since: "1.0.0",
			Summary: "Deletes a cached response. Returns 1 if it existed.", Args: entry},
		&cmdtable.Cmd{Name: "pcache.delhash", Arity: -3, Flags: cmdtable.Write | cmdtable.Fast, Effects: cmdtable.AsSent, Run: pcacheDelHash, Group: g, Since: "1.0.0",
			Summary: "Deletes cached responses by their key, the request's SHA-256 in hex, as evictions are logged and replicated. Returns how many existed.",
			Args:    "namespace hash [hash ...]"},
		&cmdtable.Cmd{Name: "pcache.ttl", Arity: -3, Flags: r | cmdtable.Fast, Run: pcacheTTL, Group: g, Since: "1.0.0",
			Summary: "Returns a cached response's remaining time to live in milliseconds (-1: none, -2: absent).", Args: entry},
		&cmdtable.Cmd{Name: "pcache.info", Arity: 2, Flags: r, Run: pcacheInfo, Group: g, Since: "1.0.0",
			Summary: "Returns a namespace's configuration and counters (hits, misses, bytes...).", Args: "namespace"},
		&cmdtable.Cmd{Name: "pcache.drop", Arity: 2, Flags: cmdtable.Write, Effects: cmdtable.AsSent, Run: pcacheDrop, Group: g, Since: "1.0.0",
			Summary: "Deletes a prompt cache namespace and its entries.", Args: "namespace"},
		&cmdtable.Cmd{Name: "pcache.list", Arity: 1, Flags: r, Run: func(x *cmdtable.Ctx) { writeNames(x.W, x.AI.PromptNames()) },
			Group: g, Since: "1.0.0", Summary: "Lists the prompt cache namespaces."},
		&cmdtable.Cmd{Name: "pcache.prefix", Arity: -2, Flags: r | cmdtable.Fast, First: 1, Last: -1, Step: 1, Run: pcachePrefix, Group: g, Since: "1.0.0",
			Summary: "Returns how many of the keys, from the first, exist without a gap (KV-cache chunk prefix probe).", Args: "key [key ...]"},
	)
}
