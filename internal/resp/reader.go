// Package resp reads Redis commands (multibulk and inline) and writes RESP2 and
// RESP3 replies. It owns the wire format only: no command semantics.
//
// The Parser works on a buffer the caller fills; the argument slices it returns
// point into that buffer, so they stay valid only until the caller compacts or
// refills it. Nothing is allocated per command once the buffers have grown.
package resp

import (
	"errors"
	"fmt"
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

// Parser frames commands out of a byte buffer. It keeps the state of a command
// that is only partly buffered, so a large request is scanned once, not once per
// read.
type Parser struct {
	Limits Limits

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
func (p *Parser) Next(buf []byte, start int) (args [][]byte, end int, err error) {
	if !p.inCmd {
		if start >= len(buf) {
			return nil, start, ErrIncomplete
		}
		if buf[start] != '*' {
			return p.inline(buf, start)
		}
		nl := indexCRLF(buf, start+1)
		if nl < 0 {
			if len(buf)-start > 64<<10 {
				return nil, start, protoErr("too big mbulk count string")
			}
			return nil, start, ErrIncomplete
		}
		n, ok := parseInt(buf[start+1 : nl])
		if !ok || n > p.Limits.MaxMultibulk {
			return nil, start, protoErr("invalid multibulk length")
		}
		if n <= 0 {
			return nil, nl + 2, nil
		}
		p.inCmd, p.want, p.pos, p.bulkLen = true, n, nl+2, -1
		p.offs = p.offs[:0]
	}
	for int64(len(p.offs)/2) < p.want {
		if p.bulkLen < 0 {
			if p.pos >= len(buf) {
				return nil, start, ErrIncomplete
			}
			if buf[p.pos] != '$' {
				err := protoErr(fmt.Sprintf("expected '$', got '%c'", buf[p.pos]))
				p.reset()
				return nil, start, err
			}
			nl := indexCRLF(buf, p.pos+1)
			if nl < 0 {
				if len(buf)-p.pos > 64<<10 {
					p.reset()
					return nil, start, protoErr("too big bulk count string")
				}
				return nil, start, ErrIncomplete
			}
			n, ok := parseInt(buf[p.pos+1 : nl])
			if !ok || n < 0 || n > p.Limits.MaxBulk {
				p.reset()
				return nil, start, protoErr("invalid bulk length")
			}
			p.bulkLen, p.pos = n, nl+2
		}
		if int64(len(buf)-p.pos) < p.bulkLen+2 {
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

// Need reports how many bytes, counted from the start of the partial command,
// the buffer must hold for the next step of parsing to make progress. It lets
// the caller grow the buffer once for a large bulk instead of doubling.
func (p *Parser) Need(start int) int {
	if p.inCmd && p.bulkLen >= 0 {
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

func (p *Parser) reset() {
	p.inCmd, p.want, p.bulkLen = false, 0, -1
	p.offs = p.offs[:0]
}

func (p *Parser) inline(buf []byte, start int) ([][]byte, int, error) {
	nl := -1
	for i := start; i < len(buf); i++ {
		if buf[i] == '\n' {
			nl = i
			break
		}
	}
	if nl < 0 {
		if len(buf)-start > p.Limits.MaxInline {
			return nil, start, protoErr("too big inline request")
		}
		return nil, start, ErrIncomplete
	}
	if nl-start > p.Limits.MaxInline {
		return nil, start, protoErr("too big inline request")
	}
	line := buf[start:nl]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
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
// (sdssplitargs): spaces separate arguments, "double quotes" take \n \r \t \b \a
// \\ \" and \xHH escapes, 'single quotes' take \'. Escapes are decoded in place,
// so the returned slices alias line. ok is false on unbalanced quotes or a
// closing quote not followed by a space.
func SplitArgs(line []byte, dst [][]byte) (args [][]byte, ok bool) {
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
			if inDQ {
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
			} else if inSQ {
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
			} else {
				if i >= len(line) {
					break
				}
				switch c := line[i]; {
				case isSpace(c):
					done = true
				case c == '"':
					inDQ = true
				case c == '\'':
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

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f' || c == 0
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

func indexCRLF(b []byte, from int) int {
	for i := from; i+1 < len(b); i++ {
		if b[i] == '\r' {
			if b[i+1] == '\n' {
				return i
			}
		}
	}
	return -1
}

// parseInt parses a protocol length: optional '-', decimal digits, no overflow.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	neg := false
	if b[0] == '-' {
		neg, b = true, b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (1<<63-1-int64(c-'0'))/10 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		return -n, true
	}
	return n, true
}
