// Package admin holds the server's administrative commands (INFO, CONFIG,
// COMMAND, MODULE, LOLWUT, TIME): their argument parsing, checks, error
// texts, reply shapes and registration in the command table.
//
// The mechanism they drive stays with the server: admin reaches it through
// Server, which the connection in cmdtable.Ctx.Conn hands out (Conn). The
// interface is called only from these commands, never on the data commands'
// path, so it costs GET and SET nothing; and admin does not import
// internal/server, so the server's state stays private to it.
package admin
