// Package respclient is the load generator's RESP connection: requests are
// encoded once by the caller and written as bytes, replies are skipped
// without allocating (the hot path) or decoded into Go values (setup and
// result checks, where speed does not matter).
package respclient

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/hotkv/hotkv/internal/resp"
)

// ServerError is an error reply ("-ERR ...").
type ServerError string

func (e ServerError) Error() string { return string(e) }

// AppendStrings is AppendCommand for string arguments.
func AppendStrings(dst []byte, args ...string) []byte {
	b := make([][]byte, len(args))
	for i, a := range args {
		b[i] = []byte(a)
	}
	return resp.AppendCommand(dst, b...)
}

// Reader reads RESP values from a stream through its own buffer.
type Reader struct {
	rd        io.Reader
	buf       []byte
	pos, end  int
	lastFill  time.Time
	needsTime bool
	errBuf    [128]byte // the first error text of a reply, kept across refills
}

// NewReader reads from rd with a buffer of size bytes. With stamp set, the
// time of every read from rd is kept (LastRead), which lets the caller time
// replies with one clock read per network read instead of one per reply.
func NewReader(rd io.Reader, size int, stamp bool) *Reader {
	return &Reader{rd: rd, buf: make([]byte, size), needsTime: stamp}
}

// LastRead is when the bytes of the most recent reply were received (only
// with stamp set in NewReader).
func (r *Reader) LastRead() time.Time { return r.lastFill }

// Buffered reports whether unread bytes are buffered.
func (r *Reader) Buffered() bool { return r.pos < r.end }

