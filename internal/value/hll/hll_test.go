package hll

import (
	"bytes"
	"fmt"
	"math"
	"testing"
)

// Bytes Redis 8.0.2 stores after PFADD h a b c (captured with GET).
var redisABC = []byte("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x60\xf3\x80\x50\xb1\x84\x4b\xfb\x80\x42\x5a")

func TestSparseBytesMatchRedis(t *testing.T) {
	h := New()
	for _, e := range []string{"a", "b", "c"} {
		if _, err := Add(&h, []byte(e)); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(h, redisABC) {
		t.Fatalf("sparse HLL differs from Redis's:\n got % x\nwant % x", h, redisABC)
	}
	n, refreshed, err := Count(h)
	if err != nil || n != 3 || !refreshed {
		t.Fatalf("Count = %d, %v, %v; want 3, refreshed", n, refreshed, err)
	}
	if n2, refreshed, _ := Count(h); n2 != 3 || refreshed {
		t.Fatalf("second Count should use the cache: %d, %v", n2, refreshed)
	}
}

// TestAccuracy checks the standard error (1.04/sqrt(16384) = 0.81%) across
// the sparse-to-dense promotion, with a generous 3-sigma bound.
func TestAccuracy(t *testing.T) {
	h := New()
	for i := 1; i <= 200000; i++ {
		if _, err := Add(&h, []byte(fmt.Sprint("element:", i))); err != nil {
			t.Fatal(err)
		}
		if i == 100 || i == 1000 || i == 20000 || i == 200000 {
			h[15] |= 1 << 7
			n, _, err := Count(h)
			if err != nil {
				t.Fatal(err)
			}
			if rel := math.Abs(float64(n)-float64(i)) / float64(i); rel > 0.025 {
				t.Fatalf("after %d adds Count = %d (%.2f%% off)", i, n, 100*rel)
			}
		}
	}
	if !IsDense(h) || len(h) != denseSize {
		t.Fatalf("200k elements should have promoted to dense (len %d)", len(h))
	}
}

func TestDenseAndMergeAgree(t *testing.T) {
	a, b := New(), New()
	for i := 0; i < 5000; i++ {
		Add(&a, []byte(fmt.Sprint("a", i)))
		Add(&b, []byte(fmt.Sprint("b", i)))
	}
	var regs [Registers]uint8
	if err := MergeInto(&regs, a); err != nil {
		t.Fatal(err)
	}
	if err := MergeInto(&regs, b); err != nil {
		t.Fatal(err)
	}
	u := New()
	for i := 0; i < 5000; i++ {
		Add(&u, []byte(fmt.Sprint("a", i)))
		Add(&u, []byte(fmt.Sprint("b", i)))
	}
	u[15] |= 1 << 7
	want, _, _ := Count(u)
	if got := CountRegisters(&regs); got != want {
		t.Fatalf("union via registers = %d, via adds = %d", got, want)
	}
	d := New()
	if err := SetRegisters(&d, &regs, true); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := Count(d); got != want {
		t.Fatalf("dense merge target counts %d, want %d", got, want)
	}
}

func TestCorruptSparseIsAnError(t *testing.T) {
	h := append([]byte(nil), redisABC...)
	h = h[:len(h)-2] // registers no longer add up to 16384
	if _, _, err := Count(h); err != ErrCorrupt {
		t.Fatalf("Count of truncated sparse HLL: %v", err)
	}
	var regs [Registers]uint8
	if err := MergeInto(&regs, h); err != ErrCorrupt {
		t.Fatalf("MergeInto of truncated sparse HLL: %v", err)
	}
	if Valid([]byte("HYLL\x00short")) || Valid([]byte("nope")) || !Valid(New()) {
		t.Fatal("Valid misjudges headers")
	}
}

func FuzzSparse(f *testing.F) {
	f.Add(redisABC)
	f.Fuzz(func(t *testing.T, b []byte) {
		if !Valid(b) {
			return
		}
		v := append([]byte(nil), b...)
		Count(v)
		var regs [Registers]uint8
		MergeInto(&regs, v)
		Add(&v, []byte("x"))
	})
}
