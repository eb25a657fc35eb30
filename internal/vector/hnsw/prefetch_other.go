//go:build !amd64 || purego

package hnsw

func prefetch(p *uint64, n int) {}
