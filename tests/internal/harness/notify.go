package harness

import (
	"fmt"
	"strings"
	"testing"
)

// NotifyMarker is the channel EventRecorder publishes to after each command,
// so that it knows when that command's events have all arrived.
const NotifyMarker = "notify-test-marker"

// EventRecorder runs commands on one connection and collects, per command,
// the keyspace messages another connection receives, as "channel message".
type EventRecorder struct {
	T   *testing.T
	Cmd *Conn
	Sub *Conn
	N   int
}

// NewEventRecorder sets notify-keyspace-events to classes on s and
// subscribes to every keyspace channel.
func NewEventRecorder(t *testing.T, s *Server, classes string) *EventRecorder {
	t.Helper()
	r := &EventRecorder{T: t, Cmd: s.Raw(t), Sub: s.Raw(t)}
	if got := r.Cmd.Do("CONFIG", "SET", "notify-keyspace-events", classes); got != (Status("OK")) {
		t.Fatalf("CONFIG SET notify-keyspace-events %s: %#v", classes, got)
	}
	r.Sub.Do("PSUBSCRIBE", "__key*__:*")
	r.Sub.Do("SUBSCRIBE", NotifyMarker)
	return r
}

// Run sends cmd and returns its reply and the messages it caused: a PUBLISH
// to the marker channel after the reply delimits them.
func (r *EventRecorder) Run(cmd ...string) (reply any, events []string) {
	r.T.Helper()
	reply = r.Cmd.Do(cmd...)
	if reply == (Status("QUEUED")) || strings.EqualFold(cmd[0], "multi") {
		return reply, nil // a transaction publishes as EXEC runs it
	}
	r.N++
	mark := fmt.Sprint(r.N)
	r.Cmd.Do("PUBLISH", NotifyMarker, mark)
	for {
		m, ok := r.Sub.Read().([]any)
		if !ok || len(m) < 3 {
			r.T.Fatalf("%q: unexpected message %#v", cmd, m)
		}
		switch m[0] {
		case "message":
			if m[1] == NotifyMarker && m[2] == mark {
				return reply, events
			}
		case "pmessage":
			events = append(events, fmt.Sprint(m[2], " ", m[3]))
		default:
			r.T.Fatalf("%q: unexpected message %#v", cmd, m)
		}
	}
}

// KeyEvents builds the messages an event publishes with K and E on db 0.
func KeyEvents(pairs ...string) []string {
	var out []string
	for i := 0; i < len(pairs); i += 2 {
		ev, key := pairs[i], pairs[i+1]
		out = append(out, "__keyspace@0__:"+key+" "+ev, "__keyevent@0__:"+ev+" "+key)
	}
	return out
}
