// Package hnsw is an approximate nearest-neighbour index: a Hierarchical
// Navigable Small World graph (Malkov & Yashunin) with their
// neighbour-selection heuristic, true deletion with repair of the
// neighbours' links, quantized vectors (package quant) with optional exact
// re-ranking, and in-graph filtering.
//
// Storage is pointer-free: vectors, node records and link lists sit in
// chunked slabs indexed by integer node ids, so the garbage collector never
// scans them. Inserts, deletes and searches run in parallel: writers lock
// one node at a time, readers lock nothing (link words are read and written
// atomically, and a deleted id is reused only when no operation that could
// still hold it is running).
//
// The package knows nothing about element names, attributes or Redis: the
// vector-set commands map names to the ids Add returns.
package hnsw
