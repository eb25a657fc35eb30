package vindex

import (
	"math/rand/v2"

	"github.com/hotkv/hotkv/internal/vector/filter"
	"github.com/hotkv/hotkv/internal/vector/vstore"
)

// A filtered graph walk returns K hits only if it meets K matching nodes
// before its FILTER-EF bound, and with a selective filter it often does not
// (3 matches among 5,000 elements, K 3: 2 or fewer came back). Vector sets
// keep that behaviour, as Redis does; a named index's filtered search
// instead picks one of two plans:
//
//   - scan, when few elements are expected to match: test every element
//     against the filter and rank the matches exactly;
//   - walk the graph otherwise, and if the walk comes back short, walk
//     again with more effort where that still costs less than a scan, then
//     scan.
//
// Either way K hits come back whenever K elements match.

const (
	// scanPerEF: a filter expected to pass at most scanPerEF × ef elements
	// is answered by a scan. On 20,000 100-d vectors, K 10, ef 100 a scan
	// took about 4 ms; a walk 1.4 ms at 2,000 matches, and at 200 matches
	// 6.6 ms unbounded or 3.2 ms bounded by FILTER-EF 1000 (recall@10
	// 0.97); at 20 matches one walk in six came back short. Below 4 × ef
	// the scan costs at most about 1.5 walks, is exact, and is never
	// retried.
	scanPerEF = 4
	// The selectivity sample: up to sampleMax random elements, stopping at
	// sampleHits matches (a common filter is recognised in a few probes).
	sampleMax  = 512
	sampleHits = 16
	// widen multiplies FILTER-EF for the second walk.
	widen = 4
)

// plan says how a search was answered (tests check it).
type plan uint8

const (
	planWalk    plan = iota // one graph walk
	planWidened             // a second walk with widen × the effort
	planScan                // an exact scan of the matching elements
)

// Search is vstore.Store.Search, except that a filtered search returns
// q.K hits whenever q.K elements match (all matches when fewer do),
// nearest first: see the plans above.
func (x *Index) Search(v []float32, q vstore.Query) ([]vstore.Hit, error) {
	hits, _, err := x.search(v, q)
	return hits, err
}

func (x *Index) search(v []float32, q vstore.Query) ([]vstore.Hit, plan, error) {
	n := x.Index().Len()
	k := min(q.K, n)
	if q.Exact {
		hits, err := x.Store.Search(v, q)
		return hits, planScan, err
	}
	if q.Filter == nil || k <= 0 {
		hits, err := x.Store.Search(v, q)
		return hits, planWalk, err
	}
	if x.fewMatch(q.Filter, n, min(max(q.EF, k), n)) {
		q.Exact = true
		hits, err := x.Store.Search(v, q)
		return hits, planScan, err
	}
	hits, err := x.Store.Search(v, q)
	if err != nil || len(hits) >= k {
		return hits, planWalk, err
	}
	// Short: the walk met fewer than k matches before its effort bound (a
	// larger ef would change nothing, its result list never filled), or it
	// walked all it could reach. Each node expanded reaches about M new
	// ones: widen the bound only while that stays below a scan's n.
	if e := q.FilterEF; e > 0 && e < n/(widen*x.Index().Config().M) {
		q.FilterEF = e * widen
		if hits, err = x.Store.Search(v, q); err != nil || len(hits) >= k {
			return hits, planWidened, err
		}
	}
	q.Exact = true
	hits, err = x.Store.Search(v, q)
	return hits, planScan, err
}

// fewMatch reports whether f is expected to pass at most scanPerEF × ef of
// the n elements, judging by a random sample. A small index is scanned
// without sampling.
func (x *Index) fewMatch(f *filter.Expr, n, ef int) bool {
	limit := scanPerEF * ef
	if n <= limit {
		return true
	}
	span := x.Span()
	if span == 0 {
		return true
	}
	seen, hits := 0, 0
	for range sampleMax {
		e := x.Element(rand.Uint32N(span))
		if e == nil {
			continue
		}
		seen++
		if f.Eval(e.Attrs) {
			if hits++; hits == sampleHits {
				break
			}
		}
	}
	// One match more than seen: a sample without any does not show that a
	// large index has few (1/seen of n can be many), so the walk and its
	// fallback decide there.
	return seen == 0 || (hits+1)*n <= limit*seen
}
