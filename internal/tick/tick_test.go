package tick

import (
	"testing"
	"time"
)

func TestNanosTracksTheClock(t *testing.T) {
	t0, w0 := Now(), time.Now()
	time.Sleep(50 * time.Millisecond)
	Calibrate()
	got, want := Nanos(Now()-t0), time.Since(w0).Nanoseconds()
	if d := got - want; d < -want/5 || d > want/5 {
		t.Fatalf("Nanos = %d ns for %d ns of wall time", got, want)
	}
}

func BenchmarkNow(b *testing.B) {
	var s int64
	for b.Loop() {
		s += Now()
	}
	_ = s
}
