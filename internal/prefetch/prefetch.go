// Package prefetch asks the CPU to start loading memory that code is about
// to read, so that independent cache misses overlap instead of queueing:
// a lookup of ten random keys, or the vectors of a node's neighbours.
package prefetch
