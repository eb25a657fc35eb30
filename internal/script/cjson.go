package script

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// cjson is Lua CJSON 2.1 (lua_cjson.c, as Redis ships it): encode and
// decode, cjson.null for JSON's null, and the settings functions. Numbers are
// written with "%.14g" and read with strtod (so hexadecimal, inf, nan, a
// leading '+' and leading zeros are taken), strings escaped byte by byte
// ('/' too, bytes from 0x80 as they are), errors worded as Lua CJSON's. A
// table with keys 1..n is an array (unless excessively sparse), any other
// non-empty table an object, whose keys HotKV writes sorted where Lua CJSON
// follows the table's order; an empty table encodes as {}.

// cjsonConfig is one cjson table's settings (json_config_t). As in Redis,
// a script that changes them changes them for the later scripts too.
type cjsonConfig struct {
	null           *lua.LUserData
	sparseConvert  bool // an excessively sparse array becomes an object rather than an error
	sparseRatio    int  // 0: any sparseness is fine
	sparseSafe     int  // arrays up to this index are never too sparse
	encodeMaxDepth int
	decodeMaxDepth int
	precision      int // significant digits of numbers written
	encodeInvalid  int // NaN and Inf: 0 refused, 1 written as inf/nan, 2 as null
	decodeInvalid  bool
	keepBuffer     bool // only reported: HotKV keeps no encode buffer
}

func cjsonLib(L *lua.LState) *lua.LTable {
	return newCJSON(L, L.NewUserData())
}

// newCJSON is lua_cjson_new: a table with its own settings, at their
// defaults. Every table's null is the same value (in C, the NULL pointer).
func newCJSON(L *lua.LState, null *lua.LUserData) *lua.LTable {
	cfg := &cjsonConfig{null: null, sparseRatio: 2, sparseSafe: 10, encodeMaxDepth: 1000, decodeMaxDepth: 1000,
		precision: 14, decodeInvalid: true, keepBuffer: true}
	t := L.NewTable()
	t.RawSetString("null", null)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	t.RawSetString("encode", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() != 1 {
			argError(L, "encode", 1, "expected 1 argument")
		}
		b, err := cfg.encode(nil, L.Get(1), 0)
		if err != "" {
			luaError(L, "%s", err)
		}
		L.Push(lua.LString(b))
		return 1
	}))
	t.RawSetString("decode", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() != 1 {
			argError(L, "decode", 1, "expected 1 argument")
		}
		var s string
		switch v := L.Get(1).(type) {
		case lua.LString:
			s = string(v)
		case lua.LNumber:
			s = v.String()
		default:
			argError(L, "decode", 1, "string expected, got "+v.Type().String())
		}
		if len(s) >= 2 && (s[0] == 0 || s[1] == 0) {
			luaError(L, "JSON parser does not support UTF-16 or UTF-32")
		}
		p := &jsonParser{L: L, data: s, cfg: cfg}
		v := p.value(p.next())
		if tok := p.next(); tok.typ != tEnd {
			p.fail("the end", tok)
		}
		L.Push(v)
		return 1
	}))
	cfg.settings(L, t)
	t.RawSetString("new", L.NewFunction(func(L *lua.LState) int {
		L.Push(newCJSON(L, null))
		return 1
	}))
	return t
}

