package repl

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// link is one connection to the master.
type link struct {
	u       *Upstream
	conn    net.Conn
	br      *bufio.Reader // over linkReader
	wmu     sync.Mutex
	timeout time.Duration // the read deadline until the stream starts (then the acker's watch)
	syncing bool          // count the bytes read as the RDB's (INFO master_sync_read_bytes)
}

// linkReader reads the connection with repl-timeout as the deadline
// before the stream starts, noting the time of the last byte.
type linkReader struct{ l *link }

func (r *linkReader) Read(b []byte) (int, error) {
	l := r.l
	if l.timeout > 0 {
		l.conn.SetReadDeadline(time.Now().Add(l.timeout))
	}
	n, err := l.conn.Read(b)
	if n > 0 {
		l.u.stats.Received.Add(int64(n))
		l.u.lastIO.Store(time.Now().UnixMilli())
		if l.syncing {
			l.u.syncRead.Add(int64(n))
		}
	}
	return n, err
}

func (l *link) send(args ...string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := l.conn.Write(b.Bytes())
	return err
}

// line reads one reply line (CRLF stripped), skipping the bare newlines a
// master sends as keepalives while it prepares the RDB.
func (l *link) line() (string, error) {
	for {
		s, err := l.br.ReadString('\n')
		if err != nil {
			return "", err
		}
		l.u.lastIO.Store(time.Now().UnixMilli())
		s = strings.TrimRight(s, "\r\n")
		if s != "" {
			return s, nil
		}
	}
}

// command sends a handshake command and returns its reply line.
func (l *link) command(args ...string) (string, error) {
	if err := l.send(args...); err != nil {
		return "", err
	}
	return l.line()
}

// maxReplArg bounds one argument of the master's stream (Redis's
// proto-max-bulk-len default is 512 MB; a master may be configured higher).
const maxReplArg = 1 << 32

// readCommand reads one RESP command (a multibulk array of bulk strings,
// or an inline line) and its size in bytes.
func readCommand(br *bufio.Reader) (args [][]byte, n int64, err error) {
	head, err := br.ReadSlice('\n')
	if err != nil {
		return nil, 0, err
	}
	n = int64(len(head))
	line := bytes.TrimRight(head, "\r\n")
	if len(line) == 0 {
		return nil, n, nil
	}
	if line[0] != '*' {
		for _, f := range bytes.Fields(line) {
			args = append(args, append([]byte(nil), f...))
		}
		return args, n, nil
	}
	count, err := strconv.ParseInt(string(line[1:]), 10, 64)
	if err != nil || count > 1<<20 {
		return nil, n, fmt.Errorf("bad multibulk length %q from master", line)
	}
	args = make([][]byte, 0, count)
	for range count {
		h, err := br.ReadSlice('\n')
		if err != nil {
			return nil, n, err
		}
		n += int64(len(h))
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 || h[0] != '$' {
			return nil, n, fmt.Errorf("expected '$' from master, got %q", h)
		}
		size, err := strconv.ParseInt(string(h[1:]), 10, 64)
		if err != nil || size < 0 || size > maxReplArg {
			return nil, n, fmt.Errorf("bad bulk length %q from master", h)
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(br, b); err != nil {
			return nil, n, err
		}
		n += size + 2
		args = append(args, b[:size:size])
	}
	return args, n, nil
}
