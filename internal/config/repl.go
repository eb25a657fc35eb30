package config

import "strconv"

// ReplMaster is what serving replicas reads: the repl-* directives and the
// replica class of client-output-buffer-limit.
type ReplMaster struct {
	PingPeriod  int64 // repl-ping-replica-period, seconds
	Timeout     int64 // repl-timeout, seconds
	BacklogSize int64 // repl-backlog-size, bytes
	BacklogTTL  int64 // repl-backlog-ttl, seconds (0: never freed)
	OutputHard  int64 // client-output-buffer-limit replica: 0 = none
	OutputSoft  SoftLimit
	MinReplicas int64 // min-replicas-to-write
	MinMaxLag   int64 // min-replicas-max-lag, seconds
	// Deletions the server makes itself are sent as UNLINK, not DEL, as
	// Redis sends them: expiries (lazyfree-lazy-expire), evictions
	// (lazyfree-lazy-eviction), others (lazyfree-lazy-server-del).
	LazyExpire, LazyEviction, LazyServerDel bool
}

// LazyFree is lazyfree-lazy-<what>.
func (c *Config) LazyFree(what string) bool { return c.redisValue("lazyfree-lazy-"+what) == "yes" }

// ReplMaster returns the replication settings in force.
func (c *Config) ReplMaster() ReplMaster {
	num := func(name string) int64 { n, _ := strconv.ParseInt(c.redisValue(name), 10, 64); return n }
	l := outputLimits(c)[1]
	return ReplMaster{
		PingPeriod:    num("repl-ping-replica-period"),
		Timeout:       num("repl-timeout"),
		BacklogSize:   num("repl-backlog-size"),
		BacklogTTL:    num("repl-backlog-ttl"),
		OutputHard:    clampInt64(l.hard),
		OutputSoft:    SoftLimit{clampInt64(l.soft), l.secs},
		MinReplicas:   num("min-replicas-to-write"),
		MinMaxLag:     num("min-replicas-max-lag"),
		LazyExpire:    c.LazyFree("expire"),
		LazyEviction:  c.LazyFree("eviction"),
		LazyServerDel: c.LazyFree("server-del"),
	}
}
