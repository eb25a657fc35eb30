package stream

import (
	"math"
	"strconv"

	"github.com/hotkv/hotkv/internal/intstr"
)

// ID is a stream entry ID: milliseconds and a sequence number.
type ID struct{ Ms, Seq uint64 }

// MaxID is the largest ID ("+" in a range).
var MaxID = ID{math.MaxUint64, math.MaxUint64}

// Compare returns -1, 0 or 1 as a is before, equal to or after b.
func (a ID) Compare(b ID) int {
	switch {
	case a.Ms < b.Ms:
		return -1
	case a.Ms > b.Ms:
		return 1
	case a.Seq < b.Seq:
		return -1
	case a.Seq > b.Seq:
		return 1
	}
	return 0
}

// Less reports whether a is before b.
func (a ID) Less(b ID) bool { return a.Compare(b) < 0 }

// IsZero reports whether a is 0-0.
func (a ID) IsZero() bool { return a.Ms == 0 && a.Seq == 0 }

// Next returns the ID right after a; false when a is MaxID.
func (a ID) Next() (ID, bool) {
	switch {
	case a.Seq < math.MaxUint64:
		return ID{a.Ms, a.Seq + 1}, true
	case a.Ms < math.MaxUint64:
		return ID{a.Ms + 1, 0}, true
	}
	return a, false
}

// Prev returns the ID right before a; false when a is 0-0.
func (a ID) Prev() (ID, bool) {
	switch {
	case a.Seq > 0:
		return ID{a.Ms, a.Seq - 1}, true
	case a.Ms > 0:
		return ID{a.Ms - 1, math.MaxUint64}, true
	}
	return a, false
}

// Append appends a's text form, "ms-seq".
func (a ID) Append(b []byte) []byte {
	b = strconv.AppendUint(b, a.Ms, 10)
	b = append(b, '-')
	return strconv.AppendUint(b, a.Seq, 10)
}

func (a ID) String() string { return string(a.Append(nil)) }

// ParseID parses "ms-seq", or "ms" alone with seq set to missingSeq, as Redis
// reads an ID argument (streamGenericParseIDOrReply): split at the first
// '-', each part an unsigned 64-bit number as parseU64 reads it. "-" and "+" are not accepted here: ranges handle them.
// seqStar reports the "ms-*" form (seq left 0), allowed only when star is set.
func ParseID(b []byte, missingSeq uint64, star bool) (id ID, seqStar, ok bool) {
	if len(b) == 0 || len(b) > 127 {
		return id, false, false
	}
	dash := -1
	for i, c := range b {
		if c == '-' {
			dash = i
			break
		}
	}
	if dash < 0 {
		ms, ok := parseU64(b)
		return ID{ms, missingSeq}, false, ok
	}
	ms, ok := parseU64(b[:dash])
	if !ok {
		return id, false, false
	}
	rest := b[dash+1:]
	if star && len(rest) == 1 && rest[0] == '*' {
		return ID{ms, 0}, true, true
	}
	seq, ok := parseU64(rest)
	return ID{ms, seq}, false, ok
}

// parseU64 reads an ID part as Redis's string2ull does: an int64 as
// string2ll reads it (negative refused), or else what strtoull takes in
// full: leading spaces, an optional sign (a '-' negates, wrapping), then
// decimal digits up to 2^64-1.
func parseU64(b []byte) (uint64, bool) {
	if v, ok := intstr.Parse(b); ok {
		return uint64(v), v >= 0
	}
	i := 0
	for i < len(b) && (b[i] == ' ' || (b[i] >= '\t' && b[i] <= '\r')) {
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
	var v uint64
	for _, c := range b[i:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		v = -v
	}
	return v, true
}
