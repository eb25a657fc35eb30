package respclient

import (
	"reflect"
	"strings"
	"testing"
)

const replies = "+OK\r\n-ERR bad\r\n:42\r\n$3\r\nabc\r\n$-1\r\n*2\r\n$1\r\na\r\n*1\r\n:1\r\n" +
	"%1\r\n+k\r\n,1.5\r\n_\r\n#t\r\n~1\r\n+s\r\n>2\r\n+p\r\n+q\r\n=7\r\ntxt:abc\r\n(12\r\n!5\r\nERR x\r\n*-1\r\n"

func TestRead(t *testing.T) {
	// A one-byte buffer forces every refill path.
	r := NewReader(strings.NewReader(replies), 1, false)
	want := []any{"OK", ServerError("ERR bad"), int64(42), "abc", nil, []any{"a", []any{int64(1)}},
		[]any{"k", 1.5}, nil, true, []any{"s"}, []any{"p", "q"}, "txt:abc", "12", ServerError("ERR x"), nil}
	for i, w := range want {
		got, err := r.Read()
		if err != nil || !reflect.DeepEqual(got, w) {
			t.Fatalf("reply %d: got %#v, %v; want %#v", i, got, err, w)
		}
	}
}

func TestSkip(t *testing.T) {
	r := NewReader(strings.NewReader(replies), 1, false)
	var errs []string
	n := 0
	for ; ; n++ {
		e, err := r.Skip()
		if err != nil {
			break
		}
		if e != nil {
			errs = append(errs, string(e))
		}
	}
	if n != 15 || !reflect.DeepEqual(errs, []string{"ERR bad", "ERR (blob error)"}) {
		t.Fatalf("skipped %d replies, errors %q", n, errs)
	}
}

func TestSkipDoesNotAllocate(t *testing.T) {
	data := strings.Repeat("$3\r\nabc\r\n*2\r\n:1\r\n+OK\r\n", 100)
	rd := strings.NewReader(data)
	r := NewReader(rd, 64<<10, true)
	allocs := testing.AllocsPerRun(10, func() {
		rd.Reset(data)
		r.pos, r.end = 0, 0
		for range 200 {
			if _, err := r.Skip(); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per 200 replies", allocs)
	}
}

func TestProtocolErrors(t *testing.T) {
	for _, in := range []string{"?\r\n", "$x\r\n", "+OK\n", "\r\n"} {
		if _, err := NewReader(strings.NewReader(in), 16, false).Skip(); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestAppendCommand(t *testing.T) {
	got := string(AppendStrings(nil, "SET", "k", ""))
	if got != "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n" {
		t.Fatalf("%q", got)
	}
}

func TestSkipNestedErrors(t *testing.T) {
	// Errors inside an array: the first one's text survives the refills that
	// read the rest, and every blob error's payload is skipped.
	in := "*4\r\n-ERR first\r\n!3\r\nabc\r\n!2\r\nde\r\n$5\r\nhello\r\n+OK\r\n"
	r := NewReader(strings.NewReader(in), 1, false)
	e, err := r.Skip()
	if err != nil || string(e) != "ERR first" {
		t.Fatalf("got %q, %v", e, err)
	}
	if v, err := r.Read(); v != "OK" || err != nil {
		t.Fatalf("next reply %v, %v", v, err)
	}
}
