package resp

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/intstr"
)

func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // nil with ok=false: unbalanced
		ok   bool
	}{
		{"", nil, true},
		{"   \t ", nil, true},
		{"set a b", []string{"set", "a", "b"}, true},
		{"  set   a\tb  ", []string{"set", "a", "b"}, true},
		{`set "a b" c`, []string{"set", "a b", "c"}, true},
		{`"a\nb\r\t\b\a\\\"q"`, []string{"a\nb\r\t\b\a\\\"q"}, true},
		{`"\x41\x4a\x4A\xzz"`, []string{"AJJxzz"}, true},
		{`"\x4"`, []string{"x4"}, true},
		{`"\q"`, []string{"q"}, true},
		{`'it\'s' "x"`, []string{"it's", "x"}, true},
		{`'a\nb'`, []string{`a\nb`}, true},
		{`foo"bar"`, []string{"foobar"}, true},
		{`""`, []string{""}, true},
		{`'' ""`, []string{"", ""}, true},
		{"a\vb\fc", []string{"a\vb\fc"}, true}, // only space, tab, CR, LF end an unquoted word
		{"\va\f", []string{"a\f"}, true},       // but any C blank is skipped before one
		{`"a"` + "\v" + `b`, []string{"a", "b"}, true},
		{"a\x00b c", []string{"a"}, true}, // a NUL ends the line, as in C
		{"\"a\x00\"", nil, false},
		{`"abc`, nil, false},
		{`'abc`, nil, false},
		{`"abc"d`, nil, false},
		{`'abc'd`, nil, false},
		{`"abc\"`, nil, false},
		{`"abc\`, nil, false},
	} {
		got, ok := SplitArgs([]byte(tc.in), nil)
		if ok != tc.ok {
			t.Errorf("SplitArgs(%q) ok = %v, want %v", tc.in, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		var s []string
		for _, a := range got {
			s = append(s, string(a))
		}
		if !reflect.DeepEqual(s, tc.want) {
			t.Errorf("SplitArgs(%q) = %q, want %q", tc.in, s, tc.want)
		}
	}
}

// frame runs the parser over data delivered in chunks of the given sizes (the
// rest in one piece), compacting the buffer as the server does, and returns
// the commands and the first protocol error.
func frame(t testing.TB, p *Parser, data []byte, chunks []int) (cmds [][]string, err error) {
	var buf []byte
	r := 0
	feed := func(n int) {
		if r > 0 && p.Pending() { // compact a partial command to the front
			buf = append(buf[:0], buf[r:]...)
			p.Shift(r)
			r = 0
		}
		buf = append(buf, data[:n]...)
		data = data[n:]
	}
	for {
		if len(chunks) > 0 {
			n := min(chunks[0], len(data))
			chunks = chunks[1:]
			feed(n)
		} else if len(data) > 0 {
			feed(len(data))
		} else {
			return cmds, nil
		}
		for {
			args, end, e := p.Next(buf, r)
			if e == ErrIncomplete {
				if end != r {
					t.Fatalf("ErrIncomplete moved the offset from %d to %d", r, end)
				}
				break
			}
			if e != nil {
				return cmds, e
			}
			if end <= r || end > len(buf) {
				t.Fatalf("offset went from %d to %d (buffer %d)", r, end, len(buf))
			}
			r = end
			if args != nil {
				var c []string
				for _, a := range args {
					c = append(c, string(a))
				}
				cmds = append(cmds, c)
			}
			if r == len(buf) {
				buf, r = buf[:0], 0
			}
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestParserFraming(t *testing.T) {
	big := strings.Repeat("v", 100000)
	for _, tc := range []struct {
		in   string
		want [][]string
	}{
		{"*1\r\n$4\r\nPING\r\n", [][]string{{"PING"}}},
		{"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n", [][]string{{"SET", "k", ""}}},
		{"*2\r\n$4\r\nECHO\r\n$3\r\na\r\n\r\n", [][]string{{"ECHO", "a\r\n"}}}, // binary-safe
		{"*0\r\n*-1\r\n*-5\r\nPING\r\n", [][]string{{"PING"}}},                 // empty and negative counts are skipped
		{"\r\n\n   \r\nPING\n", [][]string{{"PING"}}},                          // blank inline lines too
		{"*1\rX$4\r\nPING\r\n", [][]string{{"PING"}}},                          // Redis skips whatever byte follows '\r'
		{"*1\r\n$4\r\nPINGxy*1\r\n$1\r\nA\r\n", [][]string{{"PING"}, {"A"}}},   // and the two bytes after a bulk
		{"set a 'b c'\r\nget a\n", [][]string{{"set", "a", "b c"}, {"get", "a"}}},
		{"*2\r\n$4\r\nECHO\r\n$100000\r\n" + big + "\r\n", [][]string{{"ECHO", big}}},
	} {
		got, err := frame(t, NewParser(DefaultLimits), []byte(tc.in), nil)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%.40q: got %.80q, %v", tc.in, got, err)
		}
	}
}

// TestParserEveryBoundary splits a pipeline at every byte boundary, and
// byte by byte: the commands must come out the same.
func TestParserEveryBoundary(t *testing.T) {
	in := []byte("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nva\r\nl\r\nECHO \"in line\" 'q'\r\n*1\r\n$4\r\nPING\r\n\r\n*2\r\n$3\r\nGET\r\n$0\r\n\r\n")
	want, err := frame(t, NewParser(DefaultLimits), bytes.Clone(in), nil)
	if err != nil || len(want) != 4 {
		t.Fatalf("whole: %q, %v", want, err)
	}
	for i := 1; i < len(in); i++ {
		got, err := frame(t, NewParser(DefaultLimits), bytes.Clone(in), []int{i})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("split at %d: %q, %v", i, got, err)
		}
	}
	ones := make([]int, len(in))
	for i := range ones {
		ones[i] = 1
	}
	if got, err := frame(t, NewParser(DefaultLimits), bytes.Clone(in), ones); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("byte by byte: %q, %v", got, err)
	}
}

func TestParserErrors(t *testing.T) {
	long := strings.Repeat("1", 70000)
	small := Limits{MaxBulk: 100, MaxMultibulk: 5, MaxInline: 20}
	for _, tc := range []struct {
		in     string
		limits Limits
		unauth bool
		want   string // "" = needs more data, no error
	}{
		{"*x\r\n", DefaultLimits, false, "invalid multibulk length"},
		{"*\r\n", DefaultLimits, false, "invalid multibulk length"},
		{"*+1\r\n", DefaultLimits, false, "invalid multibulk length"},
		{"*01\r\n", DefaultLimits, false, "invalid multibulk length"},
		{"* 1\r\n", DefaultLimits, false, "invalid multibulk length"},
		{"*1 \r\n", DefaultLimits, false, "invalid multibulk length"},
		{"*3000000000\r\n", DefaultLimits, false, "invalid multibulk length"},
		{"*99999999999999999999\r\n", DefaultLimits, false, "invalid multibulk length"},
		{"*6\r\n", small, false, "invalid multibulk length"},
		{"*5\r\n", small, false, ""},
		{"*11\r\n", DefaultLimits, true, "unauthenticated multibulk length"},
		{"*10\r\n", DefaultLimits, true, ""},
		{"*" + long, DefaultLimits, false, "too big mbulk count string"},
		{"*" + long + "\r\n", DefaultLimits, false, "too big mbulk count string"},
		{"*1\r\nx\r\n", DefaultLimits, false, "expected '$', got 'x'"},
		{"*1\r\nx", DefaultLimits, false, ""}, // Redis waits for the line end before looking
		{"*1\r\n:1\r\n", DefaultLimits, false, "expected '$', got ':'"},
		{"*1\r\n$x\r\n", DefaultLimits, false, "invalid bulk length"},
		{"*1\r\n$-1\r\n", DefaultLimits, false, "invalid bulk length"},
		{"*1\r\n$-0\r\n", DefaultLimits, false, "invalid bulk length"},
		{"*1\r\n$01\r\n", DefaultLimits, false, "invalid bulk length"},
		{"*1\r\n$536870913\r\n", DefaultLimits, false, "invalid bulk length"},
		{"*1\r\n$536870912\r\n", DefaultLimits, false, ""},
		{"*1\r\n$101\r\n", small, false, "invalid bulk length"},
		{"*1\r\n$16385\r\n", DefaultLimits, true, "unauthenticated bulk length"},
		{"*1\r\n$16384\r\n", DefaultLimits, true, ""},
		{"*1\r\n$" + long, DefaultLimits, false, "too big bulk count string"},
		{"*1\r\n$9223372036854775807\r\n", Limits{MaxBulk: 1<<63 - 1, MaxMultibulk: 5, MaxInline: 5}, false, ""},
		{strings.Repeat("A", 70000), DefaultLimits, false, "too big inline request"},
		{strings.Repeat("A", 70000) + "\n", DefaultLimits, false, "too big inline request"},
		{strings.Repeat("A", 21) + "\n", small, false, "too big inline request"},
		{strings.Repeat("A", 22), small, false, "too big inline request"},
		{strings.Repeat("A", 20) + "\r", small, false, ""},
		{strings.Repeat("A", 20), small, false, ""},
		{`set "a`, DefaultLimits, false, ""},
		{"set \"a\r\n", DefaultLimits, false, "unbalanced quotes in request"},
		{"set 'a'b\n", DefaultLimits, false, "unbalanced quotes in request"},
	} {
		p := NewParser(tc.limits)
		p.Unauthenticated = tc.unauth
		_, err := frame(t, p, []byte(tc.in), nil)
		var pe *ProtocolError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%.30q: unexpected %v", tc.in, err)
		case tc.want != "" && (!errors.As(err, &pe) || pe.Msg != tc.want):
			t.Errorf("%.30q: got %v, want %q", tc.in, err, tc.want)
		}
		if tc.want == "" && tc.in[0] == '*' && tc.in[len(tc.in)-1] == '\n' && !p.Pending() {
			t.Errorf("%.30q: no partial command pending", tc.in)
		}
	}
	if got := (&ProtocolError{Msg: "x"}).Error(); got != "ERR Protocol error: x" {
		t.Errorf("Error() = %q", got)
	}
}

