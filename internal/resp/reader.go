// Package resp reads Redis commands (multibulk and inline) and writes RESP2 and
// RESP3 replies. It owns the wire format only: no command semantics.
//
// The Parser works on a buffer the caller fills; the argument slices it returns
// point into that buffer, so they stay valid only until the caller compacts or
// refills it. Nothing is allocated per command once the buffers have grown.
package resp

import (
	"bytes"
	"errors"
	"math"
	"unsafe"

	"github.com/hotkv/hotkv/internal/intstr"
)

// ProtocolError is a malformed request. Redis replies with it and closes the
// connection, since the stream can no longer be framed.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return "ERR Protocol error: " + e.Msg }

func protoErr(msg string) error { return &ProtocolError{Msg: msg} }

// ErrIncomplete means the buffer ends inside a command: read more and call again.
var ErrIncomplete = errors.New("resp: incomplete command")

// Limits bound what one request may claim before its bytes arrive.
type Limits struct {
	MaxBulk      int64 // proto-max-bulk-len
	MaxMultibulk int64 // largest accepted argument count
	MaxInline    int   // longest inline command line
}

// DefaultLimits are Redis's defaults (inline: PROTO_INLINE_MAX_SIZE).
var DefaultLimits = Limits{MaxBulk: 512 << 20, MaxMultibulk: 1<<31 - 1, MaxInline: 64 << 10}

// Redis's fixed bounds: how far it scans for the end of a length line, and
// what a client that still has to authenticate may send (so that it cannot
// make the server allocate before proving who it is).
const (
	maxLengthLine = 64 << 10
	shortDigits   = 9 // shortLength's most: no overflow to check
	unauthMaxArgs = 10
	unauthMaxBulk = 16 << 10
)

// Parser frames commands out of a byte buffer. It keeps the state of a command
// that is only partly buffered, so a large request is scanned once, not once per
// read.
type Parser struct {
	Limits Limits
	// Unauthenticated applies Redis's limits for clients that have not
	// authenticated yet: at most 10 arguments of at most 16 KiB each.
	Unauthenticated bool

	// partial multibulk command, offsets relative to the buffer start
	inCmd   bool
	want    int64 // argument count announced by '*'
	pos     int   // next byte to scan
	bulkLen int64 // length of the bulk being read, -1 when reading a '$' header
	offs    []int // start,end pairs of arguments parsed so far
	args    [][]byte
}

// NewParser returns a parser with the given limits.
func NewParser(l Limits) *Parser { return &Parser{Limits: l, bulkLen: -1} }

// Next parses one command from buf[start:]. It returns the arguments and the
// offset just past the command. A nil args with a nil error means an empty
// request (blank inline line, "*0") was skipped. ErrIncomplete asks for more
// data; Need then tells how many bytes the buffer should hold from start.
//
// Framing follows Redis byte for byte: a length line ends at the first '\r'
// (whatever byte follows it), the two bytes after a bulk are skipped unread,
// and lengths are strict decimals (no '+', no leading zeros, no "-0").
func (p *Parser) Next(buf []byte, start int) (args [][]byte, end int, err error) {
	if !p.inCmd {
		if start >= len(buf) {
			return nil, start, ErrIncomplete
		}
		if buf[start] != '*' {
			return p.inline(buf, start)
		}
		n, nl, ok := shortLength(buf, start+1)
		if !ok {
			var err error
			if nl, err = lengthLine(buf, start, "too big mbulk count string"); nl < 0 {
				return nil, start, err
			}
			n, ok = intstr.Parse(buf[start+1 : nl])
		}
		if !ok || n > p.Limits.MaxMultibulk || n > math.MaxInt32 {
			return nil, start, protoErr("invalid multibulk length")
		}
		if n > unauthMaxArgs && p.Unauthenticated {
			return nil, start, protoErr("unauthenticated multibulk length")
		}
		if n <= 0 {
			return nil, nl + 2, nil
		}
		p.inCmd, p.want, p.pos, p.bulkLen = true, n, nl+2, -1
		p.offs = p.offs[:0]
	}
	for int64(len(p.offs)/2) < p.want {
		if p.bulkLen < 0 {
			n, nl, ok := int64(0), 0, false
			if p.pos < len(buf) && buf[p.pos] == '$' {
				n, nl, ok = shortLength(buf, p.pos+1)
			}
			if !ok {
				var err error
				if nl, err = lengthLine(buf, p.pos, "too big bulk count string"); nl < 0 {
					if err != ErrIncomplete {
						p.reset()
					}
					return nil, start, err
				}
				if buf[p.pos] != '$' {
					err := protoErr("expected '$', got '" + string(buf[p.pos:p.pos+1]) + "'")
					p.reset()
					return nil, start, err
				}
				n, ok = intstr.Parse(buf[p.pos+1 : nl])
			}
			if !ok || n < 0 || n > p.Limits.MaxBulk {
				p.reset()
				return nil, start, protoErr("invalid bulk length")
			}
			if n > unauthMaxBulk && p.Unauthenticated {
				p.reset()
				return nil, start, protoErr("unauthenticated bulk length")
			}
			p.bulkLen, p.pos = n, nl+2
		}
		if int64(len(buf)-p.pos)-2 < p.bulkLen {
			return nil, start, ErrIncomplete
		}
		e := p.pos + int(p.bulkLen)
		p.offs = append(p.offs, p.pos, e)
		p.pos, p.bulkLen = e+2, -1
	}
	p.args = p.args[:0]
	for i := 0; i < len(p.offs); i += 2 {
		p.args = append(p.args, buf[p.offs[i]:p.offs[i+1]:p.offs[i+1]])
	}
	end = p.pos
	p.reset()
	return p.args, end, nil
}

