// Package ai is the AI layer's state: exact prompt caches, semantic caches
// and agent memory, each a named object in a server-wide Registry beside the
// keyspace (not keys: they own an HNSW index and their own eviction, which
// the keyspace's per-shard locking does not fit).
//
// Every method takes the current time in unix milliseconds, so expiry is
// deterministic in tests; expired entries are removed lazily (when a write
// finds them due, or when a read meets them).
//
// Distances follow package hnsw: COSINE is the cosine distance 1-cos in
// [0, 2], L2 the squared Euclidean distance, IP 1-dot. Reply fields say
// "distance" wherever one of these is meant.
//
// It imports the vector engine only; it knows nothing about keys or RESP.
package ai
