package admin

import (
	"math/rand/v2"
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
)

// LOLWUT [VERSION v]: a piece of computer art and the server's version, as
// a verbatim string (a bulk string in RESP2), shaped as Redis's reply is:
// the art, then a line ending with "HotKV ver. <version>". Redis picks
// the art by VERSION; HotKV has one piece, so VERSION is only checked to be
// an integer. Other arguments are ignored, as Redis 8's default art does.

// Maze size, in characters.
const lolwutCols, lolwutRows = 64, 16

// lolwutMaze draws "10 PRINT": each cell a random diagonal, which together
// make an endless maze.
func lolwutMaze() string {
	var b strings.Builder
	for range lolwutRows {
		for range lolwutCols {
			if rand.IntN(2) == 0 {
				b.WriteString("╱")
			} else {
				b.WriteString("╲")
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func lolwut(x *cmdtable.Ctx) {
	if len(x.Args) >= 3 && cmdtable.Is(x.Args[1], "version") {
		if _, ok := cmdtable.ParseInt(x.Args[2]); !ok {
			x.Error(cmdtable.ErrNotInt)
			return
		}
	}
	x.W.Verbatim(lolwutMaze() + "\n10 PRINT CHR$(205.5+RND(1)); : GOTO 10 - Commodore 64 BASIC, 1982. HotKV ver. " + srv(x).Version() + "\n")
}

func init() {
	cmdtable.Register(&cmdtable.Cmd{Name: "lolwut", Arity: -1, Flags: cmdtable.ReadOnly | cmdtable.Fast, Group: "server", Since: "5.0.0",
		Summary: "Displays computer art and the Redis version", Args: "[VERSION version]", Run: lolwut})
}
