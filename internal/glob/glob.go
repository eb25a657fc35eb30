// Package glob matches Redis glob-style patterns (KEYS, SCAN MATCH,
// PSUBSCRIBE, CONFIG GET): * ? [abc] [^abc] [a-z] and \ escapes, as Redis's
// stringmatchlen does, byte-wise.
package glob

// Match reports whether s matches pattern. nocase folds ASCII case.
func Match(pattern, s []byte, nocase bool) bool {
	var skip bool
	return match(pattern, s, nocase, 0, &skip)
}

// MatchString is Match for strings.
func MatchString(pattern, s string, nocase bool) bool {
	return Match([]byte(pattern), []byte(s), nocase)
}

func fold(c byte, nocase bool) byte {
	if nocase && c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// match bounds recursion depth as Redis does, so a pathological pattern
// cannot exhaust the stack, and like Redis (skipLongerMatches) gives up as
// soon as the rest of a pattern after a '*' matches no suffix of the string:
// earlier stars taking more characters could only leave shorter suffixes, so
// trying them is useless. Without that, "*a*a*a...*b" against a long run of
// 'a's takes exponential time (a publisher or CONFIG GET would hang).
func match(p, s []byte, nocase bool, depth int, skip *bool) bool {
	if depth > 1000 {
		return false
	}
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 1 && p[1] == '*' {
				p = p[1:]
			}
			if len(p) == 1 {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if match(p[1:], s[i:], nocase, depth+1, skip) {
					return true
				}
				if *skip {
					return false
				}
			}
			*skip = true
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
			s = s[1:]
		case '[':
			if len(s) == 0 {
				return false
			}
			p = p[1:]
			not := len(p) > 0 && p[0] == '^'
			if not {
				p = p[1:]
			}
			matched := false
			for {
				if len(p) == 0 {
					break // unterminated class: Redis treats the end as ']'
				}
				if p[0] == '\\' && len(p) >= 2 {
					p = p[1:]
					if p[0] == s[0] {
						matched = true
					}
				} else if p[0] == ']' {
					break
				} else if len(p) >= 3 && p[1] == '-' {
					lo, hi := p[0], p[2]
					if lo > hi {
						lo, hi = hi, lo
					}
					c := s[0]
					if nocase {
						lo, hi, c = fold(lo, true), fold(hi, true), fold(c, true)
					}
					if c >= lo && c <= hi {
						matched = true
					}
					p = p[2:]
				} else if fold(p[0], nocase) == fold(s[0], nocase) {
					matched = true
				}
				p = p[1:]
			}
			if not {
				matched = !matched
			}
			if !matched {
				return false
			}
			s = s[1:]
			if len(p) == 0 {
				return len(s) == 0
			}
		case '\\':
			if len(p) >= 2 {
				p = p[1:]
			}
			fallthrough
		default:
			if len(s) == 0 || fold(p[0], nocase) != fold(s[0], nocase) {
				return false
			}
			s = s[1:]
		}
		p = p[1:]
	}
	return len(s) == 0
}
