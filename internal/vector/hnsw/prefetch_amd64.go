//go:build amd64 && !purego

package hnsw

// prefetch asks the CPU to start loading n cache lines from p, so that the
// distance computations after it find their vectors in cache: a search
// gathers a node's unvisited neighbours first, prefetches all their
// vectors, then computes the distances.
//
//go:noescape
func prefetch(p *uint64, n int)
