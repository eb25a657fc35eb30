package harness

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Next reads one reply of a command sent earlier.
func (r *Conn) Next() string {
	r.T.Helper()
	r.NetConn.SetReadDeadline(time.Now().Add(5 * time.Second))
	s, err := ReadExact(r.Reader)
	if err != nil {
		r.T.Fatalf("read reply: %v", err)
	}
	return s
}

// Bulk, Integer and ErrReply are the RESP2 bytes of one reply, for
// byte-exact expectations (Conn.Exact).
func Bulk(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }

// Pipe sends commands in one write, so the server runs them in one batch
// with one clock reading, and returns their replies.
func (r *Conn) Pipe(cmds ...[]string) []any {
	r.T.Helper()
	var b strings.Builder
	for _, c := range cmds {
		b.WriteString(Encode(c...))
	}
	r.Send(b.String())
	out := make([]any, len(cmds))
	for i := range out {
		out[i] = r.Read()
	}
	return out
}

func Integer(n int) string { return fmt.Sprintf(":%d\r\n", n) }

func ErrReply(s string) string {
	return "-" + s + "\r\n"
}

// Cmd sends a command without reading its reply (a "deferring client").
func (r *Conn) Cmd(args string) { r.Send(Encode(strings.Fields(args)...)) }

// BlockedRe finds INFO's blocked_clients count.
var BlockedRe = regexp.MustCompile(`blocked_clients:(\d+)`)

// WaitBlocked waits until the server counts n blocked clients.
func WaitBlocked(t *testing.T, ctl *Conn, n int) {
	t.Helper()
	want := fmt.Sprint(n)
	deadline := time.Now().Add(5 * time.Second)
	for {
		info := ctl.Exact("INFO", "clients")
		m := BlockedRe.FindStringSubmatch(info)
		if m != nil && m[1] == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %d blocked clients: %v", n, m)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// ReadExact reads one reply and returns its bytes unchanged.
func ReadExact(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	if len(line) < 3 {
		return "", fmt.Errorf("short line %q", line)
	}
	out := line
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	switch line[0] {
	case '$', '=', '!':
		if n >= 0 {
			buf := make([]byte, n+2)
			if _, err := ReadFull(r, buf); err != nil {
				return "", err
			}
			out += string(buf)
		}
	case '*', '~', '>', '%':
		if line[0] == '%' {
			n *= 2
		}
		for range max(n, 0) {
			s, err := ReadExact(r)
			if err != nil {
				return "", err
			}
			out += s
		}
	}
	return out, nil
}

// Exact sends one command and returns the reply bytes.
func (r *Conn) Exact(args ...string) string {
	r.T.Helper()
	r.Send(Encode(args...))
	r.NetConn.SetReadDeadline(time.Now().Add(20 * time.Second)) // as Read's
	s, err := ReadExact(r.Reader)
	if err != nil {
		r.T.Fatalf("%v: read reply: %v", args, err)
	}
	return s
}

// DialRaw connects to any RESP server (HotKV or, for checking the tables
// themselves, a real Redis).
func DialRaw(t testing.TB, addr string, proto int) *Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r := &Conn{T: t, NetConn: c, Reader: bufio.NewReader(c)}
	if proto == 3 {
		r.Exact("HELLO", "3")
	}
	return r
}

// Targets are the servers a table runs against: a fresh HotKV, plus the
// Redis at $HOTKV_COMPARE_ADDR when set, which checks that the expectations
// are Redis's own. The tests flush that server; start a scratch one, e.g.
// redis8-server --port 23917 --save "" --enable-debug-command local.
func Targets(t *testing.T) map[string]string {
	out := map[string]string{"hotkv": Start(t).Addr}
	if a := os.Getenv("HOTKV_COMPARE_ADDR"); a != "" {
		out["redis"] = a
	}
	return out
}

// RV is one reply as it came: its type byte, its text (a status, an error, a
// number or a bulk payload), whether it was a null, and an aggregate's
// elements (a map's as alternating keys and values).
type RV struct {
	T    byte
	S    string
	Null bool
	A    []RV
}

// String is v in the compact form failure messages show.
func (v RV) String() string {
	var b strings.Builder
	v.Write(&b)
	return b.String()
}

// Write appends v's String form to b.
func (v RV) Write(b *strings.Builder) {
	b.WriteByte(v.T)
	switch {
	case v.Null:
		b.WriteString("nil")
	case v.A != nil || strings.IndexByte("*%~>|", v.T) >= 0:
		b.WriteByte('[')
		for i, e := range v.A {
			if i > 0 {
				b.WriteByte(' ')
			}
			e.Write(b)
		}
		b.WriteByte(']')
	case v.T == '$' || v.T == '=':
		b.WriteString(strconv.Quote(v.S))
	default:
		b.WriteString(v.S)
	}
}

// ReadRV reads one reply, keeping what ReadReply's Go values lose (the
// reply's type, a null's kind).
func ReadRV(r *bufio.Reader) (RV, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return RV{}, err
	}
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return RV{}, fmt.Errorf("bad line %q", line)
	}
	v := RV{T: line[0], S: line[1 : len(line)-2]}
	switch v.T {
	case '+', '-', ':', ',', '#', '(':
		return v, nil
	case '_':
		v.Null = true
		return v, nil
	case '$', '=', '!':
		n, err := strconv.Atoi(v.S)
		if err != nil {
			return RV{}, err
		}
		if n < 0 {
			v.Null = true
			v.S = ""
			return v, nil
		}
		buf := make([]byte, n+2)
		if _, err := ReadFull(r, buf); err != nil {
			return RV{}, err
		}
		v.S = string(buf[:n])
		return v, nil
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(v.S)
		if err != nil {
			return RV{}, err
		}
		v.S = ""
		if n < 0 {
			v.Null = true
			return v, nil
		}
		if v.T == '%' || v.T == '|' {
			n *= 2
		}
		v.A = make([]RV, n)
		for i := range v.A {
			if v.A[i], err = ReadRV(r); err != nil {
				return RV{}, err
			}
		}
		return v, nil
	}
	return RV{}, fmt.Errorf("unknown reply type %q", line)
}

// ReadLine reads one line, its CRLF dropped.
func ReadLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("read line: %v", err)
	}
	return strings.TrimRight(line, "\r\n")
}

// RawDo sends a command and returns its reply's bytes.
func (r *Conn) RawDo(args ...string) []byte {
	r.T.Helper()
	r.Send(Encode(args...))
	r.NetConn.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := ReadRawReply(r.Reader, nil)
	if err != nil {
		r.T.Fatalf("read reply: %v", err)
	}
	return b
}

// ReadRawReply appends one reply's bytes to b.
func ReadRawReply(r *bufio.Reader, b []byte) ([]byte, error) {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("bad line %q", line)
	}
	b = append(b, line...)
	n, _ := strconv.Atoi(string(line[1 : len(line)-2]))
	switch line[0] {
	case '$', '=', '!':
		if n >= 0 {
			buf := make([]byte, n+2)
			if _, err := ReadFull(r, buf); err != nil {
				return nil, err
			}
			b = append(b, buf...)
		}
	case '*', '~', '>', '%', '|':
		if line[0] == '%' || line[0] == '|' {
			n *= 2
		}
		for i := 0; i < n; i++ {
			if b, err = ReadRawReply(r, b); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}
