// Package geohash is the geometry behind the GEO commands, ported from
// Redis 8.0.2's geohash.c, geohash_helper.c and the numeric parts of geo.c:
// a position is a 52-bit
// interleaved geohash (26 bits of longitude, 26 of latitude over Web
// Mercator's latitude limits) stored as a sorted-set score; a radius or box
// search covers its area with the cell of the centre and its eight
// neighbours at a precision estimated from the size; distances are
// haversine on a sphere of 6372797.560856 m. They use Go's sin, cos and
// asin, which differ from glibc's (what Redis calls) in the last bit for
// some inputs: a distance can then differ from Redis's in its 17th digit.
//
// Floating-point expressions follow the C source operation by operation:
// Redis is built for baseline x86-64, so its own arithmetic has no fused
// multiply-adds, and products that feed a sum here are wrapped in
// float64(...), which forbids Go to fuse them on any GOARCH.
//
// The package knows nothing of keys, sorted sets or replies; the commands
// live in internal/commands/geo.go. It imports only the standard library.
package geohash
