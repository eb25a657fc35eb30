package scripting

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// Lua scripting. The differential test holds the replies to Redis 8's
// (RESP2 and RESP3); the others run without Redis: atomicity under
// concurrency, the append-only log, blocked clients and transactions.

func TestDifferentialScripting(t *testing.T) {
	harness.Differ(t, [][]string{
		{"SET", "s", "abc"},
		{"EVAL", "return redis.call('incr','s')", "0"},
		{"EVAL", "return redis.call('nosuch')", "0"},
		{"EVAL", "return redis.call('get')", "0"},
		{"EVAL", "error('boom')", "0"},
		{"EVAL", "error({err='X custom'})", "0"},
		{"EVAL", "return redis.error_reply('My Error')", "0"},
		{"EVAL", "return redis.error_reply('-My Error')", "0"},
		{"EVAL", "return redis.status_reply('FINE')", "0"},
		{"EVAL", "x = 1", "0"},
		{"EVAL", "return y", "0"},
		{"EVAL", "return {1,2,3,'a',nil,4}", "0"},
		{"EVAL", "return -3.99", "0"},
		{"EVAL", "return true", "0"},
		{"EVAL", "return false", "0"},
		{"EVAL", "return nil", "0"},
		{"EVAL", "return {err='e'}", "0"},
		{"EVAL", "return redis.pcall('incr','s')", "0"},
		{"EVAL", "return {redis.pcall('incr','s')['err']}", "0"},
		{"EVAL", "return redis.call('subscribe','x')", "0"},
		{"EVAL", "return redis.call('multi')", "0"},
		{"EVAL", "return redis.call('eval','return 1','0')", "0"},
		{"EVAL", "return {1,{2,{3}},'x',{ok='fine'}}", "0"},
		{"EVAL", "return redis.call('ping')", "0"},
		{"EVAL", "return redis.sha1hex('')", "0"},
		{"EVAL", "return type(redis.call('get','nokey'))", "0"},
		{"EVAL", "return redis.call('hgetall','nokey')", "0"},
		{"EVAL", "redis.call('hset','h','a','1','b','2') return redis.call('hgetall','h')", "0"},
		{"EVAL", "redis.setresp(3) return redis.call('hgetall','h')", "0"},
		{"EVAL", "redis.setresp(3) return redis.call('smembers','nokey')", "0"},
		{"EVAL", "redis.setresp(3) return {redis.call('get','nokey') == nil}", "0"},
		{"EVAL", "redis.call('hset','h2','b','2') redis.setresp(3) local r = redis.call('hmget','h2','a','b') return {r, #r == 0 or r[1] == nil, r[2]}", "0"},
		{"EVAL", "redis.setresp(3) return true", "0"},
		{"EVAL", "redis.setresp(4)", "0"},
		{"EVAL", "return {double=1.5}", "0"},
		{"EVAL", "return cjson.encode({1,2,{a=1}})", "0"},
		{"EVAL", "return cjson.encode({})", "0"},
		{"EVAL", "return cjson.decode('x')", "0"},
		{"EVAL", "return redis.log(redis.LOG_WARNING)", "0"},
		{"EVAL", "redis.log(redis.LOG_NOTICE, 'hello') return 1", "0"},
		{"EVAL", "return redis.call('set','k','v','EX')", "0"},
		{"EVAL", "return redis.pcall('nosuch')", "0"},
		{"EVAL", "return cjson.decode('[1,2,{\"a\":true}]')[3].a", "0"},
		{"EVAL", "return cjson.decode('{\"n\":1.5}').n * 2", "0"},
		{"EVAL", "return {bit.band(7,3), bit.bor(1,2), bit.bxor(5,1), bit.lshift(1,4), bit.rshift(-1,28), bit.tohex(255)}", "0"},
		{"EVAL", "return tostring(dofile)", "0"},
		{"EVAL", "return {type(loadstring), loadstring('return 1+1')()}", "0"},
		{"EVAL", "return redis.call('blpop','l',0)", "0"},
		{"EVAL", "return KEYS[1]..ARGV[1]..#KEYS..#ARGV", "2", "k1", "k2", "a1"},
		{"EVAL", "return redis.call('set', KEYS[1], 3.5)", "1", "n"},
		{"EVAL", "return redis.call('get', KEYS[1])", "1", "n"},
		{"EVAL", "return redis.call('set', KEYS[1], {})", "1", "n"},
		{"EVAL", "return redis.call()", "0"},
		{"EVAL", "return 1", "-1"},
		{"EVAL", "return 1", "2", "a"},
		{"EVAL", "return 1", "x"},
		{"EVAL", "return redis.REDIS_VERSION", "0"},
		{"EVAL", "redis.call('set','n1',1000000) redis.call('set','n2',0.1) redis.call('set','n3',-0.0) redis.call('set','n4',1e20) redis.call('set','n5',1/3) redis.call('set','n6',-2^53) return redis.call('mget','n1','n2','n3','n4','n5','n6')", "0"},
		{"EVAL", "return redis.call('incrby','n1',2500000)", "0"},
		{"EVAL", "return cjson.encode({[20]=1})", "0"},
		{"EVAL", "return cjson.encode({1,2,nil,4})", "0"},
		{"EVAL", "return rawset(string,'x',1)", "0"},
		{"EVAL", "return rawset(_G,'x',1)", "0"},
		{"EVAL", "return rawset({},'x',1).x", "0"},
		{"EVAL", "table.insert(redis, 'x')", "0"},
		{"EVAL", "return rawset({}, nil, 1)", "0"},
		{"EVAL", "return rawset({}, 0/0, 1)", "0"},
		{"EVAL", "local t = {3,1,2} table.sort(t) table.insert(t, 4) table.remove(t, 1) return t", "0"},
		{"EVAL", "return type(getmetatable(''))", "0"},
		{"EVAL", "getmetatable('').__index = {}", "0"},
		{"EVAL", "return type(getfenv)", "0"},
		{"EVAL", "return {tostring(-0.5), 100 .. '', tostring(1e100), 'k:' .. 12345678901}", "0"},
		{"EVAL", "return string.format('%d %5.2f %s', 3, 1.5, 'x')", "0"},
		{"EVAL", "return ('abc'):upper()", "0"},
		{"EVAL", "return {tostring(math.huge == 1/0), tostring(-math.huge < -1.7976931348623157e308)}", "0"},
		{"EVAL", "local t = {} for w in ARGV[1]:gmatch('%a+') do t[#t+1] = w end return t", "0", "one two, three"},
		{"EVAL", "local t = {} for k, v in string.gmatch(ARGV[1], '(%w+)=(%w+)') do t[#t+1] = k .. v end return t", "0", "a=1, b=2"},
		{"EVAL", "return #string.rep('ab', 3)", "0"},
		{"EVAL", "return string.rep('x', -1)", "0"},
		{"VADD", "vs", "VALUES", "2", "1", "0", "a"}, {"VADD", "vs", "VALUES", "2", "0", "1", "b"},
		{"EVAL", "return redis.call('vsim', KEYS[1], 'VALUES', 2, 1, 0, 'COUNT', 1)", "1", "vs"},
		{"EVAL", "return redis.call('vsim', KEYS[1], 'ELE', 'b', 'WITHSCORES')", "1", "vs"},
		{"EVAL", "redis.call('select','1') redis.call('set','indb1','x') return redis.call('dbsize')", "0"},
		{"GET", "indb1"}, {"SELECT", "1"}, {"GET", "indb1"}, {"FLUSHDB"}, {"SELECT", "0"},
		{"EVAL", "#!lua flags=no-writes\nreturn redis.call('set','x','1')", "0"},
		{"EVAL", "#!lua\nreturn 7", "0"},
		{"EVAL", "#!lua flags=bogus\nreturn 7", "0"},
		{"EVAL", "#!python\nreturn 7", "0"},
		{"EVAL", "#!lua name=x\nreturn 7", "0"},
		{"EVAL", "#!lua flags=no-writes,allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\nreturn 7", "0"},
		{"EVAL", "#!lua flags=\nreturn redis.call('set','x','1')", "0"},
		{"EVAL", "#!lua", "0"},
		{"EVAL_RO", "#!lua\nreturn 1", "0"}, {"EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0"},
		{"EVAL", "return pcall(setmetatable, 1, {})", "0"},
		{"EVAL", "return tostring(42)", "0"},
		{"EVAL", "return string.format('%100d', 1)", "0"},
		{"EVAL", "return string.format('%5.2f|%-3d|%03d', 1.5, 7, 7)", "0"},
		{"EVAL", "return string.find('x', string.rep('(', 40) .. 'x' .. string.rep(')', 40))", "0"},
		{"EVAL", "return {string.find('abc', '(b)(c)')}", "0"},
		{"EVAL", "return " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), "0"},
		{"EVAL", "return " + strings.Repeat("(", 150) + "1" + strings.Repeat(")", 150), "0"},
		{"EVAL", "return #{string.byte(string.rep('x', 6000), 1, -1)}", "0"},
		{"EVAL", "local t = {} t[67108863] = 1 t[5] = 2 return {t[67108863], t[5]}", "0"},
		{"SCRIPT", "LOAD", "#!lua flags=no-writes\nreturn redis.call('set','x','1')"}, {"EVALSHA", "6496c2741353a8e9e5fd8f1f4205c2149edef733", "0"},
		{"EVAL_RO", "return redis.call('set','x','1')", "0"},
		{"EVAL_RO", "return redis.call('get','s')", "0"},
		// may_replicate commands count as writes in read-only scripts.
		{"EVAL_RO", "return redis.call('publish','ch','m')", "0"},
		{"EVAL_RO", "return redis.pcall('spublish','ch','m')", "0"},
		{"EVAL_RO", "return redis.call('pfcount','s')", "0"},
		{"EVAL", "#!lua flags=no-writes\nreturn redis.call('publish','ch','m')", "0"},
		{"EVAL", "return redis.call('publish','ch','m')", "0"},
		{"SCRIPT", "LOAD", "return 'loaded'"},
		{"EVALSHA", "b5ba0e2d8e4b8b2a8c3f5c0c6d0c2a2cc1c0c6ef", "0"},
		{"EVALSHA", "5b8a8bd1dfb9f8a7a20ba5c3ce2b24ea9fce1bbd", "0"},
		{"SCRIPT", "EXISTS", "5b8a8bd1dfb9f8a7a20ba5c3ce2b24ea9fce1bbd", "ffffffffffffffffffffffffffffffffffffffff"},
		{"EVALSHA", "5B8A8BD1DFB9F8A7A20BA5C3CE2B24EA9FCE1BBD", "0"},
		{"EVALSHA_RO", "5b8a8bd1dfb9f8a7a20ba5c3ce2b24ea9fce1bbd", "0"},
		{"SCRIPT", "FLUSH"},
		{"SCRIPT", "EXISTS", "5b8a8bd1dfb9f8a7a20ba5c3ce2b24ea9fce1bbd"},
		{"SCRIPT", "FLUSH", "ASYNC"}, {"SCRIPT", "FLUSH", "LATER"}, {"SCRIPT", "KILL"},
		{"EVAL", "return 1", "0"}, {"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"},
		{"MULTI"}, {"EVAL", "return redis.call('incr','m')", "0"}, {"INCR", "m"}, {"EXEC"},
		{"COMMAND", "GETKEYS", "EVAL", "return 1", "2", "a", "b", "c"},
		{"COMMAND", "GETKEYS", "EVAL", "return 1", "0"},
	})
}