// settings adds the json_cfg_* functions: each sets what it is given (nil
// leaves a setting as it is) and returns the settings' values.
func (cfg *cjsonConfig) settings(L *lua.LState, t *lua.LTable) {
	const intMax = math.MaxInt32
	ints := map[string]struct {
		v        *int
		min, max int
	}{
		"encode_max_depth":        {&cfg.encodeMaxDepth, 1, intMax},
		"decode_max_depth":        {&cfg.decodeMaxDepth, 1, intMax},
		"encode_number_precision": {&cfg.precision, 1, 14},
	}
	for name, o := range ints {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			cjsonArgs(L, name, 1)
			L.Push(cjsonInt(L, name, 1, o.v, o.min, o.max))
			return 1
		}))
	}
	flags := map[string]*bool{"encode_keep_buffer": &cfg.keepBuffer, "decode_invalid_numbers": &cfg.decodeInvalid}
	for name, v := range flags {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			cjsonArgs(L, name, 1)
			L.Push(cjsonBool(L, name, 1, v))
			return 1
		}))
	}
	t.RawSetString("encode_sparse_array", L.NewFunction(func(L *lua.LState) int {
		cjsonArgs(L, "encode_sparse_array", 3)
		convert := cjsonBool(L, "encode_sparse_array", 1, &cfg.sparseConvert)
		ratio := cjsonInt(L, "encode_sparse_array", 2, &cfg.sparseRatio, 0, intMax)
		safe := cjsonInt(L, "encode_sparse_array", 3, &cfg.sparseSafe, 0, intMax)
		L.Push(convert)
		L.Push(ratio)
		L.Push(safe)
		return 3
	}))
	t.RawSetString("encode_invalid_numbers", L.NewFunction(func(L *lua.LState) int {
		cjsonArgs(L, "encode_invalid_numbers", 1)
		switch v := L.Get(1).(type) {
		case *lua.LNilType:
		case lua.LBool:
			cfg.encodeInvalid = 0
			if v {
				cfg.encodeInvalid = 1
			}
		default:
			cfg.encodeInvalid = map[string]int{"off": 0, "on": 1, "null": 2}[checkOption(L, "encode_invalid_numbers", 1, "off", "on", "null")]
		}
		if cfg.encodeInvalid == 2 {
			L.Push(lua.LString("null"))
		} else {
			L.Push(lua.LBool(cfg.encodeInvalid == 1))
		}
		return 1
	}))
}

// cjsonArgs is json_arg_init's check.
func cjsonArgs(L *lua.LState, fn string, n int) {
	if L.GetTop() > n {
		argError(L, fn, n+1, "found too many arguments")
	}
}

// cjsonInt is json_integer_option. Its range error names argument #1
// whichever argument it is, as Lua CJSON's does.
func cjsonInt(L *lua.LState, fn string, n int, v *int, min, max int) lua.LNumber {
	if L.Get(n) != lua.LNil {
		if i := int(checkInt(L, fn, n)); i >= min && i <= max {
			*v = i
		} else {
			argError(L, fn, 1, fmt.Sprintf("expected integer between %d and %d", min, max))
		}
	}
	return lua.LNumber(*v)
}

// cjsonBool is json_enum_option with the options off and on.
func cjsonBool(L *lua.LState, fn string, n int, v *bool) lua.LBool {
	switch a := L.Get(n).(type) {
	case *lua.LNilType:
	case lua.LBool:
		*v = bool(a)
	default:
		*v = checkOption(L, fn, n, "off", "on") == "on"
	}
	return lua.LBool(*v)
}

// encode appends v to b as json_append_data does, or says what error Lua
// CJSON raises. depth counts the tables v is in.
func (cfg *cjsonConfig) encode(b []byte, v lua.LValue, depth int) ([]byte, string) {
	switch v := v.(type) {
	case lua.LString:
		return appendJSONString(b, string(v)), ""
	case lua.LNumber:
		return cfg.appendNumber(b, float64(v))
	case lua.LBool:
		return strconv.AppendBool(b, bool(v)), ""
	case *lua.LNilType:
		return append(b, "null"...), ""
	case *lua.LUserData:
		if v == cfg.null {
			return append(b, "null"...), ""
		}
	case *lua.LTable:
		if depth++; depth > cfg.encodeMaxDepth {
			return b, fmt.Sprintf("Cannot serialise, excessive nesting (%d)", depth)
		}
		// An array has only integer keys from 1, up to n, not too sparse.
		n, items, object := 0.0, 0.0, false
		v.ForEach(func(k, _ lua.LValue) {
			f, ok := k.(lua.LNumber)
			if !ok || f < 1 || math.Floor(float64(f)) != float64(f) {
				object = true
				return
			}
			n, items = max(n, float64(f)), items+1
		})
		if !object && cfg.sparseRatio > 0 && n > items*float64(cfg.sparseRatio) && n > float64(cfg.sparseSafe) {
			if !cfg.sparseConvert {
				return b, "Cannot serialise table: excessively sparse array"
			}
			object = true
		}
		if !object && n > 0 {
			b = append(b, '[')
			for i := 1; i <= int(n); i++ {
				if i > 1 {
					b = append(b, ',')
				}
				var err string
				if b, err = cfg.encode(b, v.RawGetInt(i), depth); err != "" {
					return b, err
				}
			}
			return append(b, ']'), ""
		}
		return cfg.encodeObject(b, v, depth)
	}
	return b, "Cannot serialise " + v.Type().String() + ": type not supported"
}

