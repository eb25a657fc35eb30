package keyspace

import "testing"

// TestExpirerEffort: active-expire-effort scales the sample and lowers the
// share of expired keys that keeps a shard going, as Redis's
// activeExpireCycle does.
func TestExpirerEffort(t *testing.T) {
	x := NewExpirer(New(1))
	for _, c := range []struct{ effort, sample, stale int }{
		{1, 20, 10}, {2, 25, 9}, {10, 65, 1}, {0, 20, 10}, {11, 65, 1},
	} {
		x.SetEffort(c.effort)
		if x.sampleSize != c.sample || x.stale != c.stale {
			t.Errorf("effort %d: sample %d, stale %d%%, want %d, %d%%", c.effort, x.sampleSize, x.stale, c.sample, c.stale)
		}
	}
}