func (r *Reader) fill() error {
	if r.pos > 0 {
		r.end = copy(r.buf, r.buf[r.pos:r.end])
		r.pos = 0
	}
	if r.end == len(r.buf) {
		nb := make([]byte, 2*len(r.buf))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	n, err := r.rd.Read(r.buf[r.end:])
	if n > 0 && r.needsTime {
		r.lastFill = time.Now()
	}
	r.end += n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// line returns the next line without its CRLF; it aliases the buffer.
func (r *Reader) line() ([]byte, error) {
	for {
		if i := bytes.IndexByte(r.buf[r.pos:r.end], '\n'); i >= 0 {
			l := r.buf[r.pos : r.pos+i]
			r.pos += i + 1
			if len(l) == 0 || l[len(l)-1] != '\r' {
				return nil, errors.New("protocol error: line not ended by CRLF")
			}
			return l[:len(l)-1], nil
		}
		if err := r.fill(); err != nil {
			return nil, err
		}
	}
}

// header reads the next type line: its type byte and the rest.
func (r *Reader) header() (byte, []byte, error) {
	l, err := r.line()
	if err != nil {
		return 0, nil, err
	}
	if len(l) == 0 {
		return 0, nil, errors.New("protocol error: empty line")
	}
	return l[0], l[1:], nil
}

// skipBytes discards n bytes plus the trailing CRLF.
func (r *Reader) skipBytes(n int) error {
	n += 2
	for r.end-r.pos < n {
		n -= r.end - r.pos
		r.pos, r.end = 0, 0
		if err := r.fill(); err != nil {
			return err
		}
	}
	r.pos += n
	return nil
}

func atoi(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, errors.New("protocol error: empty length")
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' || n > 1<<40 {
			return 0, fmt.Errorf("protocol error: bad length %q", b)
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

// Skip reads one complete value and discards it. If it is or holds an
// error reply, errText is the first error's text (up to 128 bytes, valid
// until the next Skip).
// It does not allocate.
func (r *Reader) Skip() (errText []byte, err error) {
	pending := 1
	for pending > 0 {
		pending--
		t, l, err := r.header()
		if err != nil {
			return nil, err
		}
		switch t {
		case '+', ':', '_', ',', '#', '(':
			continue
		case '-':
			if errText == nil {
				errText = r.errBuf[:copy(r.errBuf[:], l)]
			}
			continue
		case '$', '=', '!', '*', '~', '>', '%', '|':
		default:
			return nil, fmt.Errorf("protocol error: unexpected byte %q", t)
		}
		n, err := atoi(l)
		if err != nil {
			return nil, err
		}
		switch t {
		case '$', '=', '!':
			if n >= 0 {
				if err := r.skipBytes(n); err != nil {
					return nil, err
				}
			}
			if t == '!' && errText == nil { // RESP3 blob error
				errText = r.errBuf[:copy(r.errBuf[:], "ERR (blob error)")]
			}
		case '*', '~', '>':
			pending += max(n, 0)
		default: // maps and attributes: key and value per entry
			pending += 2 * max(n, 0)
		}
	}
	return errText, nil
}

// Read decodes one value: string for simple and bulk strings, int64,
// float64 for RESP3 doubles, nil, []any for arrays, sets and pushes,
// []any of alternating keys and values for maps, ServerError for errors.
func (r *Reader) Read() (any, error) {
	t, l, err := r.header()
	if err != nil {
		return nil, err
	}
	switch t {
	case '+':
		return string(l), nil
	case '-':
		return ServerError(l), nil
	case ':':
		return strconv.ParseInt(string(l), 10, 64)
	case ',':
		return strconv.ParseFloat(string(l), 64)
	case '_':
		return nil, nil
	case '#':
		return len(l) > 0 && l[0] == 't', nil
	case '(':
		return string(l), nil
	case '$', '=', '!':
		n, err := atoi(l)
		if err != nil || n < 0 {
			return nil, err
		}
		for r.end-r.pos < n+2 {
			if err := r.fill(); err != nil {
				return nil, err
			}
		}
		s := string(r.buf[r.pos : r.pos+n])
		r.pos += n + 2
		if t == '!' {
			return ServerError(s), nil
		}
		return s, nil
	case '*', '~', '>', '%', '|':
		n, err := atoi(l)
		if err != nil || n < 0 {
			return nil, err
		}
		if t == '%' || t == '|' {
			n *= 2
		}
		out := make([]any, n)
		for i := range out {
			if out[i], err = r.Read(); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("protocol error: unexpected byte %q", t)
}

// Conn is one client connection.
type Conn struct {
	net.Conn
	R    *Reader
	Addr string
}

// Dial connects to addr and checks that a RESP server answers.
func Dial(addr string, timeout time.Duration) (*Conn, error) {
	nc, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to %s: %v", addr, unwrapNet(err))
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	c := &Conn{Conn: nc, R: NewReader(nc, 64<<10, true), Addr: addr}
	nc.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Do("PING"); err != nil {
		nc.Close()
		return nil, fmt.Errorf("%s does not answer PING: %v", addr, err)
	}
	nc.SetDeadline(time.Time{})
	return c, nil
}

func unwrapNet(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

// Do sends one command and decodes its reply; an error reply is returned
// as a ServerError error.
func (c *Conn) Do(args ...string) (any, error) {
	return c.DoBytes(AppendStrings(nil, args...))
}

// DoBytes is Do for a request already encoded.
func (c *Conn) DoBytes(req []byte) (any, error) {
	if _, err := c.Write(req); err != nil {
		return nil, err
	}
	v, err := c.R.Read()
	if err != nil {
		return nil, err
	}
	if e, ok := v.(ServerError); ok {
		return nil, e
	}
	return v, nil
}

// Supports reports whether the server knows every command named (via
// COMMAND INFO; a server without COMMAND INFO is assumed to know them).
func (c *Conn) Supports(names ...string) (missing string, err error) {
	v, err := c.Do(append([]string{"COMMAND", "INFO"}, names...)...)
	if err != nil {
		if _, ok := err.(ServerError); ok {
			return "", nil
		}
		return "", err
	}
	arr, _ := v.([]any)
	for i, e := range arr {
		if e == nil && i < len(names) {
			return names[i], nil
		}
	}
	return "", nil
}

// Info returns the fields of INFO section as a map.
func (c *Conn) Info(section string) (map[string]string, error) {
	v, err := c.Do("INFO", section)
	if err != nil {
		return nil, err
	}
	s, _ := v.(string)
	out := map[string]string{}
	for _, line := range bytes.Split([]byte(s), []byte("\r\n")) {
		if k, val, ok := bytes.Cut(line, []byte(":")); ok && len(k) > 0 && k[0] != '#' {
			out[string(k)] = string(val)
		}
	}
	return out, nil
}
