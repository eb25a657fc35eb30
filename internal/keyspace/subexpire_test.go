package keyspace

import "testing"

// parts is a SubExpirer with a list of part expiry times (0: none).
type parts struct{ at []int64 }

func (p *parts) ExpireSub(now int64, max int) (deleted, left int, volatile bool) {
	kept := p.at[:0]
	for _, at := range p.at {
		if at != 0 && at < now && deleted < max {
			deleted++
			continue
		}
		kept = append(kept, at)
	}
	p.at = kept
	return deleted, len(p.at), p.SubVolatile()
}

func (p *parts) SubVolatile() bool {
	for _, at := range p.at {
		if at != 0 {
			return true
		}
	}
	return false
}

func TestExpireSubSample(t *testing.T) {
	var s Shard
	put := func(key string, at ...int64) *Entry {
		e := &Entry{Kind: KindHash, Obj: &parts{at: at}}
		s.Put([]byte(key), e) // Put tracks values that have expiring parts
		return e
	}
	put("gone", 5, 6)
	kept := put("kept", 5, 0, 50)
	put("plain", 0) // nothing expires: not tracked
	replaced := put("replaced", 5)
	s.Put([]byte("replaced"), NewString([]byte("x")))
	var w Watch
	s.AddWatch([]byte("kept"), &w)
	if s.SubVolatile() != 3 {
		t.Fatalf("tracking %d keys, want 3", s.SubVolatile())
	}

	sampled, hit, expired := s.ExpireSubSample(10, 100, 10)
	if sampled != 3 || hit != 2 || expired != 3 {
		t.Fatalf("sample = %d, %d, %d; want 3, 2, 3", sampled, hit, expired)
	}
	if s.m.get("gone") != nil {
		t.Fatal("a key whose last part expired must be deleted")
	}
	if s.m.get("kept") != kept || len(kept.Obj.(*parts).at) != 2 || !w.Dirty() {
		t.Fatal("a key that lost parts must stay, with its watchers made dirty")
	}
	if s.m.get("replaced") == replaced || s.SubVolatile() != 1 {
		t.Fatalf("replaced and deleted keys must stop being tracked: %d tracked", s.SubVolatile())
	}

	if _, _, expired := s.ExpireSubSample(10, 100, 60); expired != 1 || s.SubVolatile() != 0 {
		t.Fatalf("expired %d, tracking %d: a key without expiring parts left must stop being tracked", expired, s.SubVolatile())
	}

	// The quota bounds the work of one call.
	put("big", 1, 1, 1, 1, 1)
	if _, _, expired := s.ExpireSubSample(10, 2, 10); expired != 2 || len(s.m.get("big").Obj.(*parts).at) != 3 {
		t.Fatalf("quota 2 expired %d", expired)
	}
}