// tonumber reads strings as Lua 5.1 does with C's strtod (decimal and
// hexadecimal, exponents, inf and nan, blanks around, up to a NUL), and
// with a base as strtoul.
func TestDifferentialScriptToNumber(t *testing.T) {
	const show = "local n = tonumber(ARGV[1]) if n == nil or n ~= n or n == 1/0 or n == -1/0 or n == 0 then " +
		"return {type(n), tostring(n == n), tostring(n == 1/0), tostring(n == -1/0), tostring(n == 0 and 1/n > 0)} end " +
		"return {math.floor(n), math.floor((n - math.floor(n)) * 1e6)}"
	var script [][]string
	for _, s := range []string{"010", "0b101", "1_000", "1e3", "0x1p4", "0x1.8", "0X1F", "0x", "1e400", "-1e400", "1e-400",
		"\t5\n", "5\r", " ", "", "nan", "-nan(1)", "9007199254740993", "-9223372036854775809", "2.9999999999999996", "1e", "1e+",
		".5", "5.", ".", " +.5e-1 ", "-0", "0x.8", "0x1p", "0X1P-2", "infinity", "-Inf", "infinit", "nan(", "5\x00abc",
		"\x005", "\v7\f", "1.5x", "-0x10", "0xg", "00012", "1.7976931348623159e308", "4.9e-324", "+-1"} {
		script = append(script, []string{"EVAL", show, "0", s})
	}
	for _, c := range [][2]string{{"ff", "16"}, {"0xff", "16"}, {"0x", "16"}, {"-1", "16"}, {"zz", "36"}, {" 11 ", "2"},
		{"99999999999999999999999", "10"}, {"12", "2"}, {"", "16"}, {"1 1", "16"}, {"ff\x00zz", "16"}} {
		script = append(script, []string{"EVAL", "local n = tonumber(ARGV[1], tonumber(ARGV[2])) " +
			"if n == nil then return 'nil' end return {math.floor(n / 2^32), n % 2^32}", "0", c[0], c[1]})
	}
	harness.Differ(t, script)
}

