// Package filter is the expression language of Redis vector sets' VSIM
// FILTER option: expressions such as
//
//	.year >= 1980 and .year < 1990 and .genre in ["action", "drama"]
//
// over each element's JSON attributes. Compile parses an expression once;
// Eval runs it against one element's attributes.
//
// The behaviour is Redis 8.0.2's (modules/vector-sets expr.c and fastjson.c),
// quirks included, because a client must not see a difference: string
// literals keep their backslashes, a selector missing from the attributes
// makes the whole expression false, values of mixed types compare as
// numbers, a doubled "!" is a syntax error, "null" is read but ignored, and
// syntax errors report where Redis reports them.
//
// It imports nothing from HotKV.
package filter