// shortLength reads the common length line quickly: at from, one to
// shortDigits digits with no leading zero, then '\r' and one more byte
// buffered. It returns the number and where the '\r' is; ok is false for
// anything else, which lengthLine and intstr.Parse then read (or refuse).
func shortLength(buf []byte, from int) (n int64, nl int, ok bool) {
	i := from
	for ; i < len(buf) && i < from+shortDigits; i++ {
		d := buf[i] - '0'
		if d > 9 {
			break
		}
		n = n*10 + int64(d)
	}
	if i == from || i+1 >= len(buf) || buf[i] != '\r' || buf[from] == '0' && i > from+1 {
		return 0, 0, false
	}
	return n, i, true
}

// lengthLine finds the '\r' ending the length line that starts at from, as
// Redis does: the byte after it must be buffered too (it is skipped unread).
// It returns -1 with ErrIncomplete while the line may still arrive, or with a
// protocol error once more than 64 KiB came without one.
func lengthLine(buf []byte, from int, tooBig string) (int, error) {
	if i := bytes.IndexByte(buf[from:], '\r'); i >= 0 {
		switch {
		case i > maxLengthLine: // the same verdict as when the line arrives in pieces
			return -1, protoErr(tooBig)
		case from+i+1 < len(buf):
			return from + i, nil
		}
		return -1, ErrIncomplete
	}
	if len(buf)-from > maxLengthLine {
		return -1, protoErr(tooBig)
	}
	return -1, ErrIncomplete
}

// Need reports how many bytes, counted from the start of the partial command,
// the buffer must hold for the next step of parsing to make progress. It lets
// the caller grow the buffer once for a large bulk instead of doubling.
func (p *Parser) Need(start int) int {
	if p.inCmd && p.bulkLen >= 0 {
		if p.bulkLen > math.MaxInt32 {
			return math.MaxInt // more than any buffer limit: let the caller cap it
		}
		return p.pos - start + int(p.bulkLen) + 2
	}
	return 0
}

// Shift tells the parser its buffer moved left by n bytes (compaction).
func (p *Parser) Shift(n int) {
	if !p.inCmd {
		return
	}
	p.pos -= n
	for i := range p.offs {
		p.offs[i] -= n
	}
}

// Pending reports whether a partial command is buffered.
func (p *Parser) Pending() bool { return p.inCmd }

// Reset drops a partly parsed command, for a caller that will not continue it.
func (p *Parser) Reset() { p.reset() }