// encodeObject appends table t as a JSON object: number keys written as
// numbers in quotes, string keys as strings, in the order of the keys so
// written.
func (cfg *cjsonConfig) encodeObject(b []byte, t *lua.LTable, depth int) ([]byte, string) {
	type entry struct {
		key []byte
		val lua.LValue
	}
	var entries []entry
	bad := ""
	t.ForEach(func(k, val lua.LValue) {
		var key []byte
		switch k := k.(type) {
		case lua.LString:
			key = appendJSONString(nil, string(k))
		case lua.LNumber:
			var err string
			if key, err = cfg.appendNumber([]byte{'"'}, float64(k)); err != "" && bad == "" {
				bad = err
			}
			key = append(key, '"')
		default:
			if bad == "" {
				bad = "Cannot serialise " + k.Type().String() + ": table key must be a number or string"
			}
		}
		entries = append(entries, entry{key, val})
	})
	if bad != "" {
		return b, bad
	}
	sort.Slice(entries, func(i, j int) bool { return string(entries[i].key) < string(entries[j].key) })
	b = append(b, '{')
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(b, e.key...), ':')
		var err string
		if b, err = cfg.encode(b, e.val, depth); err != "" {
			return b, err
		}
	}
	return append(b, '}'), ""
}

// appendNumber is json_append_number: "%.14g" (or the precision set), and
// NaN and Inf as encode_invalid_numbers says.
func (cfg *cjsonConfig) appendNumber(b []byte, f float64) ([]byte, string) {
	invalid := math.IsInf(f, 0) || math.IsNaN(f)
	switch {
	case invalid && cfg.encodeInvalid == 0:
		return b, "Cannot serialise number: must not be NaN or Inf"
	case invalid && cfg.encodeInvalid == 2:
		return append(b, "null"...), ""
	case math.IsNaN(f):
		return append(b, "nan"...), ""
	case math.IsInf(f, 1):
		return append(b, "inf"...), ""
	case math.IsInf(f, -1):
		return append(b, "-inf"...), ""
	}
	return strconv.AppendFloat(b, f, 'g', cfg.precision, 64), ""
}

// appendJSONString is json_append_string: '"', '\', '/' and the control
// bytes (0x7f too) escaped, every other byte as it is.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '/':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, `\b`...)
		case '\t':
			b = append(b, `\t`...)
		case '\n':
			b = append(b, `\n`...)
		case '\f':
			b = append(b, `\f`...)
		case '\r':
			b = append(b, `\r`...)
		default:
			if c < 0x20 || c == 0x7f {
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			} else {
				b = append(b, c)
			}
		}
	}
	return append(b, '"')
}

// Lua CJSON's tokens, named in its errors as json_token_type_name does.
const (
	tObjBegin = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tWhitespace
	tError
	tUnknown
)

var jsonTokenNames = [...]string{"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING", "T_NUMBER",
	"T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR", "T_UNKNOWN"}

type jsonToken struct {
	typ   int
	index int // of its first byte, or of the error
	str   string
	num   float64
	b     bool
	err   string // for tError
}