// cjson is Lua CJSON 2.1 with its defaults: "%.14g" numbers, '/' and 0x7f
// escaped and bytes from 0x80 as they are, strtod's numbers (hexadecimal,
// inf, a '+', leading zeros) and raw control bytes read, its error texts.
func TestDifferentialScriptCJSON(t *testing.T) {
	var script [][]string
	for _, s := range []string{"[1.5,-0.25,1e300,123456789012345678]", `"a\u00e9\n\/\t"`, "[true,false,null]",
		`{"a":[1,{"b":null}]}`, "[[[]]]", "{}", "[]", `"\ud83d\ude00"`, "[1,2", "0x10", "-0", " 7 ", "nul",
		strings.Repeat("[", 1001) + strings.Repeat("]", 1001), "[1e-7,0.1,100000000000000,99999999999999,-1e14,123456789012345]",
		`"\u0000\u001f"`, `"abc`, "[1,]", "\"<>&\x7f\x01\"", "\"\xff\xfe\"", "[1 2]", `{"a" 1}`, `{"a":1,}`, "{1:2}",
		"01", "+1", "-", "1.", "1e", "-Infinity", "nan(12)", `"\ud83d"`, `"\uDE00"`, `"\u12"`, `"\x"`, "\"a\tb\"",
		"[1,[2,[3]]]  x", "", "  ", "a\x00", "7\x00x", `{"a":1,"a":2}`, "[0x1g]", `"\ud83d\u0041"`} {
		script = append(script, []string{"EVAL", "return cjson.encode(cjson.decode(ARGV[1]))", "0", s})
	}
	for _, s := range []string{"/", "a\"b\\c", "\x00\x1f\x7f\x80\xff", "1e14", "-0", "1e-5", "1e21", "inf"} {
		script = append(script, []string{"EVAL", "return cjson.encode({ARGV[1], tonumber(ARGV[1])})", "0", s})
	}
	for _, n := range []string{"1000", "1001"} {
		script = append(script, []string{"EVAL", "local t = {} local c = t for i = 2, tonumber(ARGV[1]) do c[1] = {} c = c[1] end " +
			"return cjson.encode(t)", "0", n})
	}
	script = append(script, []string{"EVAL", "return cjson.encode({[1.5]=1})", "0"}, []string{"EVAL", "return cjson.encode()", "0"},
		[]string{"EVAL", "return cjson.decode('[1]', 2)", "0"}, []string{"EVAL", "return cjson.decode({})", "0"},
		[]string{"EVAL", "return cjson.encode({[1]=1,[2]=2,[4]=4})", "0"}, []string{"EVAL", "return cjson.encode({[1]=1,[20]=2})", "0"})
	harness.Differ(t, script)
}

// cjson's settings functions answer, refuse and act as Lua CJSON's; a
// script that changes one changes it for later scripts, so each script here
// puts the defaults back. Errors the libraries raise are worded as Redis's
// Lua words them, position included or not.
func TestDifferentialScriptCJSONSettings(t *testing.T) {
	const restore = " cjson.encode_sparse_array(false, 2, 10) cjson.encode_max_depth(1000) cjson.decode_max_depth(1000)" +
		" cjson.encode_number_precision(14) cjson.encode_keep_buffer(true) cjson.encode_invalid_numbers(false)" +
		" cjson.decode_invalid_numbers(true) "
	var script [][]string
	for _, body := range []string{
		"local r = {cjson.encode_sparse_array()} table.insert(r, cjson.encode_max_depth()) table.insert(r, cjson.decode_max_depth())" +
			" table.insert(r, cjson.encode_number_precision()) table.insert(r, tostring(cjson.encode_keep_buffer()))" +
			" table.insert(r, tostring(cjson.encode_invalid_numbers())) table.insert(r, tostring(cjson.decode_invalid_numbers()))" +
			" r[1] = tostring(r[1]) return r",
		"return {tostring(cjson.encode_sparse_array(true)), cjson.encode({[1]=1,[20]=2})}",
		"return {cjson.encode_sparse_array(nil, 0), cjson.encode({[1]=1,[20]=2})}",
		"cjson.encode_sparse_array('on', 1, 0) return cjson.encode({1,2,3})",
		"cjson.encode_sparse_array(false, 3, 1) return {pcall(cjson.encode, {[1]=1,[3]=1})}",
		"return {cjson.encode_number_precision(3), cjson.encode({3.14159, 12345, 0.000123456})}",
		"return {cjson.encode_max_depth('2'), pcall(cjson.encode, {{1}}), pcall(cjson.encode, {{{1}}})}",
		"return {cjson.decode_max_depth(2), pcall(cjson.decode, '[[1]]'), pcall(cjson.decode, '[[[1]]]')}",
		"return {pcall(cjson.encode, {0/0}), cjson.encode_invalid_numbers(true), cjson.encode({1/0, -1/0, 0/0})}",
		"return {cjson.encode_invalid_numbers('null'), cjson.encode({1/0, 1})}",
		"return {tostring(cjson.decode_invalid_numbers('off')), pcall(cjson.decode, '[0x10]'), pcall(cjson.decode, '[inf]')," +
			" pcall(cjson.decode, '[-Infinity]'), pcall(cjson.decode, '[01]'), cjson.encode(cjson.decode('[10,-0.5]'))}",
		"return {pcall(cjson.encode_max_depth, 0)}",
		"return {pcall(cjson.encode_number_precision, 15)}",
		"return {pcall(cjson.encode_sparse_array, true, -1)}",
		"return {pcall(cjson.encode_sparse_array, 'yes')}",
		"return {pcall(cjson.encode_invalid_numbers, {})}",
		"return {pcall(cjson.decode_max_depth, 1, 2)}",
		"return {pcall(cjson.encode_max_depth, 'x')}",
		"return {pcall(cjson.encode_keep_buffer, 1)}",
		"return {cjson._NAME, cjson._VERSION, cjson.new().encode({a=1}), cjson.new().null == cjson.null}",
		"local c = cjson.new() c.encode_number_precision(2) return {c.encode(1.234), cjson.encode(1.234)}",
		// An error raised in a function pcall called directly has no position.
		"return {pcall(cjson.decode, 'x')}",
		"return {pcall(function() return cjson.decode('x') end)}",
		"return {pcall(struct.pack, '>i17', 1)}",
		"return {pcall(cmsgpack.unpack_limit, 'x', 0, 5)}",
		"return {pcall(string.format, '%-+ #0-d', 1)}",
	} {
		script = append(script, []string{"EVAL", "local ok, r = pcall(function() " + body + " end)" + restore +
			"if ok then return r end return {'error', r}", "0"})
	}
	harness.Differ(t, script)
}