// TestParserNeed checks that a large bulk's size is announced once its
// header is in, so the caller can size the buffer in one step.
func TestParserNeed(t *testing.T) {
	p := NewParser(DefaultLimits)
	buf := []byte("junk*2\r\n$3\r\nSET\r\n$1000000\r\nabc")
	if _, _, err := p.Next(buf, 4); err != ErrIncomplete {
		t.Fatal(err)
	}
	if got, want := p.Need(4), len("*2\r\n$3\r\nSET\r\n$1000000\r\n")+1000000+2; got != want {
		t.Fatalf("Need = %d, want %d", got, want)
	}
	q := NewParser(Limits{MaxBulk: 1<<63 - 1, MaxMultibulk: 5, MaxInline: 5})
	if _, _, err := q.Next([]byte("*1\r\n$9223372036854775807\r\n"), 0); err != ErrIncomplete {
		t.Fatal(err)
	}
	if q.Need(0) < 1<<40 {
		t.Fatalf("Need for a huge bulk = %d", q.Need(0))
	}
}

// FuzzParser feeds random bytes whole and in random chunks: the parser must
// never panic, and must frame the same commands and fail the same way however
// the bytes arrive.
func FuzzParser(f *testing.F) {
	for _, s := range []string{
		"*1\r\n$4\r\nPING\r\n",
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\nGET k\r\n",
		"set \"a\\x41\\n\" 'b\\'c'\r\n\r\n",
		"*2\r\n$4\r\nECHO\r\n$-1\r\n",
		"*1\rX$4\r\nPING\r\n",
		"*-1\r\n*0\r\nPING\n",
		"*1\r\n$9223372036854775807\r\n",
		"\"unbalanced\r\n",
		"a\x00b\r\n",
		"*1\r\n$3\r\nabc\r",
	} {
		f.Add([]byte(s), []byte{1, 3, 7}, false)
	}
	f.Fuzz(func(t *testing.T, data, cuts []byte, unauth bool) {
		lim := Limits{MaxBulk: 1 << 20, MaxMultibulk: 1 << 10, MaxInline: 1 << 10}
		p := NewParser(lim)
		p.Unauthenticated = unauth
		whole, werr := frame(t, p, bytes.Clone(data), nil)
		chunks := make([]int, len(cuts))
		for i, c := range cuts {
			chunks[i] = int(c)%17 + 1
		}
		q := NewParser(lim)
		q.Unauthenticated = unauth
		parts, perr := frame(t, q, bytes.Clone(data), chunks)
		if !reflect.DeepEqual(whole, parts) || errText(werr) != errText(perr) {
			t.Fatalf("whole: %q, %v\nchunked %v: %q, %v", whole, werr, chunks, parts, perr)
		}
	})
}

