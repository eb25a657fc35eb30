package commands

import (
	"math"

	"github.com/hotkv/hotkv/internal/ai"
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/resp"
)

// AMEM.*: agent memory namespaces (MEMORY is Redis's own command).

func amemCreate(x *cmdtable.Ctx) {
	o := opts{args: x.Args, i: 2}
	m := ai.MemoryOptions{Dedup: ai.DefaultDedup, HalfLife: ai.DefaultHalfLife,
		WorkingMax: ai.DefaultWorkingMax, WorkingTTL: ai.DefaultWorkingTTL}
	for o.more() {
		switch {
		case o.index(&m.VectorOptions):
		case o.kw("dedup"):
			m.Dedup = o.dedup()
		case o.kw("halflife"):
			m.HalfLife = max(o.seconds(), 1)
		case o.kw("workingmax"):
			m.WorkingMax = int(o.int(1, math.MaxInt32))
		case o.kw("workingttl"):
			m.WorkingTTL = o.seconds()
		default:
			o.fail(cmdtable.ErrSyntax)
		}
	}
	if o.err == "" {
		o.err = checkIndex(&m.VectorOptions)
	}
	if o.err == "" && m.Dedup >= 0 {
		if err := ai.CheckThreshold(m.Metric, m.Dedup); err != nil {
			o.err = err.Error()
		}
	}
	if o.err != "" {
		x.Error(o.err)
		return
	}
	if err := x.AI.CreateMemory(string(x.Args[1]), m); err != nil {
		x.Error(err.Error())
		return
	}
	x.W.OK()
}

// dedup reads a de-duplication distance, or OFF (-1).
func (o *opts) dedup() float64 {
	if o.kw("off") {
		return -1
	}
	d := o.float()
	if o.err == "" && d < 0 {
		o.fail(ai.ErrThreshold.Error())
	}
	return d
}

// kind reads a memory kind.
func (o *opts) kind() ai.MemKind {
	return ai.MemKind(o.choice(ai.KindNames[:], ai.ErrMemoryKind.Error()))
}

func memory(x *cmdtable.Ctx) *ai.Memory {
	m := x.AI.Memory(string(x.Args[1]))
	if m == nil {
		x.Error(errNoNamespace)
	}
	return m
}

// parseMemAdd parses AMEM.ADD's arguments after the namespace: text vector
// [KIND k] [IMPORTANCE f] [SESSION s] [ATTRS json] [EX s | PX ms | PERSIST]
// [DEDUP distance | OFF] [AT unix-ms].
func parseMemAdd(args [][]byte) (ai.MemAdd, string) {
	a := ai.MemAdd{Text: string(args[0]), Kind: ai.Episodic, Importance: 0.5, Dedup: math.NaN()}
	o := opts{args: args, i: 1}
	a.Vector = o.vector()
	msg := o.options(func() bool {
		switch {
		case o.kw("kind"):
			a.Kind = o.kind()
		case o.kw("importance"):
			a.Importance = o.float()
		case o.kw("session"):
			a.Session = o.str()
		case o.kw("attrs"):
			a.Attrs = o.str()
		case o.ttl(&a.TTL):
		case o.kw("dedup"):
			a.Dedup = o.dedup()
		case o.kw("at"):
			a.At = o.int(1, math.MaxInt64/2)
		default:
			return false
		}
		return true
	})
	return a, msg
}

func amemAdd(x *cmdtable.Ctx) {
	aiCall(x, parseMemAdd, memory, func(a ai.MemAdd, m *ai.Memory) error {
		id, created, err := m.Add(a, x.Now)
		if err == nil {
			x.W.Map(2)
			x.W.BulkString("id")
			x.W.Int(int64(id))
			x.W.BulkString("created")
			x.W.Bool(created)
		}
		return err
	})
}

// Default recall weights: similarity, recency, importance.
var defaultWeights = [3]float64{0.7, 0.2, 0.1}

// parseRecall parses AMEM.RECALL's arguments after the namespace: vector
// [K k] [WEIGHTS sim rec imp] [HALFLIFE s] [KIND k [KIND k ...]]
// [SESSION s] [FILTER expr] [CANDIDATES n] [NOTOUCH].
func parseRecall(args [][]byte) (ai.Recall, string) {
	r := ai.Recall{K: 10, Weights: defaultWeights}
	o := opts{args: args}
	r.Vector = o.vector()
	msg := o.options(func() bool {
		switch {
		case o.kw("k"):
			r.K = int(o.int(1, 1<<20))
		case o.kw("weights"):
			for i := range r.Weights {
				if r.Weights[i] = o.float(); o.err == "" && r.Weights[i] < 0 {
					o.fail(ai.ErrWeights.Error())
				}
			}
		case o.kw("halflife"):
			r.HalfLife = max(o.seconds(), 1)
		case o.kw("kind"):
			r.Kinds |= 1 << o.kind()
		case o.kw("session"):
			r.Session = o.str()
		case o.kw("filter"):
			r.Filter = o.filter()
		case o.kw("candidates"):
			r.Candidates = int(o.int(1, 1<<20))
		case o.kw("notouch"):
			r.NoTouch = true
		default:
			return false
		}
		return true
	})
	return r, msg
}

