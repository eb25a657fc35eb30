package commands

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hotkv/hotkv/tests/internal/harness"
)

// The GEO commands against a real Redis 8.0.2: replies compared byte for
// byte (differBytes, which also catches a double written with other digits
// that parse to the same value) where no distance is computed, else parsed
// with numbers allowed to differ in their last digits (geoDiffer).

// geoSicily is Redis's documentation example plus neighbours.
var geoSicily = [][]string{
	{"GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
	{"GEOADD", "Sicily", "12.758489", "38.788135", "edge1", "17.241510", "38.788135", "edge2"},
	{"GEOADD", "Sicily", "14.2454", "40.8518", "Naples", "13.5833", "37.3167", "Agrigento", "15.55", "38.1833", "Messina"},
}

// TestGeoDifferentialBasics: GEOADD's options and errors, GEOPOS, GEOHASH
// and GEODIST in every unit, GEO commands on plain sorted sets (any score
// decodes), Z* commands on geo sets, WRONGTYPE and arity.
func TestGeoDifferentialBasics(t *testing.T) {
	script := append([][]string{}, geoSicily...)
	script = append(script, [][]string{
		// GEOADD: options, replies, errors in Redis's order.
		{"GEOADD", "g", "1", "2", "a"}, {"GEOADD", "g", "1", "2", "a"}, {"GEOADD", "g", "CH", "1", "2.5", "a"},
		{"GEOADD", "g", "NX", "3", "4", "a", "5", "6", "b"}, {"GEOADD", "g", "XX", "7", "8", "a", "9", "10", "c"},
		{"GEOADD", "g", "XX", "CH", "7", "8.5", "a", "9", "10", "c"}, {"GEOADD", "g", "NX", "CH", "7", "8", "a"},
		{"GEOADD", "g", "ch", "nx", "1", "1", "d"}, {"GEOADD", "g", "NX", "XX", "1", "1", "e"},
		{"GEOADD", "g", "1", "1", "dup", "2", "2", "dup"}, {"GEOADD", "g", "CH", "3", "3", "dup", "3", "3", "dup"},
		{"GEOADD", "nokey", "XX", "1", "1", "a"}, {"EXISTS", "nokey"}, {"GEOADD", "nokey", "XX", "CH", "1", "1", "a"},
		{"GEOADD", "g", "1", "2"}, {"GEOADD", "g", "1", "2", "a", "3"}, {"GEOADD", "g", "CH", "CH", "CH"},
		{"GEOADD", "g", "NX", "CH", "XX"}, {"GEOADD", "g", "GT", "1", "2", "a"}, {"GEOADD", "g", "GT", "1", "a"},
		{"GEOADD", "g", "INCR", "1", "2"}, {"GEOADD", "g"},
		{"GEOADD", "g", "x", "2", "a"}, {"GEOADD", "g", "1", "y", "a"}, {"GEOADD", "g", "1", "2", "a", "x", "y", "b"},
		{"GEOADD", "g", "180.0001", "0", "a"}, {"GEOADD", "g", "-180.0001", "0", "a"}, {"GEOADD", "g", "0", "85.05112879", "a"},
		{"GEOADD", "g", "0", "-85.0511288", "a"}, {"GEOADD", "g", "200", "100", "a"}, {"GEOADD", "g", "inf", "1", "a"},
		{"GEOADD", "g", "1", "-inf", "a"}, {"GEOADD", "g", "nan", "1", "a"}, {"GEOADD", "g", "1e400", "1", "a"},
		{"GEOADD", "g", "1e-400", "1", "a"}, {"GEOADD", "g", " 1", "1", "a"}, {"GEOADD", "g", "0x10", "0x1p3", "hex"},
		{"GEOADD", "g", "1.5e1", "-2E0", "exp"}, {"GEOADD", "g", "1e-310", "-0", "tiny"},
		{"GEOADD", "g", "1", "2", "a", "500", "2", "b"}, {"GEOPOS", "g", "a", "b"},
		{"ZRANGE", "g", "0", "-1", "WITHSCORES"}, {"ZCARD", "g"}, {"TYPE", "g"}, {"OBJECT", "ENCODING", "g"},
		// Over 128 pairs make a listpack set a skiplist even when they add
		// nothing new (ZADD's zsetTypeMaybeConvert); a long member does too.
		geoRepeat("g", 128), {"OBJECT", "ENCODING", "g"}, geoRepeat("g", 129), {"OBJECT", "ENCODING", "g"},
		{"GEOADD", "lp", "1", "1", "a"}, {"GEOADD", "lp", "XX", "1", "1", strings.Repeat("m", 65)}, {"OBJECT", "ENCODING", "lp"},
		{"GEOADD", "lp", "1", "1", strings.Repeat("m", 65)}, {"OBJECT", "ENCODING", "lp"},
		// GEOPOS, GEOHASH.
		{"GEOPOS", "Sicily", "Palermo", "Catania", "nosuch", "edge1", "edge2"}, {"GEOPOS", "Sicily"},
		{"GEOPOS", "nokey", "a", "b"}, {"GEOPOS", "nokey"}, {"GEOHASH", "Sicily", "Palermo", "Catania", "nosuch"},
		{"GEOHASH", "nokey", "a"}, {"GEOHASH", "Sicily"}, {"GEOHASH", "g", "hex", "exp", "tiny", "dup"},
		// GEODIST: units in any case, errors before the lookup.
		{"GEODIST", "Sicily", "Palermo", "Catania"}, {"GEODIST", "Sicily", "Palermo", "Catania", "m"},
		{"GEODIST", "Sicily", "Palermo", "Catania", "KM"}, {"GEODIST", "Sicily", "Palermo", "Catania", "ft"},
		{"GEODIST", "Sicily", "Palermo", "Catania", "Mi"}, {"GEODIST", "Sicily", "Palermo", "Catania", "yd"},
		{"GEODIST", "Sicily", "Palermo", "Catania", "km", "x"}, {"GEODIST", "Sicily", "Palermo", "nosuch"},
		{"GEODIST", "Sicily", "nosuch", "Palermo", "km"}, {"GEODIST", "nokey", "a", "b"}, {"GEODIST", "nokey", "a", "b", "yd"},
		{"GEODIST", "Sicily", "Palermo", "Palermo"}, {"GEODIST", "Sicily", "Palermo"}, {"GEODIST", "Sicily", "edge1", "edge2", "mi"},
		{"GEODIST", "Sicily", "Palermo", "Catania", "km\x00x"},
		// Z* commands see a geo set; GEO commands read any sorted set.
		{"ZADD", "z", "0", "zero", "1.5", "half", "-5", "neg", "inf", "inf", "-inf", "ninf", "1e20", "big", "9.3e18", "b63",
			"4503599627370496", "p52", "9007199254740991", "p53", "18014398509481983", "p54"},
		{"GEOPOS", "z", "zero", "half", "neg", "inf", "ninf", "big", "b63", "p52", "p53", "p54"},
		{"GEOHASH", "z", "zero", "half", "neg", "inf", "ninf", "big", "b63", "p52", "p53", "p54"},
		{"GEODIST", "z", "zero", "inf"}, {"GEODIST", "z", "neg", "big", "km"},
		{"ZSCORE", "Sicily", "Palermo"}, {"ZRANK", "Sicily", "Catania"}, {"ZREM", "Sicily", "edge1"}, {"GEOPOS", "Sicily", "edge1"},
		// WRONGTYPE, after the arguments that Redis checks first.
		{"SET", "s", "x"}, {"GEOADD", "s", "1", "2", "a"}, {"GEOADD", "s", "x", "2", "a"}, {"GEOADD", "s", "1", "2"},
		{"GEOPOS", "s", "a"}, {"GEOHASH", "s", "a"}, {"GEODIST", "s", "a", "b"}, {"GEODIST", "s", "a", "b", "yd"},
		{"GEORADIUS", "s", "1", "2", "3", "km"}, {"GEORADIUS", "s", "x", "2", "3", "km"},
		{"GEORADIUSBYMEMBER", "s", "a", "3", "km"}, {"GEORADIUS_RO", "s", "1", "2", "3", "km"},
		{"GEORADIUSBYMEMBER_RO", "s", "a", "3", "km"}, {"GEOSEARCH", "s", "FROMLONLAT", "1", "2", "BYRADIUS", "3", "km"},
		{"GEOSEARCHSTORE", "d", "s", "FROMLONLAT", "1", "2", "BYRADIUS", "3", "km"},
		{"GEOSEARCHSTORE", "s", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "300", "km"}, {"TYPE", "s"},
		{"ZRANGE", "s", "0", "-1", "WITHSCORES"}, {"LPUSH", "l", "x"}, {"GEORADIUS", "Sicily", "15", "37", "300", "km", "STORE", "l"},
		{"TYPE", "l"}, {"GEOADD", "l", "1", "1", "x"},
		// Arity.
		{"GEOPOS"}, {"GEOHASH"}, {"GEODIST", "g", "a"}, {"GEORADIUS", "g", "1", "2", "3"}, {"GEORADIUSBYMEMBER", "g", "a", "3"},
		{"GEOSEARCH", "g", "FROMLONLAT", "1", "2", "BYRADIUS"}, {"GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "1", "2", "BYRADIUS"},
	}...)
	differBytes(t, script) // no distance here: every byte is Redis's
}

// TestGeoDifferentialSearchOptions: every search command with every option
// and their errors, in the order Redis checks them, STORE and STOREDIST
// read back with ZRANGE WITHSCORES, missing keys and COMMAND GETKEYS.
func TestGeoDifferentialSearchOptions(t *testing.T) {
	script := append([][]string{}, geoSicily...)
	centers := [][]string{
		{"GEORADIUS", "Sicily", "15", "37"},
		{"GEORADIUS_RO", "Sicily", "15", "37"},
		{"GEORADIUSBYMEMBER", "Sicily", "Palermo"},
		{"GEORADIUSBYMEMBER_RO", "Sicily", "Catania"},
	}
	optionSets := [][]string{{}, {"WITHDIST"}, {"WITHCOORD"}, {"WITHHASH"}, {"WITHDIST", "WITHCOORD", "WITHHASH"},
		{"withhash", "withdist"}, {"ASC"}, {"DESC"}, {"COUNT", "1"}, {"COUNT", "2", "DESC"}, {"COUNT", "3", "ANY"},
		{"COUNT", "2", "ANY", "ASC", "WITHDIST"}, {"COUNT", "100"}, {"ANY", "COUNT", "1"}, {"ASC", "DESC"},
		{"COUNT", "1", "COUNT", "3"}, {"WITHDIST", "DESC", "COUNT", "4", "WITHCOORD"},
		// Errors.
		{"COUNT"}, {"COUNT", "0"}, {"COUNT", "-1"}, {"COUNT", "x"}, {"COUNT", "1.5"}, {"ANY"}, {"ASC", "ANY"},
		{"FOO"}, {"WITHDIST", "FOO"}, {"STORE"}, {"STOREDIST"}, {"FROMMEMBER", "Palermo"}, {"BYRADIUS", "1", "km"},
		{"COUNT", "9223372036854775807"}, {"COUNT", "9223372036854775808"},
	}
	for _, c := range centers {
		for _, r := range [][]string{{"200", "km"}, {"0", "m"}, {"100", "mi"}, {"500000", "ft"}, {"1e5", "KM"}} {
			for _, o := range optionSets {
				script = append(script, geoCat(c, r, o))
			}
		}
		// Radius and unit errors; a missing member before them.
		for _, r := range [][]string{{"-1", "km"}, {"x", "km"}, {"1", "yd"}, {"-1", "yd"}, {"inf", "km"}, {"-0", "m"}, {"nan", "km"}} {
			script = append(script, geoCat(c, r, []string{"WITHDIST"}))
		}
	}
	script = append(script, [][]string{
		{"GEORADIUSBYMEMBER", "Sicily", "nosuch", "100", "km"}, {"GEORADIUSBYMEMBER", "Sicily", "nosuch", "x", "yd"},
		{"GEORADIUSBYMEMBER", "nokey", "a", "x", "yd"}, {"GEORADIUSBYMEMBER", "nokey", "a", "1", "km", "FOO"},
		{"GEORADIUSBYMEMBER", "nokey", "a", "1", "km", "ANY"}, {"GEORADIUS", "nokey", "1", "2", "1", "km"},
		{"GEORADIUS", "nokey", "1", "2", "1", "km", "COUNT", "0"}, {"GEORADIUS", "nokey", "x", "2", "1", "km"},
		{"GEORADIUS", "Sicily", "181", "2", "1", "km"}, {"GEORADIUS", "Sicily", "1", "90", "x", "km"},
		// GEOSEARCH: FROM... and BY... exactly once each, checked after the options.
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"},
		{"GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "200", "km", "ASC", "WITHDIST", "WITHCOORD", "WITHHASH"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "ASC", "WITHDIST"},
		{"GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYBOX", "200", "100", "mi", "DESC", "COUNT", "2"},
		{"GEOSEARCH", "Sicily", "BYRADIUS", "200", "km", "FROMLONLAT", "15", "37", "COUNT", "2", "ANY"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "FROMLONLAT", "13", "38", "BYRADIUS", "200", "km"},
		{"GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "FROMMEMBER", "Catania", "BYRADIUS", "200", "km"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km", "BYRADIUS", "300", "km"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "FROMMEMBER", "Palermo", "BYRADIUS", "200", "km"},
		{"GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "BYBOX", "1", "1", "km"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "1", "km", "BYRADIUS", "200", "km"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "WITHDIST", "WITHCOORD"},
		{"GEOSEARCH", "Sicily", "BYRADIUS", "200", "km", "WITHDIST", "WITHCOORD"},
		{"geosearch", "Sicily", "BYRADIUS", "200", "km", "WITHDIST", "WITHCOORD"},
		{"GeoSearch", "Sicily", "FROMLONLAT", "15", "37", "ASC", "DESC"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "ANY"},
		{"GEOSEARCH", "Sicily", "FROMMEMBER", "nosuch", "BYRADIUS", "200", "km"},
		{"GEOSEARCH", "Sicily", "FROMMEMBER", "nosuch", "BYRADIUS", "x", "km"},
		{"GEOSEARCH", "Sicily", "BYRADIUS", "x", "km", "FROMMEMBER", "nosuch"},
		{"GEOSEARCH", "nokey", "FROMMEMBER", "nosuch", "BYRADIUS", "200", "km"},
		{"GEOSEARCH", "nokey", "FROMMEMBER", "nosuch", "BYBOX", "200", "km"},
		{"GEOSEARCH", "nokey", "FROMMEMBER", "nosuch", "COUNT", "1", "ANY"},
		{"GEOSEARCH", "nokey", "FROMLONLAT", "1", "2", "BYRADIUS", "-1", "km"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "-1", "km"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "yd"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "1"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "BYBOX", "1", "1", "km"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "-1", "1", "km"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "-1", "km"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "x", "-1", "km"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "x", "km"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "-1", "-1", "yd"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "1", "yd"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "x", "37", "BYBOX", "1", "1", "km"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "95", "BYBOX", "1", "1", "km"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "STORE", "d"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "STOREDIST"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km", "COUNT", "0"},
		{"GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km\x00!", "withdist\x00?"},
		// STORE and STOREDIST.
		{"GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d1"}, {"ZRANGE", "d1", "0", "-1", "WITHSCORES"},
		{"GEORADIUS", "Sicily", "15", "37", "200", "km", "STOREDIST", "d2"}, {"ZRANGE", "d2", "0", "-1", "WITHSCORES"},
		{"GEORADIUS", "Sicily", "15", "37", "200", "mi", "STOREDIST", "d2", "COUNT", "1"}, {"ZRANGE", "d2", "0", "-1", "WITHSCORES"},
		{"GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d3", "STOREDIST", "d4"}, {"EXISTS", "d3", "d4"},
		{"ZRANGE", "d4", "0", "-1", "WITHSCORES"}, {"GEORADIUS", "Sicily", "15", "37", "200", "km", "STOREDIST", "d5", "STORE", "d6"},
		{"ZRANGE", "d6", "0", "-1", "WITHSCORES"}, {"EXISTS", "d5"},
		{"GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d1", "WITHDIST"},
		{"GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHHASH", "STORE", "d1"},
		{"GEORADIUS_RO", "Sicily", "15", "37", "200", "km", "STORE", "d1"},
		{"GEORADIUSBYMEMBER_RO", "Sicily", "Palermo", "200", "km", "STOREDIST", "d1"},
		{"GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "STOREDIST", "d7", "DESC", "COUNT", "3"},
		{"ZRANGE", "d7", "0", "-1", "WITHSCORES"}, {"GEORADIUS", "Sicily", "15", "37", "1", "m", "STORE", "d1"}, {"EXISTS", "d1"},
		{"GEORADIUS", "nokey", "15", "37", "1", "km", "STORE", "d2"}, {"EXISTS", "d2"}, {"SET", "d3", "x"},
		{"GEORADIUSBYMEMBER", "nokey", "a", "x", "yd", "STORE", "d3"}, {"EXISTS", "d3"},
		{"GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "Sicily"}, {"ZRANGE", "Sicily", "0", "-1", "WITHSCORES"},
		{"GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
		{"GEOSEARCHSTORE", "d8", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"}, {"ZRANGE", "d8", "0", "-1", "WITHSCORES"},
		{"GEOSEARCHSTORE", "d8", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "STOREDIST"},
		{"ZRANGE", "d8", "0", "-1", "WITHSCORES"}, {"OBJECT", "ENCODING", "d8"},
		{"GEOSEARCHSTORE", "d8", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "500", "km", "STOREDIST", "DESC", "COUNT", "2"},
		{"ZRANGE", "d8", "0", "-1", "WITHSCORES"},
		{"GEOSEARCHSTORE", "d8", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "500", "km", "WITHDIST"},
		{"GEOSEARCHSTORE", "d8", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "500", "km", "STORE", "x"},
		{"GEOSEARCHSTORE", "d8", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "500", "km", "STOREDIST", "x"},
		{"GEOSEARCHSTORE", "d8", "Sicily", "BYRADIUS", "500", "km", "STOREDIST"},
		{"GEOSEARCHSTORE", "d8", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"}, {"EXISTS", "d8"},
		{"GEOSEARCHSTORE", "d8", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "km"}, {"SET", "d9", "v"},
		{"GEOSEARCHSTORE", "d9", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "km"}, {"EXISTS", "d9"},
		{"SET", "d9", "v", "EX", "100"}, {"GEOSEARCHSTORE", "d9", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km"},
		{"TTL", "d9"}, {"TYPE", "d9"},
		{"COMMAND", "GETKEYS", "GEORADIUS", "k", "1", "2", "3", "km", "STORE", "a", "STOREDIST", "b"},
		{"COMMAND", "GETKEYS", "GEORADIUSBYMEMBER", "k", "m", "3", "km", "STORE", "a"},
		{"COMMAND", "GETKEYS", "GEORADIUS", "k", "1", "2", "3", "km"},
		{"COMMAND", "GETKEYS", "GEOSEARCHSTORE", "d", "s", "FROMLONLAT", "1", "2", "BYRADIUS", "3", "km"},
	}...)
	geoDiffer(t, script)
}

// TestGeoDifferentialEdges: the coordinate limits, the antimeridian, the
// equator and the poles' latitude limit, radius 0 and huge radii, boxes
// across the antimeridian, members at the same position (ties in distance,
// sorted as Redis sorts them), and a set large enough to be a skiplist.
func TestGeoDifferentialEdges(t *testing.T) {
	script := [][]string{
		{"GEOADD", "e", "0", "0", "origin", "180", "0", "am+", "-180", "0", "am-", "179.9999", "10", "am1", "-179.9999", "10", "am2",
			"0", "85.05112878", "north", "0", "-85.05112878", "south", "180", "85.05112878", "ne", "-180", "-85.05112878", "sw",
			"0.000001", "0.000001", "near0", "-0.000001", "-0.000001", "near0b", "90", "0", "east", "-90", "0", "west",
			"179.5", "-45", "am3", "-179.5", "-45", "am4", "45", "84.9", "pole1", "-135", "84.9", "pole2", "100", "-84.9", "pole3"},
		{"GEOPOS", "e", "origin", "am+", "am-", "am1", "am2", "north", "south", "ne", "sw", "near0", "near0b", "pole1"},
		{"GEOHASH", "e", "origin", "am+", "am-", "am1", "am2", "north", "south", "ne", "sw", "near0", "near0b", "pole1"},
		{"ZRANGE", "e", "0", "-1", "WITHSCORES"},
		{"GEODIST", "e", "am+", "am-"}, {"GEODIST", "e", "am1", "am2", "km"}, {"GEODIST", "e", "north", "south", "km"},
		{"GEODIST", "e", "origin", "am+", "mi"}, {"GEODIST", "e", "east", "west", "ft"}, {"GEODIST", "e", "pole1", "pole2"},
		{"GEODIST", "e", "near0", "near0b"}, {"GEODIST", "e", "origin", "near0"}, {"GEODIST", "e", "ne", "sw", "km"},
	}
	for _, m := range []string{"origin", "am+", "am-", "am1", "north", "south", "ne", "sw", "pole1", "pole3", "am3"} {
		for _, r := range []string{"0", "1", "100", "1000", "5000", "10000", "20000", "40000", "1e9"} {
			script = append(script, []string{"GEORADIUSBYMEMBER", "e", m, r, "km", "WITHDIST", "ASC"},
				[]string{"GEOSEARCH", "e", "FROMMEMBER", m, "BYBOX", r, r, "km", "WITHCOORD", "DESC"})
		}
	}
	for _, c := range [][2]string{{"0", "0"}, {"180", "0"}, {"-180", "0"}, {"180", "85.05112878"}, {"-180", "-85.05112878"},
		{"179.9", "-85"}, {"0", "85"}, {"-0", "-0"}, {"90", "89"}, {"45", "-80.5"}, {"179.999999", "66.5"}} {
		if c[1] == "89" {
			script = append(script, []string{"GEORADIUS", "e", c[0], c[1], "100", "km"}) // out of range
			continue
		}
		for _, r := range []string{"0", "0.001", "10", "3000", "6000", "12000", "inf"} {
			script = append(script,
				[]string{"GEORADIUS", "e", c[0], c[1], r, "km", "WITHDIST", "WITHHASH", "WITHCOORD", "ASC"},
				[]string{"GEOSEARCH", "e", "FROMLONLAT", c[0], c[1], "BYBOX", r, "1000", "km", "WITHDIST", "ASC"},
				[]string{"GEOSEARCH", "e", "FROMLONLAT", c[0], c[1], "BYBOX", "1000", r, "km", "WITHDIST", "DESC"})
		}
	}
	// Longitude 180 needs a 54-bit score: the double drops the lowest
	// latitude bit. Scores that are not geohashes decode somewhere too.
	script = append(script,
		[]string{"GEOADD", "e", "180", "14.7563910975", "odd1", "180", "-33.3333333", "odd2", "-180", "14.7563910975", "odd3"},
		[]string{"GEOPOS", "e", "odd1", "odd2", "odd3"}, []string{"ZSCORE", "e", "odd1"},
		[]string{"GEORADIUS", "e", "180", "14.7563910975", "1", "km", "WITHDIST", "WITHHASH", "WITHCOORD"},
		[]string{"ZADD", "w", "1.5", "frac", "0.25", "quarter", "-3", "neg", "1e16", "huge", "3479099956230698.5", "palermo"},
		[]string{"GEORADIUS", "w", "-180", "-85.05112878", "1", "km", "WITHDIST", "WITHHASH", "WITHCOORD"},
		[]string{"GEORADIUS", "w", "13.361389", "38.115556", "1", "km", "WITHDIST", "WITHHASH", "WITHCOORD"},
		[]string{"GEOSEARCHSTORE", "wd", "w", "FROMLONLAT", "-180", "-85.05112878", "BYRADIUS", "1", "km"},
		[]string{"ZRANGE", "wd", "0", "-1", "WITHSCORES"}, []string{"GEOPOS", "w", "frac", "quarter", "neg", "huge"},
		[]string{"GEORADIUSBYMEMBER", "w", "huge", "100", "km", "WITHCOORD"}, []string{"GEORADIUSBYMEMBER", "w", "neg", "100", "km", "WITHCOORD"})
	// Centres a hair off a member's meridian: the haversine, not the
	// same-meridian shortcut, whatever the size of the difference.
	script = append(script, []string{"GEOADD", "hair", "13.361389", "38.115556", "Palermo", "13.361389", "38.5", "north"})
	for _, lon := range []string{"13.361389338970184", "13.361389338970186", "13.36138933897018", "13.3613893389702", "13.361389338"} {
		script = append(script,
			[]string{"GEOSEARCHSTORE", "hd", "hair", "FROMLONLAT", lon, "38.3", "BYRADIUS", "100", "km", "STOREDIST"},
			[]string{"ZRANGE", "hd", "0", "-1", "WITHSCORES"},
			[]string{"GEOSEARCH", "hair", "FROMLONLAT", lon, "38.3", "BYBOX", "100", "100", "km", "WITHDIST"})
	}
	// Antipodes: the longest distances, around asin(1).
	for _, p := range [][4]string{{"0", "0", "180", "0"}, {"13.361389", "38.115556", "-166.638611", "-38.115556"},
		{"-73.98", "40.75", "106.02", "-40.75"}, {"179.9999", "10", "-0.0001", "-10"}, {"45", "85", "-135", "-85"}} {
		script = append(script, []string{"GEOADD", "anti", p[0], p[1], "a" + p[0], p[2], p[3], "b" + p[0]},
			[]string{"GEODIST", "anti", "a" + p[0], "b" + p[0], "km"},
			[]string{"GEOSEARCH", "anti", "FROMLONLAT", p[2], p[3], "BYRADIUS", "20040", "km", "WITHDIST", "ASC"},
			[]string{"GEORADIUSBYMEMBER", "anti", "a" + p[0], "20037", "km", "WITHDIST", "DESC"})
	}
	// Ties: members at one position, sorted fully (stable) and partially
	// (COUNT: Redis's partial quicksort), around them and from afar.
	ties := []string{"GEOADD", "t"}
	for i := 0; i < 60; i++ {
		lon, lat := "13.361389", "38.115556"
		if i%3 == 1 {
			lon, lat = "13.461389", "38.215556"
		}
		ties = append(ties, lon, lat, fmt.Sprintf("m%02d", (i*37)%60))
	}
	script = append(script, ties)
	for _, o := range [][]string{{}, {"ASC"}, {"DESC"}, {"COUNT", "5"}, {"COUNT", "17", "DESC"}, {"COUNT", "41"},
		{"COUNT", "7", "ANY"}, {"COUNT", "7", "ANY", "DESC"}, {"COUNT", "59", "ASC"}, {"COUNT", "60", "ASC"}} {
		for _, at := range [][2]string{{"13.361389", "38.115556"}, {"13.4", "38.2"}, {"20", "40"}} {
			script = append(script, geoCat([]string{"GEORADIUS", "t", at[0], at[1], "2000", "km"}, o),
				geoCat([]string{"GEOSEARCH", "t", "FROMLONLAT", at[0], at[1], "BYRADIUS", "2000", "km", "WITHDIST"}, o))
		}
		script = append(script, geoCat([]string{"GEOSEARCHSTORE", "td", "t", "FROMLONLAT", "20", "40", "BYRADIUS", "2000", "km", "STOREDIST"}, o),
			[]string{"ZRANGE", "td", "0", "-1", "WITHSCORES"})
	}
	geoDiffer(t, script)
}

// TestGeoDifferentialRandom adds a few hundred random positions (spread
// over the globe, clustered, near the antimeridian and the latitude
// limits, repeated) to a listpack-size set and a skiplist-size one, then
// runs random searches of every kind, shape, unit and option, stores them
// and reads the stored sets back with their scores.
func TestGeoDifferentialRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(2024, 802))
	geoDiffer(t, geoRandomScript(r, 400))
}

// TestGeoDifferentialRandomBytes is TestGeoDifferentialRandom's check byte
// for byte, on another seed.
func TestGeoDifferentialRandomBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	geoDiffer(t, geoRandomScript(r, 250))
}

// geoRandomScript builds the random test's commands: the positions, then
// the given number of searches, each maybe followed by a GEODIST.
func geoRandomScript(r *rand.Rand, searches int) [][]string {
	num := func(f float64) string {
		switch r.IntN(3) {
		case 0:
			return strconv.FormatFloat(f, 'f', -1, 64)
		case 1:
			return strconv.FormatFloat(f, 'f', 6, 64)
		}
		return strconv.FormatFloat(f, 'g', 10, 64)
	}
	clamp := func(lon, lat float64) (float64, float64) {
		return math.Max(-180, math.Min(180, lon)), math.Max(-85.05112878, math.Min(85.05112878, lat))
	}
	centers := [][2]float64{{13.36, 38.11}, {-73.98, 40.75}, {139.69, 35.68}, {179.9, -16.5}, {-0.12, 51.5}, {0, 0}}
	var script [][]string
	members := map[string][]string{}
	var pos [][2]float64
	for _, key := range []string{"small", "big"} {
		n := 100
		if key == "big" {
			n = 450
		}
		for i := 0; i < n; i++ {
			var lon, lat float64
			switch k := r.IntN(10); {
			case k < 4:
				lon, lat = r.Float64()*360-180, r.Float64()*170.1-85.05
			case k < 7:
				c := centers[r.IntN(len(centers))]
				spread := math.Pow(10, r.Float64()*3-2)
				lon, lat = c[0]+r.NormFloat64()*spread, c[1]+r.NormFloat64()*spread
			case k < 8:
				lon, lat = 180-r.Float64()*0.5, r.Float64()*170-85
				if r.IntN(2) == 0 {
					lon = -lon
				}
			case k < 9:
				lon, lat = r.Float64()*360-180, 85.05112878-r.Float64()*r.Float64()*2
				if r.IntN(2) == 0 {
					lat = -lat
				}
			default:
				if len(pos) > 0 {
					p := pos[r.IntN(len(pos))]
					lon, lat = p[0], p[1]
				}
			}
			lon, lat = clamp(lon, lat)
			pos = append(pos, [2]float64{lon, lat})
			m := fmt.Sprintf("%s%d", key[:1], i)
			members[key] = append(members[key], m)
			script = append(script, []string{"GEOADD", key, num(lon), num(lat), m})
		}
		script = append(script, []string{"ZRANGE", key, "0", "-1", "WITHSCORES"}, []string{"OBJECT", "ENCODING", key})
	}
	units := []struct {
		name string
		m    float64
	}{{"m", 1}, {"km", 1000}, {"ft", 0.3048}, {"mi", 1609.34}, {"KM", 1000}}
	size := func() (string, string) {
		u := units[r.IntN(len(units))]
		if r.IntN(20) == 0 {
			return "0", u.name
		}
		meters := math.Pow(10, r.Float64()*8-1) // 0.1 m to 10,000 km
		return num(meters / u.m), u.name
	}
	for i := 0; i < searches; i++ {
		key := []string{"small", "big"}[r.IntN(2)]
		ms := members[key]
		var lon, lat float64
		if r.IntN(2) == 0 {
			p := pos[r.IntN(len(pos))]
			lon, lat = p[0]+r.NormFloat64()*0.01, p[1]+r.NormFloat64()*0.01
		} else {
			lon, lat = r.Float64()*360-180, r.Float64()*170.1-85.05
		}
		lon, lat = clamp(lon, lat)
		var cmd []string
		store := r.IntN(4) == 0
		switch r.IntN(5) {
		case 0:
			rad, unit := size()
			cmd = []string{"GEORADIUS", key, num(lon), num(lat), rad, unit}
		case 1:
			rad, unit := size()
			cmd = []string{"GEORADIUSBYMEMBER", key, ms[r.IntN(len(ms))], rad, unit}
		case 2:
			rad, unit := size()
			cmd = []string{"GEORADIUS_RO", key, num(lon), num(lat), rad, unit}
			store = false
		default:
			if store {
				cmd = []string{"GEOSEARCHSTORE", "dst", key}
			} else {
				cmd = []string{"GEOSEARCH", key}
			}
			if r.IntN(2) == 0 {
				cmd = append(cmd, "FROMLONLAT", num(lon), num(lat))
			} else {
				cmd = append(cmd, "FROMMEMBER", ms[r.IntN(len(ms))])
			}
			if r.IntN(2) == 0 {
				rad, unit := size()
				cmd = append(cmd, "BYRADIUS", rad, unit)
			} else {
				w, unit := size()
				h, _ := size()
				if r.IntN(3) == 0 {
					h = w
				}
				cmd = append(cmd, "BYBOX", w, h, unit)
			}
		}
		if !store {
			for _, o := range []string{"WITHDIST", "WITHCOORD", "WITHHASH"} {
				if r.IntN(2) == 0 {
					cmd = append(cmd, o)
				}
			}
		}
		switch r.IntN(4) {
		case 0:
			cmd = append(cmd, "ASC")
		case 1:
			cmd = append(cmd, "DESC")
		}
		if r.IntN(3) == 0 {
			cmd = append(cmd, "COUNT", strconv.Itoa(1+r.IntN(30)))
			if r.IntN(3) == 0 {
				cmd = append(cmd, "ANY")
			}
		}
		if store {
			switch cmd[0] {
			case "GEOSEARCHSTORE":
				if r.IntN(2) == 0 {
					cmd = append(cmd, "STOREDIST")
				}
			default:
				cmd = append(cmd, []string{"STORE", "STOREDIST"}[r.IntN(2)], "dst")
			}
			script = append(script, cmd, []string{"ZRANGE", "dst", "0", "-1", "WITHSCORES"}, []string{"OBJECT", "ENCODING", "dst"})
		} else {
			script = append(script, cmd)
		}
		if r.IntN(4) == 0 {
			a, b := ms[r.IntN(len(ms))], ms[r.IntN(len(ms))]
			script = append(script, []string{"GEODIST", key, a, b, units[r.IntN(len(units))].name})
		}
	}
	for _, key := range []string{"small", "big"} {
		script = append(script, append([]string{"GEOPOS", key}, members[key]...), append([]string{"GEOHASH", key}, members[key]...))
	}
	return script
}

// TestGeoNotifications compares the keyspace events of the GEO commands
// with Redis's: GEOADD publishes zadd, the STORE forms georadiusstore or
// geosearchstore, and an empty result deletes the destination (del).
func TestGeoNotifications(t *testing.T) {
	redis := harness.StartRedis(t)
	hot := harness.Start(t)
	script := [][]string{
		{"GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"},
		{"GEOADD", "g", "13.361389", "38.115556", "Palermo"}, {"GEOADD", "g", "XX", "1", "1", "new"},
		{"GEOADD", "g", "CH", "13", "38", "Palermo"},
		{"GEORADIUS", "g", "15", "37", "200", "km", "STORE", "d1"}, {"GEORADIUSBYMEMBER", "g", "Palermo", "200", "km", "STOREDIST", "d2"},
		{"GEOSEARCHSTORE", "d3", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"},
		{"GEOSEARCHSTORE", "d3", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"},
		{"GEOSEARCHSTORE", "d3", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"},
		{"GEORADIUS", "g", "0", "0", "1", "km", "STORE", "d1"}, {"GEORADIUS", "nokey", "0", "0", "1", "km", "STORE", "d2"},
		{"GEORADIUS", "g", "15", "37", "200", "km"}, {"GEOSEARCH", "nokey", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"},
		{"GEOPOS", "nokey", "a"},
	}
	events := func(s *harness.Server) []any {
		sub := s.Raw(t)
		sub.Do("CONFIG", "SET", "notify-keyspace-events", "KEAm")
		sub.Do("PSUBSCRIBE", "__key*__:*")
		sub.Do("SUBSCRIBE", "end")
		c := s.Raw(t)
		for _, cmd := range script {
			c.Do(cmd...)
		}
		c.Do("PUBLISH", "end", "x")
		var got []any
		for {
			m := sub.Read()
			if a, ok := m.([]any); ok && len(a) == 3 && a[0] == "message" {
				break
			}
			got = append(got, m)
		}
		return got
	}
	want, got := events(redis), events(hot)
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Fatalf("keyspace events differ:\nhotkv: %v\nredis: %v", got, want)
	}
}

// geoRepeat is a GEOADD of n times the same member at the same place.
func geoRepeat(key string, n int) []string {
	cmd := []string{"GEOADD", key}
	for range n {
		cmd = append(cmd, "1", "1", "a")
	}
	return cmd
}

func geoCat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// geoDiffer is harness.Differ allowing numbers to differ in their last digits:
// HotKV computes distances with Go's sin, cos and asin, which round a few
// inputs differently from glibc's (what Redis calls), so a distance can
// differ in its 17th significant digit, and near antipodal points, where
// asin magnifies it, in its 4th decimal (docs/commands/geo.md).
func geoDiffer(t *testing.T, script [][]string) {
	t.Helper()
	harness.DifferWith(t, script, geoClose)
}

// geoClose reports whether two parsed replies are equal, numbers within a
// relative 1e-7 of each other.
func geoClose(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !geoClose(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		if !ok {
			return false
		}
		f, err1 := strconv.ParseFloat(x, 64)
		g, err2 := strconv.ParseFloat(y, 64)
		return err1 == nil && err2 == nil && math.Abs(f-g) <= 1e-7*math.Max(math.Abs(f), math.Abs(g))
	case float64:
		y, ok := b.(float64)
		return ok && math.Abs(x-y) <= 1e-7*math.Max(math.Abs(x), math.Abs(y))
	}
	return false
}

// geoCloseBytes is geoClose for two raw replies.
func geoCloseBytes(a, b []byte) bool {
	x, err1 := harness.ReadReply(bufio.NewReader(bytes.NewReader(a)))
	y, err2 := harness.ReadReply(bufio.NewReader(bytes.NewReader(b)))
	return err1 == nil && err2 == nil && geoClose(x, y)
}

// differBytes is harness.Differ comparing the replies' bytes.
func differBytes(t *testing.T, script [][]string) {
	t.Helper()
	harness.DifferRun(t, script, func(r *harness.Conn, cmd []string) any { return string(r.RawDo(cmd...)) },
		func(got, want any) bool { return got == want })
}

// FuzzGeoArgs runs GEO commands with random arguments against HotKV and,
// when one is installed, a real Redis 8.0.2, on the same small geo set,
// and requires the same reply bytes; HotKV must also stay usable and
// recover from no panic (all it checks without Redis). The input is split
// on NUL bytes; its first byte picks the command, so the fuzzer explores
// each command's parser.
func FuzzGeoArgs(f *testing.F) {
	cmds := []string{"GEOADD", "GEOPOS", "GEOHASH", "GEODIST", "GEORADIUS", "GEORADIUSBYMEMBER", "GEORADIUS_RO",
		"GEORADIUSBYMEMBER_RO", "GEOSEARCH", "GEOSEARCHSTORE"}
	for _, s := range []string{
		"\x00g\x0013\x0038\x00x", "\x00g\x00NX\x00CH\x001\x002\x00a", "\x01g\x00Palermo\x00nosuch", "\x02g\x00Palermo",
		"\x03g\x00Palermo\x00Catania\x00km", "\x04g\x0015\x0037\x00200\x00km\x00WITHDIST\x00COUNT\x002\x00ANY",
		"\x05g\x00Palermo\x00100\x00mi\x00STOREDIST\x00d", "\x06g\x0015\x0037\x00200\x00km\x00STORE\x00d",
		"\x07g\x00Catania\x001\x00ft\x00DESC", "\x08g\x00FROMLONLAT\x0015\x0037\x00BYBOX\x00400\x00400\x00km\x00WITHCOORD",
		"\x08g\x00FROMMEMBER\x00Palermo\x00BYRADIUS\x001e3\x00km\x00ASC\x00COUNT\x001",
		"\x09d\x00g\x00FROMMEMBER\x00Palermo\x00BYRADIUS\x00300\x00km\x00STOREDIST",
	} {
		f.Add([]byte(s))
	}
	hot := harness.Start(f)
	a := dialGeoPeer(f, hot.Addr)
	var b *geoPeer
	if bin := harness.RedisServerPath(); bin != "" {
		b = dialGeoPeer(f, startGeoRedis(f, bin))
	}
	setup := [][]string{{"FLUSHALL"}, {"GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania",
		"12.758489", "38.788135", "edge1", "-179.9", "-85", "far"}, {"SET", "s", "x"}}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		args := append([]string{cmds[int(in[0])%len(cmds)]}, strings.Split(string(in[1:]), "\x00")...)
		if len(args) > 24 {
			args = args[:24]
		}
		for _, p := range []*geoPeer{a, b} {
			if p != nil {
				for _, c := range setup {
					p.do(t, c)
				}
			}
		}
		got := a.do(t, args)
		harness.RunChecked(t, a.conn, a.r, "", args) // no panic recovered, connection usable
		if b == nil {
			return
		}
		if want := b.do(t, args); !bytes.Equal(got, want) && !geoCloseBytes(got, want) {
			t.Fatalf("%q:\nhotkv: %q\nredis: %q", args, got, want)
		}
	})
}

type geoPeer struct {
	conn net.Conn
	r    *bufio.Reader
}

func dialGeoPeer(f *testing.F, addr string) *geoPeer {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { c.Close() })
	return &geoPeer{conn: c, r: bufio.NewReader(c)}
}

func (p *geoPeer) do(t *testing.T, args []string) []byte {
	t.Helper()
	p.conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := p.conn.Write([]byte(harness.Encode(args...))); err != nil {
		t.Fatal(err)
	}
	b, err := harness.ReadRawReply(p.r, nil)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return b
}

// startGeoRedis is harness.StartRedis for a fuzz target: a throwaway Redis 8 from
// bin, stopped when the target ends; it returns the address.
func startGeoRedis(tb testing.TB, bin string) string {
	port := harness.FreePort(tb)
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", tb.TempDir())
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	harness.WaitPort(tb, addr)
	return addr
}
