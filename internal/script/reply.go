package script

import (
	"bytes"
	"errors"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// parseReply converts one RESP reply to the Lua value redis.call returns,
// as Redis's redisProtocolToLuaType: integers as numbers, bulk strings as
// strings, nulls as false (RESP2) or nil (RESP3 null), arrays as tables,
// status and error replies as {ok=...} and {err=...} tables, and RESP3's
// map, set, double, boolean and big number in their documented forms; an
// attribute is skipped.
func parseReply(L *lua.LState, b []byte) (lua.LValue, []byte, error) {
	if len(b) < 3 {
		return lua.LNil, nil, errBadReply
	}
	i := bytes.Index(b, []byte("\r\n"))
	if i < 1 {
		return lua.LNil, nil, errBadReply
	}
	line, rest := string(b[1:i]), b[i+2:]
	switch b[0] {
	case '+':
		t := L.CreateTable(0, 1)
		t.RawSetString("ok", lua.LString(line))
		return t, rest, nil
	case '-':
		return replyError(L, line), rest, nil
	case ':':
		n, err := strconv.ParseInt(line, 10, 64)
		return lua.LNumber(n), rest, err
	case '$', '=', '!':
		n, err := strconv.Atoi(line)
		if err != nil {
			return lua.LNil, nil, err
		}
		if n < 0 {
			return lua.LFalse, rest, nil
		}
		if len(rest) < n+2 {
			return lua.LNil, nil, errBadReply
		}
		s := string(rest[:n])
		rest = rest[n+2:]
		switch b[0] {
		case '!':
			return replyError(L, s), rest, nil
		case '=':
			t, v := L.CreateTable(0, 1), L.CreateTable(0, 2)
			if len(s) >= 4 {
				v.RawSetString("format", lua.LString(s[:3]))
				s = s[4:]
			}
			v.RawSetString("string", lua.LString(s))
			t.RawSetString("verbatim_string", v)
			return t, rest, nil
		}
		return lua.LString(s), rest, nil
	case '*', '~', '%', '>':
		n, err := strconv.Atoi(line)
		if err != nil {
			return lua.LNil, nil, err
		}
		if n < 0 {
			return lua.LFalse, rest, nil
		}
		// Every element takes at least three bytes: a count beyond that
		// is malformed, and must not size a table before being refused.
		if n > len(rest)/3 {
			return lua.LNil, nil, errBadReply
		}
		if b[0] == '*' || b[0] == '>' {
			t := L.CreateTable(n, 0)
			for i := range n {
				var v lua.LValue
				if v, rest, err = parseReply(L, rest); err != nil {
					return lua.LNil, nil, err
				}
				t.RawSetInt(i+1, v) // a RESP3 null leaves a hole, as lua_rawseti of nil
			}
			return t, rest, nil
		}
		inner := L.CreateTable(0, n)
		for range n {
			var k, v lua.LValue = nil, lua.LTrue
			if k, rest, err = parseReply(L, rest); err != nil {
				return lua.LNil, nil, err
			}
			if b[0] == '%' {
				if v, rest, err = parseReply(L, rest); err != nil {
					return lua.LNil, nil, err
				}
			}
			if k == lua.LNil {
				return lua.LNil, nil, errBadReply
			}
			inner.RawSet(k, v)
		}
		t := L.CreateTable(0, 1)
		if b[0] == '%' {
			t.RawSetString("map", inner)
		} else {
			t.RawSetString("set", inner)
		}
		return t, rest, nil
	case '_':
		return lua.LNil, rest, nil
	case '#':
		return lua.LBool(line == "t"), rest, nil
	case ',':
		f, err := strconv.ParseFloat(line, 64)
		t := L.CreateTable(0, 1)
		t.RawSetString("double", lua.LNumber(f))
		return t, rest, err
	case '(':
		t := L.CreateTable(0, 1)
		t.RawSetString("big_number", lua.LString(line))
		return t, rest, nil
	case '|':
		// An attribute is not shown to the script, as in Redis: its
		// pairs are read and dropped, and the reply after it is returned.
		n, err := strconv.Atoi(line)
		if err != nil || n < 0 || n > len(rest)/6 {
			return lua.LNil, nil, errBadReply
		}
		for range 2 * n {
			if _, rest, err = parseReply(L, rest); err != nil {
				return lua.LNil, nil, err
			}
		}
		return parseReply(L, rest)
	}
	return lua.LNil, nil, errBadReply
}

var errBadReply = errors.New("malformed reply from command")

// replyError is the table Redis's redisProtocolToLuaType_Error makes of an
// error reply: its text as luaPushErrorBuff has it, and a flag telling that
// the command counted the error in the stats already, which scripts see.
func replyError(L *lua.LState, text string) *lua.LTable {
	t := errorTable(L, errorText(text))
	t.RawSetString("ignore_error_stats_update", lua.LTrue)
	return t
}
