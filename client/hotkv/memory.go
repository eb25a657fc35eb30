package hotkv

import (
	"context"
	"time"
)

// MemoryOptions configure an agent memory namespace. Zero values take the
// server defaults (dedup distance 0.05, half-life 7 days, 32 working
// memories per session living 1 hour).
type MemoryOptions struct {
	IndexOptions
	Dedup      *float64 // distance; negative turns de-duplication off
	HalfLife   time.Duration
	WorkingMax int
	WorkingTTL time.Duration
}

// CreateMemory is AMEM.CREATE.
func (c *Client) CreateMemory(ctx context.Context, ns string, o MemoryOptions) error {
	a := append([]any{"AMEM.CREATE", ns}, o.IndexOptions.args("EF")...)
	if o.Dedup != nil {
		if *o.Dedup < 0 {
			a = append(a, "DEDUP", "OFF")
		} else {
			a = append(a, "DEDUP", *o.Dedup)
		}
	}
	if o.HalfLife > 0 {
		a = append(a, "HALFLIFE", secs(o.HalfLife))
	}
	if o.WorkingMax > 0 {
		a = append(a, "WORKINGMAX", o.WorkingMax)
	}
	if o.WorkingTTL > 0 {
		a = append(a, "WORKINGTTL", secs(o.WorkingTTL))
	}
	_, err := c.do(ctx, a...)
	return err
}

// Memory kinds.
const (
	Working  = "working"
	Episodic = "episodic"
	Semantic = "semantic"
)

// NewMemory is a memory to add. Kind "" is episodic; Importance is in
// [0, 1] (nil: 0.5); working memories need a Session. At, when set, is
// the creation time (for imports).
type NewMemory struct {
	Text       string
	Vector     []float32
	Kind       string
	Importance *float64
	Session    string
	Attributes string
	TTL        time.Duration
	At         time.Time
}

// AddMemory is AMEM.ADD: it returns the memory's id and false when it was
// merged into an existing near-duplicate.
func (c *Client) AddMemory(ctx context.Context, ns string, m NewMemory) (id int64, created bool, err error) {
	a := append([]any{"AMEM.ADD", ns, m.Text}, vecArgs(m.Vector)...)
	if m.Kind != "" {
		a = append(a, "KIND", m.Kind)
	}
	if m.Importance != nil {
		a = append(a, "IMPORTANCE", *m.Importance)
	}
	if m.Session != "" {
		a = append(a, "SESSION", m.Session)
	}
	if m.Attributes != "" {
		a = append(a, "ATTRS", m.Attributes)
	}
	if !m.At.IsZero() {
		a = append(a, "AT", m.At.UnixMilli())
	}
	r, err := c.mapReply(ctx, append(a, ttlArgs(m.TTL)...)...)
	if err != nil {
		return 0, false, err
	}
	return r.int("id"), r.bool("created"), nil
}

// MemoryRecord is a stored memory. Distance and Score are set by Recall.
type MemoryRecord struct {
	ID                  int64
	Text, Kind, Session string
	Attributes          string
	Importance          float64
	Created, LastAccess time.Time
	Expires             time.Time // zero: never
	Distance, Score     float64
}

func toRecord(r reply) MemoryRecord {
	m := MemoryRecord{ID: r.int("id"), Text: r.str("text"), Kind: r.str("kind"), Session: r.str("session"),
		Attributes: r.str("attributes"), Importance: r.float("importance"),
		Created: time.UnixMilli(r.int("created")), LastAccess: time.UnixMilli(r.int("last_access")),
		Distance: r.float("distance"), Score: r.float("score")}
	if e := r.int("expires"); e > 0 {
		m.Expires = time.UnixMilli(e)
	}
	return m
}

func (c *Client) records(ctx context.Context, a ...any) ([]MemoryRecord, error) {
	v, err := c.do(ctx, a...)
	if err != nil {
		return nil, err
	}
	rs, err := toReplies(v)
	if err != nil {
		return nil, err
	}
	out := make([]MemoryRecord, len(rs))
	for i, r := range rs {
		out[i] = toRecord(r)
	}
	return out, nil
}

