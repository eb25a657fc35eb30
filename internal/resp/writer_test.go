package resp

import (
	"math"
	"testing"
)

// TestWriterShapes checks every reply type in both protocols: RESP3 types
// fall back to their RESP2 equivalents as Redis's do.
func TestWriterShapes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		write  func(w *Writer)
		r2, r3 string
	}{
		{"ok", func(w *Writer) { w.OK() }, "+OK\r\n", "+OK\r\n"},
		{"simple", func(w *Writer) { w.Simple("QUEUED") }, "+QUEUED\r\n", "+QUEUED\r\n"},
		{"error", func(w *Writer) { w.Error("ERR a\r\nb") }, "-ERR a  b\r\n", "-ERR a  b\r\n"},
		{"int", func(w *Writer) { w.Int(-42) }, ":-42\r\n", ":-42\r\n"},
		{"bulk", func(w *Writer) { w.Bulk([]byte("a\r\nb")) }, "$4\r\na\r\nb\r\n", "$4\r\na\r\nb\r\n"},
		{"empty bulk", func(w *Writer) { w.BulkString("") }, "$0\r\n\r\n", "$0\r\n\r\n"},
		{"bulk int", func(w *Writer) { w.BulkInt(1234567) }, "$7\r\n1234567\r\n", "$7\r\n1234567\r\n"},
		{"null", func(w *Writer) { w.Null() }, "$-1\r\n", "_\r\n"},
		{"null array", func(w *Writer) { w.NullArray() }, "*-1\r\n", "_\r\n"},
		{"array", func(w *Writer) { w.Array(2); w.Int(1); w.Null() }, "*2\r\n:1\r\n$-1\r\n", "*2\r\n:1\r\n_\r\n"},
		{"map", func(w *Writer) { w.Map(1); w.BulkString("k"); w.Int(1) }, "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"},
		{"set", func(w *Writer) { w.Set(1); w.Simple("x") }, "*1\r\n+x\r\n", "~1\r\n+x\r\n"},
		{"push", func(w *Writer) { w.Push(1); w.BulkString("m") }, "*1\r\n$1\r\nm\r\n", ">1\r\n$1\r\nm\r\n"},
		{"double", func(w *Writer) { w.Double(1.5) }, "$3\r\n1.5\r\n", ",1.5\r\n"},
		{"double int", func(w *Writer) { w.Double(3) }, "$1\r\n3\r\n", ",3\r\n"},
		{"double inf", func(w *Writer) { w.Double(math.Inf(1)) }, "$3\r\ninf\r\n", ",inf\r\n"},
		{"double -inf", func(w *Writer) { w.Double(math.Inf(-1)) }, "$4\r\n-inf\r\n", ",-inf\r\n"},
		{"double small", func(w *Writer) { w.Double(0.1) }, "$3\r\n0.1\r\n", ",0.1\r\n"},
		{"bool", func(w *Writer) { w.Bool(true); w.Bool(false) }, ":1\r\n:0\r\n", "#t\r\n#f\r\n"},
		{"verbatim", func(w *Writer) { w.Verbatim("a\r\nb") }, "$4\r\na\r\nb\r\n", "=8\r\ntxt:a\r\nb\r\n"},
		{"verbatim format", func(w *Writer) { w.VerbatimAs("mkdown", "x"); w.VerbatimAs("a", "") }, "$1\r\nx\r\n$0\r\n\r\n", "=5\r\nmkd:x\r\n=4\r\na  :\r\n"},
		{"bignum", func(w *Writer) { w.BigNum("-12345678901234567890") }, "$21\r\n-12345678901234567890\r\n", "(-12345678901234567890\r\n"},
		{"attribute", func(w *Writer) { w.Attribute(1); w.BulkString("k"); w.Int(1) }, "|1\r\n$1\r\nk\r\n:1\r\n", "|1\r\n$1\r\nk\r\n:1\r\n"},
	} {
		for _, proto := range []int{2, 3} {
			w := &Writer{Proto: proto}
			tc.write(w)
			want := tc.r2
			if proto == 3 {
				want = tc.r3
			}
			if string(w.B) != want {
				t.Errorf("%s RESP%d: %q, want %q", tc.name, proto, w.B, want)
			}
		}
	}
}
