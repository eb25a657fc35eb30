package vset

import (
	"testing"

	"github.com/hotkv/hotkv/internal/vector/quant"
)

func TestProjectionAndClone(t *testing.T) {
	s, err := New(4, quant.F32, 16, 200, 10)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]float32, 10)
	in[3] = 1
	p := s.Project(in)
	if len(p) != 4 {
		t.Fatalf("Project gave %d dims", len(p))
	}
	for _, f := range p {
		if f*f < 0.0999 || f*f > 0.1001 { // +-1/sqrt(10)
			t.Errorf("projected component %v, want +-0.316", f)
		}
	}
	q, _ := New(4, quant.F32, 16, 200, 10)
	if got := q.Project(in); got[0] != p[0] || got[3] != p[3] {
		t.Error("the projection is not reproducible")
	}
	s.Set("a", p, `{"x":1}`, true)
	c := s.Clone().(*Set)
	if c.UID == s.UID || c.InDim != 10 || c.Len() != 1 || c.Encoding() != "raw" {
		t.Errorf("Clone: uid %d/%d indim %d len %d", c.UID, s.UID, c.InDim, c.Len())
	}
	s.Delete("a")
	if !c.Contains("a") {
		t.Error("clone shares elements with the original")
	}
}
