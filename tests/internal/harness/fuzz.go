package harness

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"net"
	"strings"
	"testing"
	"time"
)

// RunChecked writes payload, then RESET, ECHO of a nonce and INFO, on conn,
// and fails unless the replies reach the nonce (the connection stayed
// usable) and INFO counts no recovered panic; what names the input.
func RunChecked(t *testing.T, conn net.Conn, br *bufio.Reader, payload string, what any) {
	t.Helper()
	nonceBytes := make([]byte, 8)
	rand.Read(nonceBytes)
	nonce := hex.EncodeToString(nonceBytes)
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte(payload + Req("RESET") + Req("ECHO", nonce) + Req("INFO", "stats"))); err != nil {
		t.Fatalf("%q: write: %v", what, err)
	}
	for {
		v, err := ReadReply(br)
		if err != nil {
			t.Fatalf("%q: connection unusable: %v", what, err)
		}
		if v == nonce {
			break
		}
	}
	info, err := ReadReply(br)
	if err != nil {
		t.Fatalf("%q: INFO: %v", what, err)
	}
	if txt, _ := info.(string); !strings.Contains(txt, "recovered_panics:0\r\n") {
		t.Fatalf("%q: the server recovered from a panic (see its log)", what)
	}
}