// Release forgets the arguments of the last command, which point into the
// caller's buffer, so that a buffer the caller drops can be freed, and the
// argument lists themselves once a command of more than keepArgs arguments
// has grown them (100,000 arguments: 4 MB), unless a command is partly
// parsed. It returns the bytes of the lists it dropped.
func (p *Parser) Release() (dropped int) {
	if p.Oversized() && !p.inCmd { // a partial command's offsets are kept
		dropped = cap(p.args)*int(unsafe.Sizeof([]byte(nil))) + cap(p.offs)*int(unsafe.Sizeof(0))
		p.args, p.offs = nil, nil
		return dropped
	}
	clear(p.args[:cap(p.args)])
	return 0
}

// keepArgs is the most arguments whose lists an idle connection keeps.
const keepArgs = 1024

// Oversized reports whether a large command grew the argument lists past
// what an idle connection keeps (Release drops them).
func (p *Parser) Oversized() bool { return cap(p.args) > keepArgs }

func (p *Parser) reset() {
	p.inCmd, p.want, p.bulkLen = false, 0, -1
	p.offs = p.offs[:0]
}

func (p *Parser) inline(buf []byte, start int) ([][]byte, int, error) {
	// The limit is on the line without its CR LF. While the LF is missing, a
	// CR may be pending, hence the +1: the verdict does not depend on how
	// the line was split across reads.
	nl := bytes.IndexByte(buf[start:], '\n')
	if nl < 0 {
		if len(buf)-start > p.Limits.MaxInline+1 {
			return nil, start, protoErr("too big inline request")
		}
		return nil, start, ErrIncomplete
	}
	nl += start
	line := buf[start:nl]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	if len(line) > p.Limits.MaxInline {
		return nil, start, protoErr("too big inline request")
	}
	args, ok := SplitArgs(line, p.args[:0])
	if !ok {
		return nil, start, protoErr("unbalanced quotes in request")
	}
	p.args = args
	if len(args) == 0 {
		return nil, nl + 1, nil
	}
	return args, nl + 1, nil
}

// SplitArgs splits an inline command line as redis-cli and Redis do
// (sdssplitargs): blanks separate arguments, "double quotes" take \n \r \t
// \b \a \\ \" and \xHH escapes, 'single quotes' take \'. Escapes are decoded
// in place, so the returned slices alias line. ok is false on unbalanced quotes
// or a closing quote not followed by a blank.
//
// Like the C original, a NUL byte ends the line, and an unquoted argument ends
// only at a space, tab, CR or LF (a vertical tab or form feed is part of it),
// while blanks before an argument and after a closing quote are C's isspace.
func SplitArgs(line []byte, dst [][]byte) (args [][]byte, ok bool) {
	if z := bytes.IndexByte(line, 0); z >= 0 {
		line = line[:z]
	}
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i >= len(line) {
			return dst, true
		}
		out := i // write position for the decoded argument
		begin := i
		inDQ, inSQ := false, false
		for done := false; !done; {
			switch {
			case inDQ:
				if i >= len(line) {
					return dst, false
				}
				c := line[i]
				switch {
				case c == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					line[out] = unhex(line[i+2])<<4 | unhex(line[i+3])
					i += 3
				case c == '\\' && i+1 < len(line):
					i++
					switch line[i] {
					case 'n':
						line[out] = '\n'
					case 'r':
						line[out] = '\r'
					case 't':
						line[out] = '\t'
					case 'b':
						line[out] = '\b'
					case 'a':
						line[out] = '\a'
					default:
						line[out] = line[i]
					}
				case c == '"':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return dst, false
					}
					done = true
					i++
					continue
				default:
					line[out] = c
				}
				out++
				i++
			case inSQ:
				if i >= len(line) {
					return dst, false
				}
				c := line[i]
				switch {
				case c == '\\' && i+1 < len(line) && line[i+1] == '\'':
					line[out] = '\''
					i++
				case c == '\'':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return dst, false
					}
					done = true
					i++
					continue
				default:
					line[out] = c
				}
				out++
				i++
			default:
				if i >= len(line) {
					done = true
					break
				}
				switch c := line[i]; c {
				case ' ', '\n', '\r', '\t':
					done = true
				case '"':
					inDQ = true
				case '\'':
					inSQ = true
				default:
					line[out] = c
					out++
				}
				i++
			}
		}
		dst = append(dst, line[begin:out:out])
	}
}

// isSpace is C's isspace in the "C" locale.
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f'
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
