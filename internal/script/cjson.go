package script

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// cjson is the part of Lua CJSON that Redis scripts use: encode and decode,
// with cjson.null for JSON's null. A table with keys 1..n is an array, any
// other non-empty table an object; an empty table encodes as {}.

func cjsonLib(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	null := L.NewUserData()
	t.RawSetString("null", null)
	t.RawSetString("encode", L.NewFunction(func(L *lua.LState) int {
		var b strings.Builder
		if err := encodeJSON(&b, L.CheckAny(1), null, 0); err != "" {
			L.RaiseError("%s", err)
		}
		L.Push(lua.LString(b.String()))
		return 1
	}))
	t.RawSetString("decode", L.NewFunction(func(L *lua.LState) int {
		var v any
		d := json.NewDecoder(strings.NewReader(L.CheckString(1)))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			L.RaiseError("Expected value but found invalid token at character 1")
		}
		L.Push(decodeJSON(L, v, null))
		return 1
	}))
	return t
}

func encodeJSON(b *strings.Builder, v lua.LValue, null *lua.LUserData, depth int) string {
	if depth > 1000 {
		return "Cannot serialise, excessive nesting (1001)"
	}
	switch v := v.(type) {
	case lua.LString:
		q, _ := json.Marshal(string(v))
		b.Write(q)
	case lua.LNumber:
		f := float64(v)
		switch {
		case math.IsInf(f, 0) || math.IsNaN(f):
			return "Cannot serialise number: must not be NaN or Inf"
		case f == math.Trunc(f) && math.Abs(f) < 1e15:
			b.WriteString(strconv.FormatInt(int64(f), 10))
		default:
			b.WriteString(strconv.FormatFloat(f, 'g', 14, 64))
		}
	case lua.LBool:
		b.WriteString(strconv.FormatBool(bool(v)))
	case *lua.LNilType:
		b.WriteString("null")
	case *lua.LUserData:
		if v != null {
			return "Cannot serialise userdata: type not supported"
		}
		b.WriteString("null")
	case *lua.LTable:
		n, items, isArray := 0, 0, true
		v.ForEach(func(k, _ lua.LValue) {
			items++
			if f, ok := k.(lua.LNumber); ok && f >= 1 && f == lua.LNumber(math.Trunc(float64(f))) {
				n = max(n, int(f))
			} else {
				isArray = false
			}
		})
		if isArray && n > 10 && n > 2*items { // Lua CJSON's default sparse ratio and safe length
			return "Cannot serialise table: excessively sparse array"
		}
		if isArray && n > 0 {
			b.WriteByte('[')
			for i := 1; i <= n; i++ {
				if i > 1 {
					b.WriteByte(',')
				}
				if err := encodeJSON(b, v.RawGetInt(i), null, depth+1); err != "" {
					return err
				}
			}
			b.WriteByte(']')
			return ""
		}
		var keys []string
		vals := map[string]lua.LValue{}
		bad := ""
		v.ForEach(func(k, val lua.LValue) {
			switch k.(type) {
			case lua.LString, lua.LNumber:
				keys = append(keys, lua.LVAsString(k))
				vals[lua.LVAsString(k)] = val
			default:
				bad = "Cannot serialise " + k.Type().String() + ": table key must be a number or string"
			}
		})
		if bad != "" {
			return bad
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			q, _ := json.Marshal(k)
			b.Write(q)
			b.WriteByte(':')
			if err := encodeJSON(b, vals[k], null, depth+1); err != "" {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return "Cannot serialise " + v.Type().String() + ": type not supported"
	}
	return ""
}

func decodeJSON(L *lua.LState, v any, null *lua.LUserData) lua.LValue {
	switch v := v.(type) {
	case nil:
		return null
	case bool:
		return lua.LBool(v)
	case json.Number:
		f, _ := v.Float64()
		return lua.LNumber(f)
	case string:
		return lua.LString(v)
	case []any:
		t := L.CreateTable(len(v), 0)
		for _, x := range v {
			t.Append(decodeJSON(L, x, null))
		}
		return t
	case map[string]any:
		t := L.CreateTable(0, len(v))
		for k, x := range v {
			t.RawSetString(k, decodeJSON(L, x, null))
		}
		return t
	}
	return lua.LNil
}
