// Package admin holds the server's administrative commands: INFO, CONFIG,
// COMMAND, MODULE, LOLWUT and TIME. It owns what a client sees of them:
// argument parsing, checks, error texts, reply shapes, and their entries in
// the command table.
//
// What the commands do stays with the server. Each reaches it through
// Server, which the connection in cmdtable.Ctx.Conn hands out (Conn); the
// server's implementation (internal/server/adminconn.go) is a view of the
// client running the command, since some answers depend on it (TIME and
// CONFIG SET inside EXEC, the protected-config check of a local
// connection). The interface is called only from these commands, never on
// the data commands' path, so it costs GET and SET nothing; and admin does
// not import internal/server, so the server's state stays its own.
//
// Where the line falls:
//
//   - CONFIG: admin checks the names (unknown, immutable, protected,
//     duplicate) and sets the values on a copy the server hands it
//     (Server.SetConfig); the server makes the copy take effect, or none of
//     it, and reports a change it cannot make (listeners, TLS, the
//     append-only log) as an ApplyError naming the setting, which admin
//     words as Redis does.
//   - INFO: admin picks and orders the sections and writes those that need
//     nothing of the server (cpu, modules, cluster); the server writes the
//     rest (Server.InfoSection), each beside the subsystem it describes.
//   - COMMAND: admin renders the table; the table as renamed, the key specs
//     and the key finder are the server's (its dispatch uses them).
//
// CLIENT, DEBUG and MEMORY STATS/DOCTOR are still the server's: almost all
// of each is mechanism over the client list, the keyspace's internals and
// the memory figures, so moving only their parsing would put a wide
// interface in front of little code.
package admin
