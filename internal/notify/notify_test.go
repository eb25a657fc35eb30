package notify

import (
	"strings"
	"testing"
)

func TestParseAndString(t *testing.T) {
	for _, c := range []struct {
		in, out string
		want    Class
	}{
		{"", "", 0},
		{"KEA", "AKE", Keyspace | Keyevent | All},
		{"KEAn", "AKE", Keyspace | Keyevent | All | New}, // Redis prints no n beside A
		{"Kg", "gK", Keyspace | Generic},
		{"E$lshz", "$lshzE", Keyevent | String | List | Set | Hash | ZSet},
		{"xetdmK", "xetdKm", Expired | Evicted | Stream | Module | KeyMiss | Keyspace},
		{"g$lshzxetd", "A", All},
		{"nE", "nE", New | Keyevent},
		{"KK", "K", Keyspace},
	} {
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %b, %v; want %b", c.in, got, err, c.want)
		}
		if s := got.String(); s != c.out {
			t.Errorf("Parse(%q).String() = %q, want %q", c.in, s, c.out)
		}
	}
	for _, bad := range []string{"q", "KEo", " ", "a", "k"} {
		if _, err := Parse(bad); err != ErrClass {
			t.Errorf("Parse(%q): err %v", bad, err)
		}
	}
}

func TestEmit(t *testing.T) {
	var n Notifier
	var got []string
	n.SetPublisher(func(ch, msg []byte) { got = append(got, string(ch)+" "+string(msg)) })
	n.Emit(Generic, "del", []byte("k"), 0) // nothing enabled
	n.Set(Keyspace | Keyevent | Generic)
	if !n.On(Generic) || n.On(List) {
		t.Fatal("On disagrees with the classes set")
	}
	n.Emit(List, "lpush", []byte("l"), 0) // class not enabled
	n.Emit(Generic, "del", []byte("k"), 12)
	n.Set(Keyevent | Generic)
	n.Emit(Generic, "expire", []byte("a b"), 3)
	want := []string{"__keyspace@12__:k del", "__keyevent@12__:del k", "__keyevent@3__:expire a b"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("published %q, want %q", got, want)
	}
	var nilN *Notifier
	if nilN.On(All) {
		t.Error("a nil Notifier is on")
	}
}

// FuzzParse: any string either parses to classes that print and parse back
// to the same classes (n aside, which Redis leaves out beside A), or is
// refused because it holds a character outside Redis's set.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "KEA", "KEAnm", "Kg$lshzxetd", "Ex", "q", "AKE\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse(s)
		if err != nil {
			if strings.Trim(s, "Ag$lshzxeKEtmdn") == "" {
				t.Fatalf("Parse(%q) refused valid characters: %v", s, err)
			}
			return
		}
		back, err := Parse(c.String())
		if err != nil {
			t.Fatalf("Parse(%q) = %q, which does not parse: %v", s, c.String(), err)
		}
		if c&All == All {
			c &^= New
		}
		if back != c {
			t.Fatalf("Parse(%q) = %b, printed %q, parsed back as %b", s, c, c.String(), back)
		}
	})
}