// math.random is Redis's: redisLrand48, so a seed gives Redis's sequence.
func TestDifferentialScriptRandom(t *testing.T) {
	var script [][]string
	for _, seed := range []string{"0", "10", "'10'", "-1", "2147483647", "2^31", "1.9", "' 7 '"} {
		script = append(script, []string{"EVAL", "math.randomseed(" + seed + ") local t = {}" +
			" for i = 1, 4 do t[#t+1] = math.floor(math.random() * 2^31) end" +
			" t[#t+1] = math.random(100) t[#t+1] = math.random(-5, 5) t[#t+1] = math.random('3') t[#t+1] = math.random(7, 7)" +
			" return t", "0"})
	}
	for _, call := range []string{"math.random(0)", "math.random(3, 2)", "math.random(1, 2, 3)", "math.random('x')",
		"math.random(1, {})", "math.randomseed()", "math.randomseed('x')", "pcall(math.random, 0)"} {
		script = append(script, []string{"EVAL", "return {" + call + "}", "0"})
	}
	harness.Differ(t, script)
}

// The sandbox offers what Redis's does: pairs walks the read-only
// libraries and globals, and Lua 5.1's load, gcinfo, collectgarbage,
// table.foreach(i)/setn and string.dump are there and answer as Redis's.
func TestDifferentialScriptSandbox(t *testing.T) {
	var script [][]string
	for _, lib := range []string{"string", "table", "math", "os", "redis", "cjson", "bit", "cmsgpack", "struct"} {
		script = append(script, []string{"EVAL", "local t = {} for k, v in pairs(" + lib + ") do t[#t+1] = k .. ':' .. type(v) end" +
			" table.sort(t) return t", "0"})
	}
	for _, body := range []string{
		"local t = {} for k in pairs(_G) do if k ~= 'coroutine' and k ~= '__redis__err__handler' then t[#t+1] = k end end table.sort(t) return t",
		"return {next(os)}",
		"return {type(gcinfo()), gcinfo() > 0, collectgarbage('count') > 0, collectgarbage('step'), collectgarbage('collect')," +
			" collectgarbage(), collectgarbage('stop'), collectgarbage('restart'), collectgarbage('setpause', 100), collectgarbage('setpause')," +
			" collectgarbage('setpause', 200), collectgarbage('setstepmul', 1), collectgarbage('setstepmul', 200)}",
		"return {pcall(collectgarbage, 'x')}",
		"return {pcall(collectgarbage, {})}",
		"local parts = {'return ', '1 + ', 2} local i = 0 local f = load(function() i = i + 1 return parts[i] end) return f()",
		"local i = 0 return {load(function() i = i + 1 if i == 1 then return 'x x' end end)} ~= nil",
		"return {pcall(load, function() return {} end)}",
		"return {pcall(load)}",
		"return type(load(function() return nil end))",
		"local r = {} table.foreach({a=1}, function(k, v) r[#r+1] = k .. v end) table.foreachi({5,6}, function(i, v) r[#r+1] = i * v end) return r",
		"return table.foreachi({5,6,7}, function(i, v) if v == 6 then return i end end)",
		"return table.foreach({a=1}, function(k, v) return k end)",
		"return {pcall(table.foreach, {}, 1)}",
		"return {pcall(table.foreachi, 1)}",
		"return {pcall(table.setn, {}, 1)}",
		"return {loadstring(string.dump(function() return 1 end))}",
		"return string.dump(function() return 1 end):sub(1, 12)",
		"return {pcall(string.dump)}",
		"return {pcall(string.dump, tostring)}",
		"return {('x'):upper(), getmetatable('').__index == string}",
		"return {pcall(redis.sha1hex)}",
		"local ok, e = pcall(function() return redis.call('nosuch') end) return {ok, type(e), e}",
		"local ok, e = pcall(error, {err = 'x'}) return {type(e), e}",
		"local ok, e = pcall(error, {err = 5}) return {type(e), e}",
		"local ok, e = pcall(error, {err = {}}) return {type(e), type(e.err)}",
		"local ok, e = pcall(error, {msg = 'y'}) return {type(e), e.msg}",
		"local ok, e = xpcall(function() return redis.call('nosuch') end, function(e) return e end) return {type(e), e.err}",
		"return {pcall(function(a, b) return a + b, 'two' end, 1, 2)}",
		"return {pcall(redis.call, 'incr', 'k', 'x')}",
		// The globals and libraries are read-only, their metatables too.
		"setmetatable(_G, {})",
		"local g = getmetatable(_G) g.__index = {}",
		"return type(getmetatable(_G))",
		"return {pcall(setmetatable, string, {})}",
		"return {pcall(setmetatable, getmetatable(_G), {})}",
		"return {pcall(setmetatable, KEYS, {})}",
		"return {pcall(rawset, _G, 'x', 1)}",
		"rawset(_G, 'x', 1)",
		"return {pcall(table.insert, cjson, 1)}",
		"table.insert(cjson, 1)",
		"local mt = getmetatable(_G) return {type(mt), pcall(function() mt.x = 1 end)}",
		"return {redis.sha1hex(12)}",
		"return redis.sha1hex('a', 'b')",
	} {
		script = append(script, []string{"EVAL", body, "0"})
	}
	harness.Differ(t, script)
}