// RecallOptions refine AMEM.RECALL. Weights (similarity, recency,
// importance) nil take the server's 0.7, 0.2, 0.1.
type RecallOptions struct {
	K          int
	Weights    *[3]float64
	HalfLife   time.Duration
	Kinds      []string
	Session    string
	Filter     string
	Candidates int
	NoTouch    bool
}

// Recall is AMEM.RECALL: best first.
func (c *Client) Recall(ctx context.Context, ns string, vec []float32, o RecallOptions) ([]MemoryRecord, error) {
	a := append([]any{"AMEM.RECALL", ns}, vecArgs(vec)...)
	if o.K > 0 {
		a = append(a, "K", o.K)
	}
	if o.Weights != nil {
		a = append(a, "WEIGHTS", o.Weights[0], o.Weights[1], o.Weights[2])
	}
	if o.HalfLife > 0 {
		a = append(a, "HALFLIFE", secs(o.HalfLife))
	}
	for _, k := range o.Kinds {
		a = append(a, "KIND", k)
	}
	if o.Session != "" {
		a = append(a, "SESSION", o.Session)
	}
	if o.Filter != "" {
		a = append(a, "FILTER", o.Filter)
	}
	if o.Candidates > 0 {
		a = append(a, "CANDIDATES", o.Candidates)
	}
	if o.NoTouch {
		a = append(a, "NOTOUCH")
	}
	return c.records(ctx, a...)
}

// GetMemory is AMEM.GET; it returns nil when there is no such memory.
func (c *Client) GetMemory(ctx context.Context, ns string, id int64) (*MemoryRecord, error) {
	r, err := c.mapReply(ctx, "AMEM.GET", ns, id)
	if r == nil {
		return nil, err
	}
	m := toRecord(r)
	return &m, nil
}

// MemoryRange is AMEM.RANGE over creation times (zero times: unbounded).
func (c *Client) MemoryRange(ctx context.Context, ns string, since, until time.Time, count int) ([]MemoryRecord, error) {
	a := []any{"AMEM.RANGE", ns}
	if !since.IsZero() {
		a = append(a, "SINCE", since.UnixMilli())
	}
	if !until.IsZero() {
		a = append(a, "UNTIL", until.UnixMilli())
	}
	if count > 0 {
		a = append(a, "COUNT", count)
	}
	return c.records(ctx, a...)
}

// WorkingMemory is AMEM.WORKING: a session's buffer, oldest first.
func (c *Client) WorkingMemory(ctx context.Context, ns, session string) ([]MemoryRecord, error) {
	return c.records(ctx, "AMEM.WORKING", ns, session)
}

// Forget is AMEM.FORGET ns ID ...
func (c *Client) Forget(ctx context.Context, ns string, ids ...int64) (int64, error) {
	a := []any{"AMEM.FORGET", ns, "ID"}
	for _, id := range ids {
		a = append(a, id)
	}
	return c.rdb.Do(ctx, a...).Int64()
}

// ForgetWhere is AMEM.FORGET ns FILTER expression.
func (c *Client) ForgetWhere(ctx context.Context, ns, filter string) (int64, error) {
	return c.rdb.Do(ctx, "AMEM.FORGET", ns, "FILTER", filter).Int64()
}

// ForgetIdle is AMEM.FORGET ns IDLE seconds.
func (c *Client) ForgetIdle(ctx context.Context, ns string, idle time.Duration) (int64, error) {
	return c.rdb.Do(ctx, "AMEM.FORGET", ns, "IDLE", secs(idle)).Int64()
}

// DropMemory is AMEM.DROP.
func (c *Client) DropMemory(ctx context.Context, ns string) error {
	_, err := c.do(ctx, "AMEM.DROP", ns)
	return err
}
