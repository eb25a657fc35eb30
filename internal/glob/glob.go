// Package glob matches Redis glob-style patterns (KEYS, SCAN MATCH,
// PSUBSCRIBE, CONFIG GET): * ? [abc] [^abc] [a-z] and \ escapes, as Redis's
// stringmatchlen does, byte-wise.
package glob

// Match reports whether s matches pattern. nocase folds ASCII case.
func Match(pattern, s []byte, nocase bool) bool {
	return match(pattern, s, nocase, 0)
}

// MatchString is Match for strings.
func MatchString(pattern, s string, nocase bool) bool {
	return match([]byte(pattern), []byte(s), nocase, 0)
}

func fold(c byte, nocase bool) byte {
	if nocase && c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// match bounds recursion depth as Redis does, so a pathological pattern
// cannot exhaust the stack.
func match(p, s []byte, nocase bool, depth int) bool {
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
				if match(p[1:], s[i:], nocase, depth+1) {
					return true
				}
			}
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