// A script's commands count in INFO commandstats and errorstats as in
// Redis: a refused call as rejected, an error a command met once, even when
// the script ends with it.
func TestDifferentialScriptErrorStats(t *testing.T) {
	usec := regexp.MustCompile(`usec=[0-9]+,usec_per_call=[0-9.]+,`)
	stats := func(r *harness.Conn, cmd []string) any {
		if cmd[0] != "STATS" {
			return r.Do(cmd...)
		}
		var lines []string
		for _, section := range []string{"commandstats", "errorstats", "stats"} {
			for _, l := range strings.Split(r.Do("INFO", section).(string), "\r\n") {
				if strings.HasPrefix(l, "cmdstat_") && !strings.HasPrefix(l, "cmdstat_config") || strings.HasPrefix(l, "errorstat_") ||
					strings.HasPrefix(l, "total_error_replies:") {
					lines = append(lines, usec.ReplaceAllString(l, ""))
				}
			}
		}
		sort.Strings(lines)
		return lines
	}
	var script [][]string
	for _, body := range []string{
		"return redis.call('select', 99)", "local t = redis.pcall('select', 99) return 1", "return redis.pcall('select', 99)",
		"return redis.call('nosuch')", "return redis.pcall('nosuch')", "return redis.call('incr', 'a', 'b')",
		"redis.pcall('incr', 'a', 'b') redis.pcall('nosuch') redis.pcall('lpush', 's', 'x') return 1",
		"return {err = 'MYERR x'}", "error('boom')", "return redis.call('get', 's')",
	} {
		script = append(script, []string{"SET", "s", "1"}, []string{"CONFIG", "RESETSTAT"}, []string{"EVAL", body, "0"}, []string{"STATS"})
	}
	harness.DifferRun(t, script, stats, reflect.DeepEqual)
}

// cmsgpack packs and unpacks byte for byte as Redis's lua-cmsgpack: the
// smallest integer and float forms, string and array length classes, and a
// uint 64 unpacked as the signed integer it converts to (2^64-1 is -1).
func TestDifferentialScriptMsgpack(t *testing.T) {
	var script [][]string
	for _, n := range []string{"0", "127", "128", "255", "256", "65535", "65536", "4294967295", "4294967296", "-1", "-32", "-33",
		"-128", "-129", "-32768", "-32769", "-2147483648", "-2147483649", "9007199254740993", "-9223372036854775808", "1.5", "0.1",
		"-0", "5e-324", "3.4028234663852886e38", "1e39", "16777217", "inf", "x", strings.Repeat("a", 31), strings.Repeat("a", 32),
		strings.Repeat("a", 256), strings.Repeat("a", 65536)} {
		script = append(script, []string{"EVAL", "return cmsgpack.pack(tonumber(ARGV[1]) or ARGV[1])", "0", n})
	}
	for _, n := range []string{"15", "16", "65535", "65536"} {
		script = append(script, []string{"EVAL", "local t = {} for i = 1, tonumber(ARGV[1]) do t[i] = i end return #cmsgpack.pack(t)", "0", n})
	}
	for _, b := range []string{"\xcf\xff\xff\xff\xff\xff\xff\xff\xff", "\xcf\x80\x00\x00\x00\x00\x00\x00\x01",
		"\xd3\x80\x00\x00\x00\x00\x00\x00\x00", "\xce\xff\xff\xff\xff", "\xca\x3f\xc0\x00\x00", "\x93\x01\xa1a\xc3",
		"\x92\x01", "\xc1", "\xdc\x00\x02\x01\x02", "\xd9\x03abc", "\x91\x91\x91\xc0"} {
		script = append(script, []string{"EVAL", "local t = {cmsgpack.unpack(ARGV[1])} for i, v in ipairs(t) do " +
			"if type(v) == 'number' then t[i] = {math.floor(v / 2^32), v % 2^32} end end return t", "0", b})
	}
	harness.Differ(t, script)
}

// What a script returns becomes a reply as in Redis's luaReplyToRedisReply:
// the tables of each RESP3 type in either protocol, status and error texts
// read as C strings and kept on one line, redis.error_reply's CODE split,
// and the error tables redis.pcall hands the script. Compared as sent.
func TestDifferentialScriptReplies(t *testing.T) {
	harness.DifferRun(t, [][]string{
		{"SET", "s", "abc"},
		{"EVAL", "return {{double=-1/0}, {double='1.5'}, {big_number=ARGV[1]}, {map={a={set={b=true}}}}, {set={ARGV[1]}}}", "0", "1\r\n2"},
		{"EVAL", "return {verbatim_string={format=ARGV[1], string='xy'}}", "0", "markdown"},
		{"EVAL", "return {verbatim_string={format=ARGV[1], string='xy'}}", "0", "t"},
		{"EVAL", "return {verbatim_string={format='txt'}, map={}}", "0"},
		{"EVAL", "return {redis.status_reply(ARGV[1]), {ok=ARGV[2]}, {err=ARGV[2]}, {err=ARGV[3]}, {err=ARGV[4]}}", "0", "x\r\ny", "a\x00b", "-", "z\r\n"},
		{"EVAL", "return {redis.error_reply(ARGV[1]), redis.error_reply(ARGV[2]), redis.error_reply(ARGV[3]), redis.error_reply(ARGV[4]), redis.error_reply(ARGV[5])}", "0", "x", "", "a\x00 b", "-a b\r\n", "\r\n-c"},
		{"EVAL", "error({err=ARGV[1]})", "0", "-ERR x\r\n"},
		{"EVAL", "error({err=ARGV[1]})", "0", "a\x00b"},
		{"EVAL", "local t = {} for k, v in pairs(redis.pcall(ARGV[1])) do t[#t+1] = k .. '=' .. tostring(v) end table.sort(t) return t", "0", "nosuch"},
		{"EVAL", "local t = {} for k, v in pairs(redis.pcall('incr', 's')) do t[#t+1] = k .. '=' .. tostring(v) end table.sort(t) return t", "0"},
		{"EVAL", "local t = {} for k, v in pairs(redis.pcall('set', 'x', {})) do t[#t+1] = k .. '=' .. tostring(v) end table.sort(t) return t", "0"},
	}, exactReply, reflect.DeepEqual)
}

