// Package cmdtable is the command table: each command's name, arity, flags,
// key positions and handler, and the context a handler runs in. Handlers are
// registered by the packages that implement them (internal/commands for data
// commands, internal/server for connection and server commands).
//
// # A write command owns its effects
//
// What a write did reaches the append-only log and the replicas (HotKV or
// Redis ones) in the form the command itself gives; the server never reads
// a reply to find out. Each command registered with the Write flag
// declares, where it is registered, one of:
//
//   - Effects: AsSent. The command as sent, replayed with the time it ran
//     on the data it found, does again what it did (SET, INCR, LPUSH). The
//     dispatcher logs it as sent. Where it changed nothing (DEL of a
//     missing key, SADD of a member already there, a refused SET NX, a pop
//     of nothing), its handler calls Ctx.NoEffects at the point it decides
//     so: nothing is logged, and Redis's dirty counter does not move. A
//     reply that is an error also logs nothing.
//   - Effects: Recorded. What it did depends on chance, the clock or what
//     it found (SPOP's members, XADD *'s ID, the key BLPOP served), so its
//     handler records what to log instead, as Redis's alsoPropagate: one
//     Ctx.Propagate per command to log (SPOP: the SREMs of what it popped;
//     BLPOP: the LPOP of the key it served), or Ctx.Rewrite alone when it
//     skipped building them because nothing is logged (Ctx.Logged unset).
//     The args it propagates must outlive the command: copy what aliases
//     Ctx.Args or a value's buffer.
//
// The log keeps each command with the time it ran, so a relative expiry
// replays as it ran. A replica runs a command at its own time, so a
// command whose logged form depends on that also sets ReplForm: the form
// replicas get (EXPIRE as PEXPIREAT, SET EX as SET PXAT, BLMOVE as LMOVE,
// GETEX as what it did to the TTL), the one Redis's own master sends. It
// rewrites the command as sent, so it belongs to AsSent commands; the
// forms of internal/commands are in its replform.go.
//
// To add a write command: register it with Effects; call NoEffects on the
// paths where it changes nothing; if its outcome is not determined by its
// arguments and the data, make it Recorded and Propagate what it did; if
// it names a time relative to now, give it a ReplForm. A test over the
// table (internal/server TestWritesDeclareEffects) names every Write
// command that declares no Effects, and internal/commands
// TestWriteEffects pins what the handlers record.
package cmdtable
