package hnsw

import (
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// slab is a growable array of fixed-size records (stride elements of T each)
// whose records never move, so readers may keep slices into it while it
// grows. Records live in pointer-free chunks: the first chunks double in size
// from 8 records, so that a small index stays small, and later chunks all
// hold 1<<shift records (about 1 MiB each), so that growth never copies and
// the unused tail is bounded. The chunk table is replaced, not modified, when
// it grows; growth is serialised by the caller.
type slab[T any] struct {
	stride int
	// recBytes is stride times the element size, so that at need not
	// multiply by a size it cannot know as a constant.
	recBytes uintptr
	shift    uint
	table    atomic.Pointer[[]*T]
	n        int   // records allocated
	bytes    int64 // bytes allocated
}

const (
	firstChunk = 8 // records in the first chunk; a power of two
	chunkBytes = 1 << 20
)

func (s *slab[T]) init(stride int) {
	var zero T
	rec := max(stride*int(unsafe.Sizeof(zero)), 1)
	shift := bits.Len(uint(max(chunkBytes/rec, 1))) - 1
	shift = min(max(shift, bits.TrailingZeros(firstChunk)+1), 16)
	s.stride, s.shift = stride, uint(shift)
	s.recBytes = uintptr(stride) * unsafe.Sizeof(zero)
	s.table.Store(new([]*T))
}

// locate maps a record index to its chunk and the offset in that chunk.
func (s *slab[T]) locate(i uint32) (chunk, off int) {
	x := uint64(i) + firstChunk
	if x < 1<<s.shift {
		k := bits.Len64(x) - 1 - bits.TrailingZeros(firstChunk)
		return k, int(x - firstChunk<<k)
	}
	geo := int(s.shift) - bits.TrailingZeros(firstChunk)
	return geo - 1 + int(x>>s.shift), int(x & (1<<s.shift - 1))
}

func (s *slab[T]) chunkLen(k int) int {
	geo := int(s.shift) - bits.TrailingZeros(firstChunk)
	if k < geo {
		return firstChunk << k
	}
	return 1 << s.shift
}

// at returns record i, which must have been allocated.
func (s *slab[T]) at(i uint32) []T {
	k, off := s.locate(i)
	base := (*s.table.Load())[k]
	return unsafe.Slice((*T)(unsafe.Add(unsafe.Pointer(base), uintptr(off)*s.recBytes)), s.stride)
}

// grow makes records [0, n) available. Callers serialise calls to grow.
func (s *slab[T]) grow(n int) {
	if n <= s.n || s.stride == 0 {
		return
	}
	old := *s.table.Load()
	table := append([]*T(nil), old...)
	var zero T
	for s.n < n {
		size := s.chunkLen(len(table))
		chunk := make([]T, size*s.stride)
		table = append(table, &chunk[0])
		s.n += size
		s.bytes += int64(size*s.stride) * int64(unsafe.Sizeof(zero))
	}
	s.table.Store(&table)
}