func amemRecall(x *cmdtable.Ctx) {
	aiCall(x, parseRecall, memory, func(r ai.Recall, m *ai.Memory) error {
		recs, err := m.Recall(r, x.Now)
		if err == nil {
			writeRecords(x.W, recs, true)
		}
		return err
	})
}

// writeRecord writes a memory as a map; recall adds distance and score.
func writeRecord(w *resp.Writer, r ai.Record, scored bool) {
	n := 9
	if scored {
		n += 2
	}
	w.Map(n)
	w.BulkString("id")
	w.Int(int64(r.ID))
	w.BulkString("text")
	w.BulkString(r.Text)
	w.BulkString("kind")
	w.BulkString(ai.KindNames[r.Kind])
	w.BulkString("importance")
	w.Double(r.Importance)
	w.BulkString("created")
	w.Int(r.Created)
	w.BulkString("last_access")
	w.Int(r.LastAccess)
	w.BulkString("expires")
	if r.Expire == 0 {
		w.Int(-1)
	} else {
		w.Int(r.Expire)
	}
	w.BulkString("session")
	if r.Session == "" {
		w.Null()
	} else {
		w.BulkString(r.Session)
	}
	w.BulkString("attributes")
	writeAttrs(w, r.Attrs)
	if scored {
		w.BulkString("distance")
		w.Double(float64(r.Distance))
		w.BulkString("score")
		w.Double(r.Score)
	}
}

func writeRecords(w *resp.Writer, recs []ai.Record, scored bool) {
	w.Array(len(recs))
	for _, r := range recs {
		writeRecord(w, r, scored)
	}
}

func amemGet(x *cmdtable.Ctx) {
	id, ok := cmdtable.ParseInt(x.Args[2])
	if !ok || id < 1 {
		x.Error(cmdtable.ErrNotInt)
		return
	}
	m := memory(x)
	if m == nil {
		return
	}
	if r, ok := m.Get(uint64(id), x.Now); ok {
		writeRecord(x.W, r, false)
		return
	}
	x.W.Null()
}

// amemRange is AMEM.RANGE ns [SINCE ms] [UNTIL ms] [KIND k ...] [SESSION s]
// [COUNT n]: memories by creation time, oldest first.
func amemRange(x *cmdtable.Ctx) {
	o := opts{args: x.Args, i: 2}
	var since, until int64
	var kinds uint8
	var session string
	count := 0
	for o.more() {
		switch {
		case o.kw("since"):
			since = o.int(0, math.MaxInt64)
		case o.kw("until"):
			until = o.int(0, math.MaxInt64)
		case o.kw("kind"):
			kinds |= 1 << o.kind()
		case o.kw("session"):
			session = o.str()
		case o.kw("count"):
			count = int(o.int(1, math.MaxInt32))
		default:
			o.fail(cmdtable.ErrSyntax)
		}
	}
	if o.err != "" {
		x.Error(o.err)
		return
	}
	if m := memory(x); m != nil {
		writeRecords(x.W, m.List(since, until, kinds, session, count, x.Now), false)
	}
}

// amemWorking is AMEM.WORKING ns session [COUNT n]: the session's
// working-memory buffer, oldest first.
func amemWorking(x *cmdtable.Ctx) {
	o := opts{args: x.Args, i: 3}
	count := 0
	if o.kw("count") {
		count = int(o.int(1, math.MaxInt32))
	}
	if o.more() {
		o.fail(cmdtable.ErrSyntax)
	}
	if o.err != "" {
		x.Error(o.err)
		return
	}
	if m := memory(x); m != nil {
		writeRecords(x.W, m.Working(string(x.Args[2]), count, x.Now), false)
	}
}

// amemForget is AMEM.FORGET ns (ID id [id ...] | FILTER expr |
// BEFORE unix-ms | IDLE seconds).
func amemForget(x *cmdtable.Ctx) {
	o := opts{args: x.Args, i: 2}
	var run func(m *ai.Memory) int
	switch {
	case o.kw("id"):
		ids := o.idList()
		run = func(m *ai.Memory) int { return m.Forget(ids, x.Now) }
	case o.kw("filter"):
		f := o.filter()
		run = func(m *ai.Memory) int { return m.ForgetMatching(f, x.Now) }
	case o.kw("before"):
		t := o.int(0, math.MaxInt64)
		run = func(m *ai.Memory) int { return m.ForgetBefore(t, x.Now) }
	case o.kw("idle"):
		idle := o.seconds()
		run = func(m *ai.Memory) int { return m.ForgetIdle(idle, x.Now) }
	default:
		o.fail(cmdtable.ErrSyntax)
	}
	if o.more() {
		o.fail(cmdtable.ErrSyntax)
	}
	if o.err != "" {
		x.Error(o.err)
		return
	}
	if m := memory(x); m != nil {
		x.W.Int(int64(run(m)))
	}
}

