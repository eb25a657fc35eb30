// Package notify implements Redis keyspace notifications: the event classes
// notify-keyspace-events selects, and the messages an event publishes on
// __keyspace@<db>__:<key> and __keyevent@<db>__:<event>.
package notify

import (
	"errors"
	"strconv"
	"sync/atomic"
)

// Class is a set of notify-keyspace-events flags.
type Class uint32

// The classes, as Redis's NOTIFY_* flags.
const (
	Keyspace Class = 1 << iota // K: publish on __keyspace@<db>__:<key>
	Keyevent                   // E: publish on __keyevent@<db>__:<event>
	Generic                    // g: DEL, EXPIRE, RENAME...
	String                     // $
	List                       // l
	Set                        // s
	Hash                       // h
	ZSet                       // z
	Expired                    // x: a key removed because its time ran out
	Evicted                    // e: a key removed for maxmemory
	Stream                     // t
	KeyMiss                    // m: a read of a missing key
	Module                     // d
	New                        // n: a key added to the dataset

	// All is the A alias: every class but key misses and new keys.
	All = Generic | String | List | Set | Hash | ZSet | Expired | Evicted | Stream | Module
)

// letters maps each flag character to its class, in the order Redis
// prints them.
var letters = []struct {
	c     byte
	class Class
}{
	{'g', Generic}, {'$', String}, {'l', List}, {'s', Set}, {'h', Hash}, {'z', ZSet},
	{'x', Expired}, {'e', Evicted}, {'t', Stream}, {'d', Module}, {'n', New},
	{'K', Keyspace}, {'E', Keyevent}, {'m', KeyMiss},
}

// ErrClass is Redis's complaint about a character it does not know.
var ErrClass = errors.New("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")

// Parse reads a notify-keyspace-events value.
func Parse(s string) (Class, error) {
	var c Class
next:
	for i := 0; i < len(s); i++ {
		if s[i] == 'A' {
			c |= All
			continue
		}
		for _, l := range letters {
			if l.c == s[i] {
				c |= l.class
				continue next
			}
		}
		return 0, ErrClass
	}
	return c, nil
}

// String formats c as CONFIG GET shows it: "A" for all of All, else its
// letters (Redis leaves out n when it prints A, and so does this).
func (c Class) String() string {
	var b []byte
	if c&All == All {
		b = append(b, 'A')
	}
	for _, l := range letters {
		inA := l.class&All != 0 || l.class == New
		if c&l.class != 0 && !(inA && c&All == All) {
			b = append(b, l.c)
		}
	}
	return string(b)
}

// Notifier publishes the events of one keyspace. The zero value publishes
// nothing until Set and SetPublisher are called.
type Notifier struct {
	classes atomic.Uint32
	publish func(channel, message []byte)
}

// SetPublisher sets how a message reaches subscribers (PUBLISH's path);
// call it before the keyspace is shared.
func (n *Notifier) SetPublisher(fn func(channel, message []byte)) { n.publish = fn }

// Set changes the classes published.
func (n *Notifier) Set(c Class) { n.classes.Store(uint32(c)) }

// Classes is the current setting.
func (n *Notifier) Classes() Class { return Class(n.classes.Load()) }

// On reports whether an event of class c would be published: one atomic load,
// so that commands can afford to ask on every write.
func (n *Notifier) On(c Class) bool {
	return n != nil && Class(n.classes.Load())&c != 0
}

// Emit publishes event on key in database db if c is enabled, to the keyspace
// channel, the keyevent channel or both, as K and E select.
func (n *Notifier) Emit(c Class, event string, key []byte, db int) {
	classes := Class(n.classes.Load())
	if classes&c == 0 || n.publish == nil {
		return
	}
	if classes&Keyspace != 0 {
		ch := make([]byte, 0, 24+len(key))
		ch = append(ch, "__keyspace@"...)
		ch = strconv.AppendInt(ch, int64(db), 10)
		ch = append(ch, "__:"...)
		n.publish(append(ch, key...), []byte(event))
	}
	if classes&Keyevent != 0 {
		ch := make([]byte, 0, 24+len(event))
		ch = append(ch, "__keyevent@"...)
		ch = strconv.AppendInt(ch, int64(db), 10)
		ch = append(ch, "__:"...)
		n.publish(append(ch, event...), key)
	}
}