// jsonParser is json_decode's state: the input read as C reads it, which
// ends at its first NUL.
type jsonParser struct {
	L     *lua.LState
	data  string
	pos   int
	depth int
	cfg   *cjsonConfig
}

func (p *jsonParser) at(i int) byte {
	if i < len(p.data) {
		return p.data[i]
	}
	return 0
}

// ch2token is Lua CJSON's table of what a byte starts.
func ch2token(c byte) int {
	switch c {
	case '{':
		return tObjBegin
	case '}':
		return tObjEnd
	case '[':
		return tArrBegin
	case ']':
		return tArrEnd
	case ',':
		return tComma
	case ':':
		return tColon
	case 0:
		return tEnd
	case ' ', '\t', '\n', '\r':
		return tWhitespace
	case 'f', 'i', 'I', 'n', 'N', 't', '"', '+', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return tUnknown
	}
	return tError
}

// next is json_next_token.
func (p *jsonParser) next() jsonToken {
	for ch2token(p.at(p.pos)) == tWhitespace {
		p.pos++
	}
	tok := jsonToken{typ: ch2token(p.at(p.pos)), index: p.pos}
	switch tok.typ {
	case tError:
		tok.err = "invalid token"
		return tok
	case tEnd:
		return tok
	case tUnknown:
	default:
		p.pos++
		return tok
	}
	rest := p.data[p.pos:]
	switch c := rest[0]; {
	case c == '"':
		return p.str(tok)
	case c == '-' || isDigit(c):
		if !p.cfg.decodeInvalid && p.invalidNumber() {
			return p.tokenError(tok, "invalid number")
		}
		return p.number(tok)
	case strings.HasPrefix(rest, "true"):
		tok.typ, tok.b = tBoolean, true
		p.pos += 4
		return tok
	case strings.HasPrefix(rest, "false"):
		tok.typ = tBoolean
		p.pos += 5
		return tok
	case strings.HasPrefix(rest, "null"):
		tok.typ = tNull
		p.pos += 4
		return tok
	case p.cfg.decodeInvalid && p.invalidNumber():
		return p.number(tok)
	}
	return p.tokenError(tok, "invalid token")
}

func (p *jsonParser) tokenError(tok jsonToken, err string) jsonToken {
	tok.typ, tok.index, tok.err = tError, p.pos, err
	return tok
}

// invalidNumber is json_is_invalid_number: what is not a JSON number but
// strtod reads (with decode_invalid_numbers on, the default, it is read).
func (p *jsonParser) invalidNumber() bool {
	i := p.pos
	switch p.at(i) {
	case '+':
		return true
	case '-':
		i++
	}
	if c := p.at(i); c == '0' {
		c2 := p.at(i + 1)
		return c2|0x20 == 'x' || isDigit(c2)
	} else if c <= '9' {
		return false
	}
	rest := p.data[i:]
	return len(rest) >= 3 && (strings.EqualFold(rest[:3], "inf") || strings.EqualFold(rest[:3], "nan"))
}

func (p *jsonParser) number(tok jsonToken) jsonToken {
	f, n := strtod(cString(p.data[p.pos:]))
	if n == 0 {
		return p.tokenError(tok, "invalid number")
	}
	p.pos += n
	tok.typ, tok.num = tNumber, f
	return tok
}

// str is json_parse_string.
func (p *jsonParser) str(tok jsonToken) jsonToken {
	p.pos++
	var b []byte
	for {
		c := p.at(p.pos)
		if c == '"' {
			break
		}
		if c == 0 {
			return p.tokenError(tok, "unexpected end of string")
		}
		if c == '\\' {
			switch c = p.at(p.pos + 1); c {
			case '"', '\\', '/':
			case 'b':
				c = '\b'
			case 't':
				c = '\t'
			case 'n':
				c = '\n'
			case 'f':
				c = '\f'
			case 'r':
				c = '\r'
			case 'u':
				var ok bool
				if b, ok = p.unicodeEscape(b); !ok {
					return p.tokenError(tok, "invalid unicode escape code")
				}
				continue
			default:
				return p.tokenError(tok, "invalid escape code")
			}
			p.pos++
		}
		b = append(b, c)
		p.pos++
	}
	p.pos++
	tok.typ, tok.str = tString, string(b)
	return tok
}