func amemInfo(x *cmdtable.Ctx) {
	m := memory(x)
	if m == nil {
		return
	}
	p, s := m.Options(), m.Stats(x.Now)
	writeInfo(x.W, append(indexInfo(p.VectorOptions),
		info{"dedup_distance", p.Dedup}, info{"halflife", float64(p.HalfLife) / 1000},
		info{"workingmax", p.WorkingMax}, info{"workingttl", float64(p.WorkingTTL) / 1000},
		info{"memories", s.Kinds[0] + s.Kinds[1] + s.Kinds[2]},
		info{ai.KindNames[ai.Working], s.Kinds[ai.Working]}, info{ai.KindNames[ai.Episodic], s.Kinds[ai.Episodic]},
		info{ai.KindNames[ai.Semantic], s.Kinds[ai.Semantic]},
		info{"sessions", s.Sessions}, info{"expired", s.Expired})...)
}

func amemDrop(x *cmdtable.Ctx) {
	if !x.AI.DropMemory(string(x.Args[1])) {
		x.Error(errNoNamespace)
		return
	}
	x.W.OK()
}

func init() {
	const g = "ai"
	w, r := cmdtable.Write|cmdtable.DenyOOM, cmdtable.ReadOnly
	vec := "(VALUES dim value [value ...] | FP32 blob)"
	cmdtable.Register(
		&cmdtable.Cmd{Name: "amem.create", Arity: -4, Flags: w, Effects: cmdtable.AsSent, Run: amemCreate, Group: g, Since: "1.0.0",
			Summary: "Creates an agent memory namespace.",
			Args:    "namespace DIM dim [METRIC COSINE | L2 | IP] [TYPE FLOAT32 | INT8 | BINARY] [DEDUP distance | OFF] [HALFLIFE seconds] [WORKINGMAX count] [WORKINGTTL seconds] [M links] [EF breadth]"},
		&cmdtable.Cmd{Name: "amem.add", Arity: -5, Flags: w, Effects: cmdtable.AsSent, Run: amemAdd, Group: g, Since: "1.0.0",
			Summary: "Adds a memory, or merges it into one within the de-duplication distance. Returns its id and whether it is new.",
			Args:    "namespace text " + vec + " [KIND WORKING | EPISODIC | SEMANTIC] [IMPORTANCE 0..1] [SESSION session] [ATTRS json] [EX seconds | PX milliseconds | PERSIST] [DEDUP distance | OFF] [AT unix-ms]"},
		&cmdtable.Cmd{Name: "amem.recall", Arity: -4, Flags: r, Run: amemRecall, Group: g, Since: "1.0.0",
			Summary: "Returns the top memories by weighted similarity, recency (half-life decay) and importance, and updates their last access.",
			Args:    "namespace " + vec + " [K count] [WEIGHTS similarity recency importance] [HALFLIFE seconds] [KIND kind [KIND kind ...]] [SESSION session] [FILTER expression] [CANDIDATES count] [NOTOUCH]"},
		&cmdtable.Cmd{Name: "amem.get", Arity: 3, Flags: r | cmdtable.Fast, Run: amemGet, Group: g, Since: "1.0.0",
			Summary: "Returns a memory by id, or nil.", Args: "namespace id"},
		&cmdtable.Cmd{Name: "amem.range", Arity: -2, Flags: r, Run: amemRange, Group: g, Since: "1.0.0",
			Summary: "Returns memories by creation time, oldest first.",
			Args:    "namespace [SINCE unix-ms] [UNTIL unix-ms] [KIND kind [KIND kind ...]] [SESSION session] [COUNT count]"},
		&cmdtable.Cmd{Name: "amem.working", Arity: -3, Flags: r, Run: amemWorking, Group: g, Since: "1.0.0",
			Summary: "Returns a session's bounded working-memory buffer, oldest first.", Args: "namespace session [COUNT count]"},
		&cmdtable.Cmd{Name: "amem.forget", Arity: -4, Flags: cmdtable.Write, Effects: cmdtable.AsSent, Run: amemForget, Group: g, Since: "1.0.0",
			Summary: "Deletes memories by id, by filter, by creation time or by idle time. Returns how many.",
			Args:    "namespace (ID id [id ...] | FILTER expression | BEFORE unix-ms | IDLE seconds)"},
		&cmdtable.Cmd{Name: "amem.info", Arity: 2, Flags: r, Run: amemInfo, Group: g, Since: "1.0.0",
			Summary: "Returns a memory namespace's configuration and counts.", Args: "namespace"},
		&cmdtable.Cmd{Name: "amem.drop", Arity: 2, Flags: cmdtable.Write, Effects: cmdtable.AsSent, Run: amemDrop, Group: g, Since: "1.0.0",
			Summary: "Deletes a memory namespace.", Args: "namespace"},
		&cmdtable.Cmd{Name: "amem.list", Arity: 1, Flags: r, Run: func(x *cmdtable.Ctx) { writeNames(x.W, x.AI.MemoryNames()) },
			Group: g, Since: "1.0.0", Summary: "Lists the memory namespaces."},
	)
}
