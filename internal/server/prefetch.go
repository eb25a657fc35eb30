package server

import (
	"bytes"
	"unsafe"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/keyspace"
	"github.com/hotkv/hotkv/internal/prefetch"
)

// Pipelined commands are parsed and prefetched a batch at a time. Run one
// after the other, sixteen SADDs to a large set wait for their cache misses
// in a row: the key's table slot, its entry, then the member's bucket,
// entry and bytes. Parsing a batch first lets the connection, stage by
// stage over all its commands, start loading what each stage of their
// lookups will read, so that the misses of different commands overlap
// (MGET does the same across its keys, cmdtable.Ctx.LookupReadMany).
//
// Prefetching only warms caches: every stage reads a shard under its lock,
// a shard another connection holds is skipped, and what the commands then
// do is unchanged. What a batch computes ahead of running its commands
// depends on no command's effects: parsing depends on the input only
// (an inline command, decoded in place, is parsed only first in a batch),
// the lookup on the command table, and the shard index and table hash
// prefetching hands the dispatcher on the key only; prefetching itself
// reads the database selected when the batch was parsed, which a SELECT
// in the batch may change, but it only warms caches. So commands without
// keys join a batch as well (a pipeline of PINGs is parsed sixteen at a
// time), with one exception: parsing applies Redis's limits for a client
// that must authenticate, so such a client's batch holds one command, and
// a command that makes the client unauthenticated (RESET, with a password
// set) drops what the batch parsed after it (process), to be parsed again.

// batchAhead is how many commands a batch holds: enough to cover a typical
// pipeline, few enough that the first is still cached when its turn comes.
const batchAhead = 16

// batchArgMax ends a batch at a command with more arguments, so that a
// huge command is not copied out of the parser's argument list.
const batchArgMax = 64

// memberStages is how many dict.Dict.Prefetch steps a member takes.
const memberStages = 3

// parsed is a command of the batch.
type parsed struct {
	args [][]byte
	cmd  *cmdtable.Cmd // cmdtable.Lookup(args[0]); nil when unknown
	end  int           // where it ends in the input buffer

	// prefetch's state, which the dispatcher reuses (client.shardIndex)
	sh     *keyspace.Shard // nil: not prefetched (no key, or a stage could not lock)
	same   *parsed         // an earlier command of the batch on the same key, whose key stages serve this one
	idx    int             // args[1]'s shard index; -1: not computed
	h      uint64          // args[1]'s table hash, when hashed
	hashed bool
	member []byte // nil: no member steps (left)
	mh     uint32 // the member's hash, between steps
}

// memberPrefetcher is a collection whose member lookups can be prefetched:
// set.Set, hash.Hash, zset.ZSet.
type memberPrefetcher interface {
	PrefetchMember(m []byte, step int, h *uint32) bool
}

// parseBatch parses the next batch of complete commands from c.r on and
// prefetches their lookups. It returns resp.ErrIncomplete when no command
// is complete, or the protocol error of the first command; an error after
// the first ends the batch and is found again when parsing resumes there.
func (c *client) parseBatch() error {
	c.clearBatch()
	unauth := c.authRequired()
	c.io.parser.Unauthenticated = unauth
	keyed := 0 // commands prefetch has work for
	for pos := c.io.r; ; {
		if len(c.batch.cmds) > 0 && c.io.in[pos] != '*' && !c.io.parser.Pending() {
			// An inline command is decoded in place (quotes, escapes), so
			// it must be parsed exactly once: first in its batch, it runs.
			break
		}
		args, end, err := c.io.parser.Next(c.io.in[:c.io.w], pos)
		if err != nil {
			if len(c.batch.cmds) > 0 {
				break
			}
			return err
		}
		pos = end
		var cmd *cmdtable.Cmd
		if args != nil {
			if c.s.names == nil { // s.lookup, spelled out: it does not inline
				cmd = cmdtable.Lookup(args[0])
			} else {
				cmd = c.s.names.lookup(args[0])
			}
			if cmd != nil && cmd.First == 1 {
				keyed++
			}
		}
		// In place: a parsed is large, and the entries past the batch's
		// length are zero (clearBatch).
		if n := len(c.batch.cmds); n < cap(c.batch.cmds) {
			c.batch.cmds = c.batch.cmds[:n+1]
		} else {
			c.batch.cmds = append(c.batch.cmds, parsed{})
		}
		p := &c.batch.cmds[len(c.batch.cmds)-1]
		p.args, p.cmd, p.end, p.idx = args, cmd, end, -1
		if unauth || end == c.io.w || len(c.batch.cmds) == batchAhead || len(args) > batchArgMax {
			break
		}
		// The parser reuses its argument list for the next command. An
		// empty line (nil args, skipped when run) must stay nil: a copy
		// would be an empty command.
		if args != nil {
			at := len(c.batch.args)
			for _, a := range args { // a command has few: cheaper than copying them in bulk
				c.batch.args = append(c.batch.args, a)
			}
			p.args = c.batch.args[at:len(c.batch.args):len(c.batch.args)]
		}
	}
	if keyed > 1 { // one command's lookups have none of their own to overlap
		c.prefetch()
	}
	return nil
}

