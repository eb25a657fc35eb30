package server

import (
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/cmdtable"
)

// TestWritesDeclareEffects: every write command says how what it did
// reaches the append-only log and replicas (cmdtable.Cmd.Effects), so that
// adding one means deciding it (internal/cmdtable/doc.go); a ReplForm
// rewrites the command as sent, so only AsSent ones have one, and a
// command that writes nothing declares nothing.
func TestWritesDeclareEffects(t *testing.T) {
	var undeclared, formOfRecorded, notWrite []string
	var check func(c *cmdtable.Cmd)
	check = func(c *cmdtable.Cmd) {
		write := c.Flags&cmdtable.Write != 0
		switch {
		case write && c.Effects == cmdtable.Undeclared:
			undeclared = append(undeclared, c.Name)
		case !write && (c.Effects != cmdtable.Undeclared || c.ReplForm != nil):
			notWrite = append(notWrite, c.Name)
		case c.ReplForm != nil && c.Effects != cmdtable.AsSent:
			formOfRecorded = append(formOfRecorded, c.Name)
		}
		for _, sc := range c.Subs {
			check(sc)
		}
	}
	for _, c := range cmdtable.All() {
		check(c)
	}
	if len(undeclared) > 0 {
		t.Errorf("write commands that declare no Effects (AsSent or Recorded): %s", strings.Join(undeclared, ", "))
	}
	if len(formOfRecorded) > 0 {
		t.Errorf("commands with a ReplForm whose handler records its effects: %s", strings.Join(formOfRecorded, ", "))
	}
	if len(notWrite) > 0 {
		t.Errorf("commands that are not Write but declare Effects or a ReplForm: %s", strings.Join(notWrite, ", "))
	}
}
