package chart

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hotkv/hotkv/internal/bench/report"
)

// vectorReport is a two-engine report that lists the client counts listed
// and has measurements at those measured, ef 40 and 500 (recall 0.85 and
// 0.99).
func vectorReport(t *testing.T, listed, measured []int) *report.Vector {
	t.Helper()
	var grid []string
	for _, c := range measured {
		for _, ef := range []int{40, 500} {
			grid = append(grid, fmt.Sprintf(`{"ef":%d,"clients":%d,"median":{"ops_per_sec":%d}}`, ef, c, 100000/ef*c))
		}
	}
	engine := `{"name":"%s","recall":[{"ef":40,"recall":0.85},{"ef":500,"recall":0.99}],"grid":[` + strings.Join(grid, ",") + `]}`
	cs, _ := json.Marshal(listed)
	doc := `{"dataset":{"k":10},"settings":{"clients":` + string(cs) + `},"engines":[` +
		fmt.Sprintf(engine, "hotkv") + "," + fmt.Sprintf(engine, "redis") + `]}`
	var v report.Vector
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	return &v
}

// TestVectorCharts: one chart per client count, plus QPS against clients per
// recall target when there is more than one client count. A run with
// --clients 1 once panicked in gonum (a one-value log axis) after the JSON
// was written, losing the Markdown report.
func TestVectorCharts(t *testing.T) {
	for _, tc := range []struct {
		listed, measured []int
		want             []string
	}{
		{[]int{1}, []int{1}, []string{"x-qps-recall-c1"}},
		{[]int{1, 50}, []int{1, 50}, []string{"x-qps-recall-c1", "x-qps-recall-c50", "x-qps-clients-r90", "x-qps-clients-r95", "x-qps-clients-r99"}},
		// A run cut short: two client counts listed, one measured.
		{[]int{1, 50}, []int{1}, []string{"x-qps-recall-c1"}},
	} {
		t.Run(fmt.Sprint(tc.listed, tc.measured), func(t *testing.T) {
			dir := t.TempDir()
			out, err := Vector(vectorReport(t, tc.listed, tc.measured), dir, "x")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range out {
				got = append(got, filepath.Base(w.Base))
				for _, ext := range []string{".png", ".svg"} {
					if fi, err := os.Stat(w.Base + ext); err != nil || fi.Size() == 0 {
						t.Errorf("%s%s: not written (%v)", w.Base, ext, err)
					}
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("charts %v, want %v", got, tc.want)
			}
		})
	}
}