// dropBatch forgets the commands of the batch that did not run (the
// connection blocked or is closing, or must now authenticate): they are
// parsed again when it resumes at c.r, so the parser must not continue
// from a partial command after them.
func (c *client) dropBatch() {
	if c.batch.next < len(c.batch.cmds) {
		c.io.parser.Reset()
	}
	c.clearBatch()
}

// clearBatch empties the batch, keeping no input buffer alive through its
// scratch space: every batch clears what the one before used.
func (c *client) clearBatch() {
	clear(c.batch.cmds)
	clear(c.batch.args)
	c.batch.cmds, c.batch.next, c.batch.args = c.batch.cmds[:0], 0, c.batch.args[:0]
}

// prefetch runs the batch's prefetch stages.
func (c *client) prefetch() {
	var prev *parsed
	for i := range c.batch.cmds {
		p := &c.batch.cmds[i]
		if p.cmd == nil || p.cmd.First != 1 || len(p.args) < 2 {
			continue
		}
		if m := p.cmd.Member; m > 0 && m < len(p.args) {
			p.member = p.args[m]
		}
		if prev != nil && bytes.Equal(p.args[1], prev.args[1]) {
			// A run of commands on one key (LPUSH, SADD benchmarks,
			// queues): its key is looked up once.
			p.same, p.idx, p.sh = prev, prev.idx, prev.sh
			continue
		}
		p.idx = keyspace.ShardIndex(p.args[1])
		p.sh = c.ctx.DB.Shard(p.idx)
		prefetch.Lines(unsafe.Pointer(p.sh), 1) // its lock, taken next
		prev = p
	}
	c.stage(-2)
	c.stage(-1)
	for step := 0; step < memberStages; step++ {
		c.stage(step)
	}
}

// stage runs one stage over the batch: -2 loads each key's table slot, -1
// its entry, 0 and on the member steps of dict.Dict.Prefetch. Consecutive
// commands on one shard share one locking of it.
func (c *client) stage(step int) {
	var held *keyspace.Shard
	var lastKey []byte
	var last *keyspace.Entry
	for i := range c.batch.cmds {
		p := &c.batch.cmds[i]
		if p.sh == nil || (step >= 0 && p.member == nil) {
			continue
		}
		if step < 0 && p.same != nil {
			if p.h, p.hashed = p.same.h, p.same.hashed; !p.hashed {
				p.sh = nil // the first of the run could not be prefetched
			}
			continue
		}
		if p.sh != held {
			if held != nil {
				held.Unlock()
				held, last = nil, nil
			}
			if !p.sh.TryLock() {
				p.sh = nil
				continue
			}
			held = p.sh
		}
		switch step {
		case -2:
			p.h, p.hashed = p.sh.Prefetch(p.args[1]), true
		case -1:
			p.sh.PrefetchEntry(p.h)
		default:
			if last == nil || !bytes.Equal(p.args[1], lastKey) {
				lastKey, last = p.args[1], p.sh.Find(p.args[1], p.h)
			}
			if mp, ok := entryObj(last).(memberPrefetcher); !ok || !mp.PrefetchMember(p.member, step, &p.mh) {
				p.member = nil
			}
		}
	}
	if held != nil {
		held.Unlock()
	}
}

// isArg1 reports whether key is the very key argument of the command p.
func (p *parsed) isArg1(key []byte) bool {
	return len(p.args) > 1 && unsafe.SliceData(key) == unsafe.SliceData(p.args[1]) && len(key) == len(p.args[1])
}

// shardIndex is keyspace.ShardIndex(key), which prefetching the running
// command may have computed already.
func (c *client) shardIndex(key []byte) int {
	if p := c.batch.cur; p != nil && p.idx >= 0 && p.isArg1(key) {
		return p.idx
	}
	return keyspace.ShardIndex(key)
}

// keyHash hands the handler the table hash of its key, when prefetching
// the running command computed it.
func (c *client) keyHash(key []byte) {
	if p := c.batch.cur; p != nil && p.hashed && p.isArg1(key) {
		c.ctx.SetKeyHash(p.h)
	}
}

func entryObj(e *keyspace.Entry) any {
	if e == nil {
		return nil
	}
	return e.Obj
}
