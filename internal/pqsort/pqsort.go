// Package pqsort holds the two sorts whose tie order Redis's replies
// show: a stable merge sort (what glibc's qsort is, behind SORT and the
// GEO commands' ASC/DESC) and Redis's partial quicksort (pqsort.c, behind
// SORT ... LIMIT and GEOSEARCH ... COUNT), step for step, so that elements
// that compare equal come out where Redis puts them.
package pqsort

// Stable sorts v by cmp, keeping equal elements in the order they came in.
func Stable[T any](v []T, cmp func(a, b *T) int) {
	if len(v) > 1 {
		mergeSort(v, make([]T, len(v)), cmp)
	}
}

func mergeSort[T any](v, buf []T, cmp func(a, b *T) int) {
	if len(v) <= 12 {
		for m := 1; m < len(v); m++ {
			for l := m; l > 0 && cmp(&v[l-1], &v[l]) > 0; l-- {
				v[l], v[l-1] = v[l-1], v[l]
			}
		}
		return
	}
	m := len(v) / 2
	mergeSort(v[:m], buf[:m], cmp)
	mergeSort(v[m:], buf[m:], cmp)
	if cmp(&v[m-1], &v[m]) <= 0 {
		return
	}
	copy(buf, v)
	i, j, k := 0, m, 0
	for i < m && j < len(v) {
		if cmp(&buf[j], &buf[i]) < 0 {
			v[k], j = buf[j], j+1
		} else {
			v[k], i = buf[i], i+1
		}
		k++
	}
	copy(v[k:], buf[i:m]) // what is left of the right half is in place
}

// Partial orders v so that positions lo..hi hold what a full sort puts there,
// by the steps of Redis 8's pqsort.c (NetBSD's Bentley-McIlroy quicksort
// without its switch to insertion sort after a pass with no swap,
// skipping the partitions that lie outside lo..hi): elements that compare
// equal end up exactly where Redis puts them.
func Partial[T any](v []T, cmp func(a, b *T) int, lo, hi int) {
	at := func(i, j int) int { return cmp(&v[i], &v[j]) }
	swap := func(i, j int) { v[i], v[j] = v[j], v[i] }
	vecswap := func(i, j, k int) {
		for ; k > 0; i, j, k = i+1, j+1, k-1 {
			swap(i, j)
		}
	}
	med3 := func(a, b, c int) int {
		if at(a, b) < 0 {
			switch {
			case at(b, c) < 0:
				return b
			case at(a, c) < 0:
				return c
			}
			return a
		}
		switch {
		case at(b, c) > 0:
			return b
		case at(a, c) < 0:
			return a
		}
		return c
	}
	insertion := func(a, n int) {
		for m := a + 1; m < a+n; m++ {
			for l := m; l > a && at(l-1, l) > 0; l-- {
				swap(l, l-1)
			}
		}
	}
	// outside reports whether the partition [a, a+n) misses lo..hi.
	outside := func(a, n int) bool { return lo < a && hi < a || lo >= a+n && hi >= a+n }
	var sortPart func(a, n int)
	sortPart = func(a, n int) {
		for {
			if n < 7 {
				insertion(a, n)
				return
			}
			pm := a + n/2
			if n > 7 {
				pl, pn := a, a+n-1
				if n > 40 {
					d := n / 8
					pl = med3(pl, pl+d, pl+2*d)
					pm = med3(pm-d, pm, pm+d)
					pn = med3(pn-2*d, pn-d, pn)
				}
				pm = med3(pl, pm, pn)
			}
			swap(a, pm)
			pa, pb := a+1, a+1
			pc, pd := a+n-1, a+n-1
			for {
				for pb <= pc {
					r := at(pb, a)
					if r > 0 {
						break
					}
					if r == 0 {
						swap(pa, pb)
						pa++
					}
					pb++
				}
				for pb <= pc {
					r := at(pc, a)
					if r < 0 {
						break
					}
					if r == 0 {
						swap(pc, pd)
						pd--
					}
					pc--
				}
				if pb > pc {
					break
				}
				swap(pb, pc)
				pb++
				pc--
			}
			pn := a + n
			r := min(pa-a, pb-pa)
			vecswap(a, pb-r, r)
			r = min(pd-pc, pn-pd-1)
			vecswap(pb, pn-r, r)
			if r = pb - pa; r > 1 && !outside(a, r) {
				sortPart(a, r)
			}
			if r = pd - pc; r > 1 {
				a, n = pn-r, r
				if !outside(a, n) {
					continue
				}
			}
			return
		}
	}
	sortPart(0, len(v))
}