// exactReply sends cmd and reads its reply as sent: the format of a
// verbatim string and a big number too, which raw.do does not tell apart.
func exactReply(r *harness.Conn, cmd []string) any {
	r.T.Helper()
	r.Send(harness.Encode(cmd...))
	v, err := harness.ReadRV(r.Reader)
	if err != nil {
		r.T.Fatalf("read reply: %v", err)
	}
	return v.String()
}

// Scripts are atomic: a read-modify-write in Lua from many clients at once
// loses no update.
func TestScriptAtomicity(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	incr := redis.NewScript(`local v = tonumber(redis.call('get', KEYS[1]) or '0') redis.call('set', KEYS[1], v + 1) return v + 1`)
	const clients, each = 8, 200
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := s.Client(t)
			for range each {
				if err := incr.Run(ctx, c, []string{"counter"}).Err(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got, _ := s.Client(t).Get(ctx, "counter").Int(); got != clients*each {
		t.Fatalf("counter = %d after %d scripted increments", got, clients*each)
	}
}

// A script's writes are logged as their effects: after a restart the data
// is what the script left, and a script that failed halfway keeps what it
// wrote before failing, as in Redis.
func TestScriptEffectsSurviveRestart(t *testing.T) {
	harness.OutOfProcess(t)
	dir := t.TempDir()
	p := harness.StartBinary(t, "--dir", dir, "--appendonly", "yes", "--appendfsync", "always")
	c := p.Client(t)
	ctx := context.Background()
	if err := c.Eval(ctx, "redis.call('set', KEYS[1], 'a') redis.call('rpush', KEYS[2], ARGV[1], ARGV[2]) return redis.call('spop', KEYS[3])", []string{"k", "l", "s"}, "x", "y").Err(); err != redis.Nil {
		t.Fatalf("eval: %v", err)
	}
	c.SAdd(ctx, "set", "1", "2", "3")
	popped, err := c.Eval(ctx, "return redis.call('spop', KEYS[1])", []string{"set"}).Text()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Eval(ctx, "redis.call('set', 'half', '1') error('stop')", nil).Err(); err == nil || !strings.Contains(err.Error(), "stop") {
		t.Fatalf("failing script: %v", err)
	}
	r := (&harness.Server{Addr: p.Addr}).Raw(t)
	if _, err := r.NetConn.Write([]byte(harness.Req("SHUTDOWN"))); err != nil {
		t.Fatal(err)
	}
	if code := p.Wait(t); code != 0 {
		t.Fatalf("exit code %d after SHUTDOWN", code)
	}
	p = harness.StartBinary(t, "--dir", dir, "--appendonly", "yes")
	c = p.Client(t)
	if v, _ := c.Get(ctx, "k").Result(); v != "a" {
		t.Errorf("k = %q", v)
	}
	if l, _ := c.LRange(ctx, "l", 0, -1).Result(); strings.Join(l, ",") != "x,y" {
		t.Errorf("l = %q", l)
	}
	if ok, _ := c.SIsMember(ctx, "set", popped).Result(); ok {
		t.Errorf("SPOP's %q is back after the restart", popped)
	}
	if n, _ := c.SCard(ctx, "set").Result(); n != 2 {
		t.Errorf("set has %d members", n)
	}
	if v, _ := c.Get(ctx, "half").Result(); v != "1" {
		t.Errorf("half = %q: the write before the error was lost", v)
	}
}

// A push from a script serves a blocked client when the script ends; a
// script's write fails a WATCHing transaction and publishes its keyspace
// events.
func TestScriptWakesWatchesAndNotifies(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	c := s.Client(t)
	b := s.Client(t)
	got := make(chan []string, 1)
	go func() {
		v, err := b.BLPop(ctx, 5*time.Second, "q").Result()
		if err != nil {
			t.Error(err)
		}
		got <- v
	}()
	ctl := s.Raw(t)
	harness.WaitBlocked(t, ctl, 1)
	c.Eval(ctx, "redis.call('rpush', KEYS[1], 'a', 'b') return redis.call('llen', KEYS[1])", []string{"q"})
	if v := <-got; strings.Join(v, ",") != "q,a" {
		t.Errorf("BLPOP served %q", v)
	}
	if n, _ := c.LLen(ctx, "q").Result(); n != 1 {
		t.Errorf("LLEN after serving = %d", n)
	}

	w := s.Raw(t)
	w.Expect(harness.Status("OK"), "WATCH", "wk")
	c.Eval(ctx, "return redis.call('set', KEYS[1], '1')", []string{"wk"})
	w.Expect(harness.Status("OK"), "MULTI")
	w.Expect(harness.Status("QUEUED"), "SET", "wk", "2")
	w.Expect(nil, "EXEC")

	r := harness.NewEventRecorder(t, s, "KEA")
	if _, ev := r.Run("EVAL", "redis.call('set', KEYS[1], 'v') redis.call('del', KEYS[1])", "1", "ek"); strings.Join(ev, "|") != strings.Join(harness.KeyEvents("set", "ek", "del", "ek"), "|") {
		t.Errorf("events %q", ev)
	}
}

// SCRIPT KILL stops a script that has not written; one that has is
// UNKILLABLE, as in Redis. Meanwhile other clients wait rather than fail.
func TestScriptKill(t *testing.T) {
	harness.OutOfProcess(t)
	p := harness.StartBinary(t)
	ctx := context.Background()
	c, ctl := p.Client(t), p.Client(t)
	for _, tc := range []struct{ body, want string }{
		{"while true do end", "ERR Script killed by user with SCRIPT KILL... script: "},
		{"local t = {} while true do t[1] = redis.call('get', 'k') end", "ERR Script killed by user with SCRIPT KILL... script: "},
	} {
		done := make(chan error, 1)
		go func() { done <- c.Eval(ctx, tc.body, nil).Err() }()
		harness.Eventually(t, "the script running", func() bool { return ctl.ScriptKill(ctx).Err() == nil })
		if err := <-done; err == nil || !strings.HasPrefix(err.Error(), tc.want) || !strings.HasSuffix(err.Error(), ", on @user_script:1.") {
			t.Errorf("%q killed: %v", tc.body, err)
		}
	}
	if err := ctl.ScriptKill(ctx).Err(); err == nil || err.Error() != "NOTBUSY No scripts in execution right now." {
		t.Errorf("SCRIPT KILL with nothing running: %v", err)
	}
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("after the kills: %v", err)
	}
	// A script that wrote cannot be killed. Meanwhile commands on the keys it
	// touched, and every multi-key command, wait for it; a command on another
	// key runs (the outcome is still as if the script ran alone).
	// A SCRIPT KILL that lands before the script's SET stops it (it had not
	// written yet); then it is sent again.
	spin := (&harness.Server{Addr: p.Addr}).Raw(t)
	spinEval := harness.Req("EVAL", "redis.call('set', 'w', '1') while true do end", "0")
	spin.Send(spinEval)
	harness.Eventually(t, "UNKILLABLE", func() bool {
		err := ctl.ScriptKill(ctx).Err()
		if err == nil {
			if v, ok := spin.Read().(harness.Err); !ok || !strings.HasPrefix(string(v), "ERR Script killed") {
				t.Fatalf("killed script answered %v", v)
			}
			spin.Send(spinEval)
		}
		return err != nil && strings.HasPrefix(err.Error(), "UNKILLABLE Sorry the script already executed write commands")
	})
	for _, args := range [][]string{{"GET", "w"}, {"MSET", "x", "1", "y", "2"}} {
		g := (&harness.Server{Addr: p.Addr}).Raw(t)
		g.Send(harness.Req(args...))
		g.NetConn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if _, err := g.Reader.ReadByte(); !harness.IsTimeout(err) {
			t.Errorf("%q answered (%v) while the script ran", args, err)
		}
	}
	if v, err := ctl.Get(ctx, "k").Result(); v != "v" || err != nil {
		t.Errorf("GET of a key the script did not touch: %q %v", v, err)
	}
}

// A transaction over several shards, then a script: EXEC's gate is
// released once, so the script (which needs the whole gate) still runs.
func TestScriptAfterTransaction(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	for range 3 {
		r.Expect(harness.Status("OK"), "MULTI")
		r.Expect(harness.Status("QUEUED"), "SET", "a", "1")
		r.Expect(harness.Status("QUEUED"), "SET", "b", "2")
		r.Expect(harness.Status("QUEUED"), "MSET", "c", "3", "d", "4")
		r.Exact("EXEC")
		r.NetConn.SetReadDeadline(time.Now().Add(5 * time.Second))
		r.Expect(int64(4), "EVAL", "return #redis.call('mget', 'a', 'b', 'c', 'd')", "0")
	}
}

// A script that writes in another database (SELECT inside it) serves the
// clients blocked there when it ends.
func TestScriptServesWaitersInOtherDatabase(t *testing.T) {
	s := harness.Start(t)
	ctx := context.Background()
	b := s.Client(t, func(o *redis.Options) { o.DB = 3 })
	got := make(chan string, 1)
	go func() {
		v, err := b.BLPop(ctx, 5*time.Second, "q").Result()
		got <- fmt.Sprint(v, err)
	}()
	harness.WaitBlocked(t, s.Raw(t), 1)
	if err := s.Client(t).Eval(ctx, "redis.call('select', 3) return redis.call('rpush', 'q', 'x')", nil).Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case v := <-got:
		if v != "[q x] <nil>" {
			t.Errorf("BLPOP in db 3: %s", v)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the client blocked in db 3 was not served by the script's push")
	}
}

// SHUTDOWN stops a script stuck in a loop, even one that has written (which
// SCRIPT KILL refuses), and the server exits cleanly.
func TestShutdownStopsRunningScript(t *testing.T) {
	harness.OutOfProcess(t)
	p := harness.StartBinary(t)
	ctx := context.Background()
	ctl := p.Client(t)
	spin := (&harness.Server{Addr: p.Addr}).Raw(t)
	loop := harness.Req("EVAL", "redis.call('set', 'w', '1') while true do end", "0")
	spin.Send(loop + loop) // the second must not start once the first is stopped
	harness.Eventually(t, "the script running", func() bool {
		err := ctl.ScriptKill(ctx).Err()
		return err != nil && strings.HasPrefix(err.Error(), "UNKILLABLE")
	})
	sd := (&harness.Server{Addr: p.Addr}).Raw(t)
	sd.Send(harness.Req("SHUTDOWN", "NOSAVE"))
	if code := p.Wait(t); code != 0 {
		t.Fatalf("exit code %d after SHUTDOWN during a script; stderr:\n%s", code, p.Stderr)
	}
}

// TestDifferentialCmsgpack compares lua-cmsgpack with Redis's: the bytes
// pack makes for each type and size class, and what unpack, unpack_one and
// unpack_limit give back (BullMQ passes job options this way).
func TestDifferentialCmsgpack(t *testing.T) {
	pack := "return cmsgpack.pack(0, 1, -1, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296, -32, -33, -128, -129, " +
		"-32768, -32769, -2147483648, -2147483649, 1.5, 0.1, 1e300, 1/0, -1/0, 'abc', '', string.rep('x', 31), string.rep('x', 32), " +
		"string.rep('y', 300), string.rep('z', 70000), true, false, {1, 2, 3}, {a = 1}, {}, {{{}}}, {[1] = 'a', [3] = 'c'}, " +
		"{['1'] = 'one'}, string.rep('w', 16))"
	deep := "local t = {} local c = t for i = 1, 20 do c[1] = {} c = c[1] end return cmsgpack.pack(t)"
	var wide strings.Builder
	wide.WriteString("local t = {} for i = 1, 70000 do t[i] = i end local s = cmsgpack.pack(t) " +
		"local u = cmsgpack.unpack(s) return {#s, #u, u[1], u[70000]}")
	harness.Differ(t, [][]string{
		{"EVAL", pack, "0"},
		{"EVAL", deep, "0"},
		{"EVAL", wide.String(), "0"},
		{"EVAL", "return {cmsgpack.unpack(cmsgpack.pack(1, 'two', {3, 4}, {k = 'v'}, true))}", "0"},
		{"EVAL", "local t = cmsgpack.unpack(ARGV[1]) return {t.name, t.attempts, t.delay, t.lifo}", "0",
			"\x84\xa4name\xa5email\xa8attempts\x03\xa5delay\xcd\x03\xe8\xa4lifo\xc2"},
		{"EVAL", "return {cmsgpack.unpack_one(ARGV[1])}", "0", "\x01\x02\x03"},
		{"EVAL", "return {cmsgpack.unpack_one(ARGV[1], 2)}", "0", "\x01\x02\x03"},
		{"EVAL", "return {cmsgpack.unpack_limit(ARGV[1], 2)}", "0", "\x01\x02\x03"},
		{"EVAL", "return {cmsgpack.unpack_limit(ARGV[1], 2, 1)}", "0", "\x01\x02\x03"},
		{"EVAL", "return {cmsgpack.unpack(ARGV[1])}", "0", "\xd9\x03abc\xa2hi\xcf\x00\x00\x00\x01\x00\x00\x00\x00\xd3\xff\xff\xff\xff\xff\xff\xff\xff"},
		{"EVAL", "return {cmsgpack.unpack(ARGV[1])}", "0", "\xca\x3f\xc0\x00\x00\xcb\x40\x09\x21\xfb\x54\x44\x2d\x18"},
		{"EVAL", "return pcall(cmsgpack.unpack, ARGV[1])", "0", "\x92\x01"},
		{"EVAL", "return pcall(cmsgpack.unpack, ARGV[1])", "0", "\xc1"},
		{"EVAL", "return cmsgpack.unpack(ARGV[1])", "0", "\xc4\x02hi"}, // no bin types in Redis's copy
		{"EVAL", "return cmsgpack.unpack(ARGV[1])", "0", "\x92\x01"},
		{"EVAL", "return pcall(cmsgpack.unpack_limit, ARGV[1], 1, 9)", "0", "\x01"},
		{"EVAL", "return pcall(cmsgpack.unpack_limit, ARGV[1], -1)", "0", "\x01"},
	})
}

// TestCmsgpackEdges covers what Redis's lua-cmsgpack does that the bytes of
// one call do not show: a map packs the same every time, unpack_limit's
// limit 0 (everything without an offset at offset 0, nothing after it),
// numeric strings as numbers, deep nesting, and a table holding itself
// (the cap on what that packs is tested in internal/script).
func TestCmsgpackEdges(t *testing.T) {
	s := harness.Start(t)
	r := s.Raw(t)
	first := r.Exact("EVAL", "return cmsgpack.pack({a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8})", "0")
	for range 20 {
		if again := r.Exact("EVAL", "return cmsgpack.pack({a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8})", "0"); again != first {
			t.Fatalf("a map packed differently: %q then %q", first, again)
		}
	}
	harness.Differ(t, [][]string{
		{"EVAL", "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 0)}", "0"},
		{"EVAL", "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 0, 1)}", "0"},
		{"EVAL", "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), '2')}", "0"},
		{"EVAL", "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), '1')}", "0"},
		{"EVAL", "return type(cmsgpack.unpack(string.rep(string.char(0x91), 3000) .. string.char(1)))", "0"},
		{"EVAL", "local t = {} for i = 1, 2 do t[i] = t end return cmsgpack.pack(t)", "0"},
	})
	s.NoPanics(t)
}

// TestScriptBusy: once a script has run longer than busy-reply-threshold,
// other clients' commands get BUSY, as in Redis, but for those allowed
// while busy (MULTI, SCRIPT KILL, ...); a transaction that met BUSY aborts.
// Checked against Redis too when it is installed.
func TestScriptBusy(t *testing.T) {
	servers := map[string]*harness.Server{"hotkv": harness.Start(t)}
	if harness.RedisServerPath() != "" {
		servers["redis"] = harness.StartRedis(t)
	}
	const (
		busyScript   = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
		busyFunction = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
	)
	for name, s := range servers {
		t.Run(name, func(t *testing.T) {
			ctl, spin, killer := s.Raw(t), s.Raw(t), s.Raw(t)
			ctl.Expect(harness.Status("OK"), "CONFIG", "SET", "busy-reply-threshold", "100")
			ctl.Do("FUNCTION", "LOAD", "REPLACE", "#!lua name=busylib\nredis.register_function('spin', function() while true do end end)")
			for _, tc := range []struct {
				run  []string
				kill []string
				busy string
			}{
				{[]string{"EVAL", "while true do end", "0"}, []string{"SCRIPT", "KILL"}, busyScript},
				{[]string{"FCALL", "spin", "0"}, []string{"FUNCTION", "KILL"}, busyFunction},
			} {
				spin.Send(harness.Encode(tc.run...))
				harness.Eventually(t, "BUSY", func() bool { return reflect.DeepEqual(ctl.Do("PING"), harness.Err(tc.busy)) })
				ctl.Expect(harness.Status("OK"), "MULTI")
				ctl.Expect(harness.Err(tc.busy), "INCR", "x")
				killer.Expect(harness.Status("OK"), tc.kill...)
				if got, ok := spin.Read().(harness.Err); !ok || !strings.Contains(string(got), "killed by user") {
					t.Fatalf("%q after the kill: %v", tc.run, got)
				}
				ctl.Expect(harness.Err("EXECABORT Transaction discarded because of previous errors."), "EXEC")
				ctl.Expect(harness.Status("PONG"), "PING")
			}
		})
	}
}
