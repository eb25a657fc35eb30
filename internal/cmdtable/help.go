package cmdtable

import "strings"

// HelpCmd builds the HELP subcommand of a container command: Redis's header
// line, lines, then its HELP entry.
func HelpCmd(parent, group, since string, lines []string) *Cmd {
	up := strings.ToUpper(parent)
	return &Cmd{Name: parent + "|help", Arity: 2, Flags: Loading | Stale, Group: group,
		Summary: "Returns helpful text about the different subcommands.", Since: since,
		Run: func(x *Ctx) {
			x.W.Array(len(lines) + 3)
			x.W.Simple(up + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
			for _, l := range lines {
				x.W.Simple(l)
			}
			x.W.Simple("HELP")
			x.W.Simple("    Print this help.")
		}}
}