// FuzzShortLength: where shortLength reads a length line, it reads what
// lengthLine and intstr.Parse read there.
func FuzzShortLength(f *testing.F) {
	for _, s := range []string{"4\r\n", "0\r\n", "01\r\n", "00\r\n", "123456789\r\n", "1234567890\r\n",
		"-1\r\n", "\r\n", "12\r", "+3\r\n", "3\n\r\n", "9x\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, nl, ok := shortLength(b, 0)
		if !ok {
			return
		}
		wantNL, err := lengthLine(b, 0, "too big")
		want, wantOK := int64(0), false
		if err == nil {
			want, wantOK = intstr.Parse(b[:wantNL])
		}
		if !wantOK || n != want || nl != wantNL {
			t.Fatalf("%q: shortLength %d at %d, general %d at %d (%v, %v)", b, n, nl, want, wantNL, wantOK, err)
		}
	})
}

// BenchmarkParserPipeline frames a buffer of 100 SET commands.
func BenchmarkParserPipeline(b *testing.B) {
	var buf []byte
	for range 100 {
		buf = append(buf, "*3\r\n$3\r\nSET\r\n$10\r\nkey:000001\r\n$16\r\nvalue-0123456789\r\n"...)
	}
	p := NewParser(DefaultLimits)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		for r := 0; r < len(buf); {
			_, end, err := p.Next(buf, r)
			if err != nil {
				b.Fatal(err)
			}
			r = end
		}
	}
}

// BenchmarkParserInline frames inline commands with quoting.
func BenchmarkParserInline(b *testing.B) {
	line := []byte("SET \"key with space\" 'value \\' quoted' plain\r\n")
	buf := make([]byte, len(line))
	p := NewParser(DefaultLimits)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		copy(buf, line) // decoding is in place
		if _, _, err := p.Next(buf, 0); err != nil {
			b.Fatal(err)
		}
	}
}