// unicodeEscape is json_append_unicode_escape: \uXXXX, or a surrogate
// pair of them, appended to b as UTF-8.
func (p *jsonParser) unicodeEscape(b []byte) ([]byte, bool) {
	hex4 := func(at int) int {
		n := 0
		for i := range 4 {
			d := digitValue(p.at(at + i))
			if d >= 16 {
				return -1
			}
			n = n<<4 | d
		}
		return n
	}
	cp, n := hex4(p.pos+2), 6
	if cp < 0 {
		return b, false
	}
	if cp&0xF800 == 0xD800 {
		if cp&0x400 != 0 || p.at(p.pos+6) != '\\' || p.at(p.pos+7) != 'u' {
			return b, false
		}
		low := hex4(p.pos + 8)
		if low < 0 || low&0xFC00 != 0xDC00 {
			return b, false
		}
		cp, n = (cp&0x3FF)<<10|(low&0x3FF)+0x10000, 12
	}
	switch {
	case cp <= 0x7F:
		b = append(b, byte(cp))
	case cp <= 0x7FF:
		b = append(b, byte(cp>>6)|0xC0, byte(cp&0x3F)|0x80)
	case cp <= 0xFFFF:
		b = append(b, byte(cp>>12)|0xE0, byte(cp>>6&0x3F)|0x80, byte(cp&0x3F)|0x80)
	default:
		b = append(b, byte(cp>>18)|0xF0, byte(cp>>12&0x3F)|0x80, byte(cp>>6&0x3F)|0x80, byte(cp&0x3F)|0x80)
	}
	p.pos += n
	return b, true
}

// fail is json_throw_parse_error.
func (p *jsonParser) fail(expected string, tok jsonToken) {
	found := tok.err
	if tok.typ != tError {
		found = jsonTokenNames[tok.typ]
	}
	luaError(p.L, "Expected %s but found %s at character %d", expected, found, tok.index+1)
}

// value is json_process_value.
func (p *jsonParser) value(tok jsonToken) lua.LValue {
	switch tok.typ {
	case tString:
		return lua.LString(tok.str)
	case tNumber:
		return lua.LNumber(tok.num)
	case tBoolean:
		return lua.LBool(tok.b)
	case tNull:
		return p.cfg.null
	case tObjBegin:
		return p.container(tObjEnd)
	case tArrBegin:
		return p.container(tArrEnd)
	}
	p.fail("value", tok)
	return lua.LNil
}

// container is json_parse_object_context or json_parse_array_context,
// after the opening bracket.
func (p *jsonParser) container(end int) lua.LValue {
	if p.depth++; p.depth > p.cfg.decodeMaxDepth {
		luaError(p.L, "Found too many nested data structures (%d) at character %d", p.depth, p.pos)
	}
	t := p.L.NewTable()
	tok := p.next()
	if tok.typ == end {
		p.depth--
		return t
	}
	for i := 1; ; i++ {
		if end == tArrEnd {
			t.RawSetInt(i, p.value(tok))
		} else {
			if tok.typ != tString {
				p.fail("object key string", tok)
			}
			key := tok.str
			if tok = p.next(); tok.typ != tColon {
				p.fail("colon", tok)
			}
			t.RawSetString(key, p.value(p.next()))
		}
		if tok = p.next(); tok.typ == end {
			p.depth--
			return t
		}
		if tok.typ != tComma && end == tArrEnd {
			p.fail("comma or array end", tok)
		} else if tok.typ != tComma {
			p.fail("comma or object end", tok)
		}
		tok = p.next()
	}
}
