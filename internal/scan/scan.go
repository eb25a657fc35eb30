// Package scan is the cursor behind SCAN, HSCAN, SSCAN and ZSCAN over
// collections with no stable iteration order (Go maps).
//
// Every item has a position: a seeded hash of its name, fixed for the life of
// the process and independent of what else the collection holds. A step reads
// the whole collection and returns the items with the smallest positions at or
// after the cursor; the next cursor lies just past the largest position
// returned, and items sharing a position always go out together. So an item
// present from the first call to the last is returned exactly once, whatever
// is added or removed in between, and none is ever returned twice in a pass
// (Redis only promises "at least once").
//
// The price is that a step costs O(n) for a collection of n items whatever it
// returns: a caller that must keep a full pass near O(n) asks for at least
// n/k items per step, making a pass cost at most about k*n (see SCAN).
package scan

import (
	"hash/maphash"
	"iter"
	"math"
)

// Bits is the width of a position: positions lie in [0, 1<<Bits), which
// leaves SCAN 10 low bits of its 64-bit cursor for the shard index.
const Bits = 54

var seed = maphash.MakeSeed()

// Pos is the position of the item named name.
func Pos(name string) uint64 { return maphash.String(seed, name) >> (64 - Bits) }

// Item is one collected item.
type Item[V any] struct {
	Key string
	Val V
	pos uint64
}

// Step appends to dst the items of seq whose position is at least from: those
// with the n smallest positions, plus any sharing the largest of those. It
// returns the position to resume from, or done when no item of seq lies
// beyond the ones returned. Capacity of dst beyond what it returns is left
// zeroed, so a recycled buffer holds no stale references.
func Step[V any](dst []Item[V], from uint64, n int, seq iter.Seq2[string, V]) (out []Item[V], next uint64, done bool) {
	return step(dst, from, n, seq, Pos)
}

// step is Step with the position function as a parameter, for tests.
func step[V any](dst []Item[V], from uint64, n int, seq iter.Seq2[string, V], pos func(string) uint64) ([]Item[V], uint64, bool) {
	start := len(dst)
	for k, v := range seq {
		if p := pos(k); p >= from {
			dst = append(dst, Item[V]{Key: k, Val: v, pos: p})
		}
	}
	c := dst[start:]
	n = max(n, 1)
	if len(c) <= n {
		return dst, 0, true
	}
	last := nth(c, n-1)
	kept := n
	for i := n; i < len(c); i++ {
		if c[i].pos == last {
			c[kept], c[i] = c[i], c[kept]
			kept++
		}
	}
	if kept == len(c) {
		return dst, 0, true
	}
	clear(c[kept:]) // leave no references behind dst's length
	return dst[:start+kept], last + 1, false
}

// nth reorders c so that c[k] has the k-th smallest position (0-based), with
// no larger position before it and no smaller one after it, and returns that
// position. Positions are seeded hashes, so the middle element is as good a
// pivot as a random one.
func nth[V any](c []Item[V], k int) uint64 {
	lo, hi := 0, len(c)-1
	for lo < hi {
		p := c[lo+(hi-lo)/2].pos
		i, j := lo, hi
		for i <= j {
			for c[i].pos < p {
				i++
			}
			for c[j].pos > p {
				j--
			}
			if i <= j {
				c[i], c[j] = c[j], c[i]
				i++
				j--
			}
		}
		// c[lo..j] <= p <= c[i..hi], and everything between equals p.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return c[k].pos
		}
	}
	return c[k].pos
}

// ParseCursor reads a cursor as Redis's string2ull does: a canonical integer
// must not be negative; anything else goes to C's strtoull, which allows
// leading white space and a sign (a "negative" value wraps modulo 2^64) and
// must consume the whole string. Like C, it stops at a NUL byte.
func ParseCursor(b []byte) (uint64, bool) {
	for i, c := range b {
		if c == 0 {
			b = b[:i]
			break
		}
	}
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i == len(b) {
		return 0, false
	}
	digits := b[i:]
	var n uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false // ERANGE
		}
		n = n*10 + d
	}
	if !neg {
		return n, true
	}
	if b[0] == '-' && digits[0] != '0' && n <= 1<<63 {
		return 0, false // a canonical negative integer
	}
	return -n, true
}
