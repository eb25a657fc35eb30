package harness

import (
	bin "encoding/binary"
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Update makes the tests that check generated text (README.md's command
// list, docs/configuration.md's Redis directives, internal/server/redisspecs.go)
// rewrite it instead: go test -run <test> -update.
var Update = flag.Bool("update", false, "rewrite generated documentation")

// VSBlob is the FP32 encoding of v.
func VSBlob(v ...float32) string {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		bin.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return string(b)
}

// Port is the port of a host:port address.
func Port(addr string) string { return addr[strings.LastIndexByte(addr, ':')+1:] }

// SortedStrings is the elements of a as strings, sorted.
func SortedStrings(a []any) []string {
	out := make([]string, len(a))
	for i, v := range a {
		out[i] = fmt.Sprint(v)
	}
	slices.Sort(out)
	return out
}

// InfoInt reads a numeric field of INFO.
func InfoInt(t *testing.T, r *Conn, section, field string) int64 {
	t.Helper()
	text, _ := r.Do("INFO", section).(string)
	for _, line := range strings.Split(text, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatalf("INFO %s has no %s", section, field)
	return 0
}
