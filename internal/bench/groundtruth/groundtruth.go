// Package groundtruth computes the exact nearest neighbours of each query
// by brute force in float64 on every core, and caches them on disk.
package groundtruth

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hotkv/hotkv/internal/bench/dataset"
)

// Metric is how distance is measured.
type Metric string

const (
	Cosine Metric = "cosine" // 1 - cos(a, b)
	L2     Metric = "l2"     // squared Euclidean
	IP     Metric = "ip"     // 1 - a.b
)

// ParseMetric accepts cosine, l2 or ip.
func ParseMetric(s string) (Metric, error) {
	switch m := Metric(s); m {
	case Cosine, L2, IP:
		return m, nil
	}
	return "", fmt.Errorf("unknown metric %q (want cosine, l2 or ip)", s)
}

// Distance is the float64 distance between a and b under m.
func Distance(m Metric, a, b []float32) float64 {
	var dot, na, nb, l2 float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
		l2 += (x - y) * (x - y)
	}
	switch m {
	case L2:
		return l2
	case IP:
		return 1 - dot
	}
	if na == 0 || nb == 0 {
		return 1
	}
	return 1 - dot/math.Sqrt(na*nb)
}

// Compute returns, for each query, the ids (base positions) of its k
// nearest base vectors, nearest first; ties go to the lower id. progress,
// if not nil, is called with the fraction done.
func Compute(m Metric, base, queries dataset.Vectors, k int, progress func(float64)) [][]int32 {
	n := base.Len()
	inv := make([]float64, n) // 1/|b| for cosine
	for i := range n {
		inv[i] = 1
		if m == Cosine {
			var s float64
			for _, x := range base.At(i) {
				s += float64(x) * float64(x)
			}
			if s > 0 {
				inv[i] = 1 / math.Sqrt(s)
			}
		}
	}
	out := make([][]int32, queries.Len())
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			type cand struct {
				d  float64
				id int32
			}
			q := make([]float64, queries.Dim)
			best := make([]cand, 0, k+1)
			for {
				qi := int(next.Add(1) - 1)
				if qi >= queries.Len() {
					return
				}
				var qn float64
				for j, x := range queries.At(qi) {
					q[j] = float64(x)
					qn += q[j] * q[j]
				}
				if m == Cosine && qn > 0 {
					s := 1 / math.Sqrt(qn)
					for j := range q {
						q[j] *= s
					}
				}
				best = best[:0]
				for i := range n {
					v := base.At(i)
					var d float64
					if m == L2 {
						for j, x := range v {
							t := float64(x) - q[j]
							d += t * t
						}
					} else {
						for j, x := range v {
							d += float64(x) * q[j]
						}
						d = 1 - d*inv[i]
					}
					if len(best) == k && d >= best[k-1].d {
						continue
					}
					j := len(best)
					best = append(best, cand{})
					for j > 0 && best[j-1].d > d {
						best[j] = best[j-1]
						j--
					}
					best[j] = cand{d, int32(i)}
					best = best[:min(len(best), k)]
				}
				ids := make([]int32, len(best))
				for i, c := range best {
					ids[i] = c.id
				}
				out[qi] = ids
				if d := done.Add(1); progress != nil && d%16 == 0 {
					progress(float64(d) / float64(queries.Len()))
				}
			}
		})
	}
	wg.Wait()
	if progress != nil {
		progress(1)
	}
	return out
}

// CachePath is where the ground truth for key lives: next to the data set
// file if its directory is writable, else in the user cache directory.
func CachePath(dataPath string, key ...any) string {
	h := sha256.New()
	fmt.Fprint(h, key...)
	name := "gt-" + hex.EncodeToString(h.Sum(nil))[:16] + ".ivecs"
	if dataPath != "" {
		if dir := filepath.Dir(dataPath); writable(dir) {
			return filepath.Join(dir, filepath.Base(dataPath)+"."+name)
		}
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "hotkv-bench")
	os.MkdirAll(dir, 0o755)
	return filepath.Join(dir, name)
}

func writable(dir string) bool {
	f, err := os.CreateTemp(dir, ".hotkv-bench-probe-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}

// Load returns the ground truth cached at path, or computes and caches it.
// cached reports whether it came from the cache.
func Load(path string, m Metric, base, queries dataset.Vectors, k int, progress func(float64)) (gt [][]int32, cached bool) {
	if rows, err := dataset.ReadIvecs(path); err == nil && len(rows) == queries.Len() && len(rows[0]) == k {
		return rows, true
	}
	gt = Compute(m, base, queries, k, progress)
	tmp := path + ".tmp"
	if err := dataset.WriteIvecs(tmp, gt); err != nil {
		return gt, false // caching is best effort
	}
	os.Rename(tmp, path)
	return gt, false
}

// Recall is the share of the true top k found in results (ids per query;
// results beyond k are ignored).
func Recall(truth [][]int32, results [][]int32, k int) float64 {
	hit, total := 0, 0
	for i, t := range truth {
		want := t[:min(k, len(t))]
		total += len(want)
		if i >= len(results) {
			continue
		}
		got := results[i][:min(k, len(results[i]))]
		for _, id := range got {
			for _, w := range want {
				if w == id {
					hit++
					break
				}
			}
		}
	}
	if total == 0 {
		return 0
	}
	return float64(hit) / float64(total)
}
