package keyspace

// SetIdle backdates e's last access by idle seconds (RESTORE IDLETIME), as
// Redis's objectSetLRUOrLFU does, wrapping to half the clock's range when
// idle goes back past the clock's zero. It changes nothing under an LFU
// policy. Caller holds e's shard lock.
func (e *Entry) SetIdle(idle int64) {
	if lfuMode.Load() {
		return
	}
	clock := int64(Clock.Load() & clockMask)
	at := clock - idle
	if idle > clock {
		at = (clock + clockMask/2) % clockMask
	}
	e.SetAccess(uint32(at))
}

// SetFreq sets e's LFU counter (RESTORE FREQ); it changes nothing under an
// LRU policy. Caller holds e's shard lock.
func (e *Entry) SetFreq(f uint8) {
	if lfuMode.Load() {
		e.SetAccess(lfuMinutes()<<8 | uint32(f))
	}
}
