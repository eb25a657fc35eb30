package filter

import "strings"

// The attribute reader follows Redis's fastjson.c: it seeks a top-level key
// without parsing the values it skips, then converts the value found.
// Strings keep unknown escapes' characters (\u0041 reads "u0041"), arrays
// of primitives (and arrays) become tuples, true/false become 1/0, and an
// object, a malformed value or malformed JSON before the key means "not
// found".

// extract returns the value of the top-level field name in json.
func extract(json, name string) (value, bool) {
	if name == "" {
		return value{}, false
	}
	p, ok := seekField(json, name)
	if !ok {
		return value{}, false
	}
	v, _, ok := parseValue(json, p)
	return v, ok
}

func skipSpace(s string, p int) int {
	for p < len(s) && isSpace(s[p]) {
		p++
	}
	return p
}

// skipString moves past a JSON string starting at p (which holds '"').
func skipString(s string, p int) (int, bool) {
	if p >= len(s) || s[p] != '"' {
		return p, false
	}
	p++
	for p < len(s) {
		if s[p] == '\\' {
			p += 2
			continue
		}
		if s[p] == '"' {
			return p + 1, true
		}
		p++
	}
	return p, false
}

// skipBracketed moves past an array or object by counting only its own
// kind of bracket, outside strings.
func skipBracketed(s string, p int, open, close byte) (int, bool) {
	depth := 1
	p++
	for p < len(s) && depth > 0 {
		c := s[p]
		if c == '"' {
			var ok bool
			if p, ok = skipString(s, p); !ok {
				return p, false
			}
			continue
		}
		if c == open {
			depth++
		} else if c == close {
			depth--
		}
		p++
	}
	return p, depth == 0
}

func isNumberChar(c byte) bool {
	return isDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

func skipValue(s string, p int) (int, bool) {
	p = skipSpace(s, p)
	if p >= len(s) {
		return p, false
	}
	switch s[p] {
	case '"':
		return skipString(s, p)
	case '{':
		return skipBracketed(s, p, '{', '}')
	case '[':
		return skipBracketed(s, p, '[', ']')
	case 't':
		return skipLiteral(s, p, "true")
	case 'f':
		return skipLiteral(s, p, "false")
	case 'n':
		return skipLiteral(s, p, "null")
	}
	start := p
	for p < len(s) && isNumberChar(s[p]) {
		p++
	}
	return p, p > start
}

func skipLiteral(s string, p int, lit string) (int, bool) {
	if strings.HasPrefix(s[p:], lit) {
		return p + len(lit), true
	}
	return p, false
}

// seekField returns the position of the value of top-level key name. Keys
// are compared as raw bytes, escapes and all.
func seekField(s, name string) (int, bool) {
	p := skipSpace(s, 0)
	if p >= len(s) || s[p] != '{' {
		return 0, false
	}
	p++
	for {
		p = skipSpace(s, p)
		if p >= len(s) || s[p] != '"' {
			return 0, false // end of input, '}' or a non-string key
		}
		keyStart := p + 1
		end, ok := skipString(s, p)
		if !ok {
			return 0, false
		}
		match := s[keyStart:end-1] == name
		p = skipSpace(s, end)
		if p >= len(s) || s[p] != ':' {
			return 0, false
		}
		p = skipSpace(s, p+1)
		if p >= len(s) {
			return 0, false
		}
		if match {
			return p, true
		}
		if p, ok = skipValue(s, p); !ok {
			return 0, false
		}
		p = skipSpace(s, p)
		if p >= len(s) || s[p] != ',' {
			return 0, false
		}
		p++
	}
}

func parseValue(s string, p int) (value, int, bool) {
	p = skipSpace(s, p)
	if p >= len(s) {
		return value{}, p, false
	}
	switch c := s[p]; {
	case c == '"':
		return parseString(s, p)
	case c == '[':
		return parseArray(s, p)
	case c == 't':
		return parseLiteral(s, p, "true", value{kind: kNum, num: 1})
	case c == 'f':
		return parseLiteral(s, p, "false", value{kind: kNum, num: 0})
	case c == 'n':
		return parseLiteral(s, p, "null", value{kind: kNull})
	case isDigit(c) || c == '-' || c == '+':
		start := p
		for p < len(s) && p-start < 255 && isNumberChar(s[p]) {
			p++
		}
		f, ok := strtod(s[start:p])
		return value{kind: kNum, num: f}, p, ok
	}
	return value{}, p, false // objects and anything else
}

func parseString(s string, p int) (value, int, bool) {
	start := p + 1
	q := start
	esc := false
	for q < len(s) {
		if s[q] == '\\' {
			esc = true
			q += 2
			continue
		}
		if s[q] == '"' {
			break
		}
		q++
	}
	if q >= len(s) {
		return value{}, q, false
	}
	if !esc {
		return value{kind: kStr, str: s[start:q]}, q + 1, true
	}
	var b strings.Builder
	for r := start; r < q; r++ {
		c := s[r]
		if c == '\\' {
			r++
			switch s[r] {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			default: // \\, \" and the unsupported ones: the character itself
				c = s[r]
			}
		}
		b.WriteByte(c)
	}
	return value{kind: kStr, str: b.String()}, q + 1, true
}

// parseLiteral matches true, false or null, which must end the value.
func parseLiteral(s string, p int, lit string, v value) (value, int, bool) {
	if !strings.HasPrefix(s[p:], lit) {
		return value{}, p, false
	}
	p += len(lit)
	if p < len(s) && !isSpace(s[p]) && s[p] != ',' && s[p] != ']' && s[p] != '}' {
		return value{}, p, false
	}
	return v, p, true
}

func parseArray(s string, p int) (value, int, bool) {
	p = skipSpace(s, p+1)
	t := value{kind: kTuple, tuple: []value{}}
	if p < len(s) && s[p] == ']' {
		return t, p + 1, true
	}
	for {
		e, np, ok := parseValue(s, p)
		if !ok {
			return value{}, np, false
		}
		t.tuple = append(t.tuple, e)
		p = skipSpace(s, np)
		if p >= len(s) {
			return value{}, p, false
		}
		switch s[p] {
		case ',':
			p = skipSpace(s, p+1)
		case ']':
			return t, p + 1, true
		default:
			return value{}, p, false
		}
	}
}
