package commands

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"

	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/resp"
	"github.com/hotkv/hotkv/internal/vector/filter"
	"github.com/hotkv/hotkv/internal/vector/vstore"
)

// Parsing shared by the vector-set commands (VADD, VSIM) and the named
// indexes (VSIM.SET, VSIM.SEARCH...).

const (
	errVecSpec = "ERR invalid vector specification"
	// maxVectorDim bounds dimensions (and REDUCE's, whose matrix is
	// dim x input dim), as later Redis versions do (VSET_MAX_VECTOR_DIM).
	maxVectorDim = 1 << 16
)

// vecArity is the arity error of the vector-set commands: Redis's module
// API names the command as registered, upper case, whatever the client sent.
func vecArity(x *cmdtable.Ctx, name string) {
	x.Error(cmdtable.WrongArgsAs(name))
}

// parseVector reads "[REDUCE dim] FP32 blob" or "[REDUCE dim] VALUES n
// v1..vn" at args[i] as Redis's parseVector does (REDUCE only when
// reduce). It returns the vector, the REDUCE dimension (0 without), and how
// many arguments it consumed; ok is false for any malformed specification,
// including NaN or infinite components (which Redis refuses only in part:
// an infinity would make the normalised vector NaN).
func parseVector(args [][]byte, i int, reduce bool) (v []float32, rdim, consumed int, ok bool) {
	if reduce && len(args) > i+2 && bytes.EqualFold(args[i], []byte("REDUCE")) {
		n, ok := cmdtable.ParseInt(args[i+1])
		if !ok || n <= 0 || n > maxVectorDim {
			return nil, 0, 0, false
		}
		rdim = int(n)
		i += 2
		consumed = 2
	}
	if i >= len(args) {
		return nil, 0, 0, false
	}
	switch {
	case bytes.EqualFold(args[i], []byte("FP32")):
		if len(args) < i+2 {
			return nil, 0, 0, false
		}
		v, ok = decodeFP32(args[i+1])
		consumed += 2
	case bytes.EqualFold(args[i], []byte("VALUES")):
		if len(args) < i+2 {
			return nil, 0, 0, false
		}
		n, isInt := cmdtable.ParseInt(args[i+1])
		if !isInt || n < 1 || n > int64(len(args)-i-2) {
			return nil, 0, 0, false
		}
		v, ok = parseValues(args[i+2 : i+2+int(n)])
		consumed += int(n) + 2
	default:
		return nil, 0, 0, false
	}
	if !ok || len(v) > maxVectorDim || vstore.CheckVector(v, false) != nil {
		return nil, 0, 0, false
	}
	return v, rdim, consumed, true
}

// parseValues reads one number per argument.
func parseValues(args [][]byte) ([]float32, bool) {
	v := make([]float32, len(args))
	for j, a := range args {
		f, ok := filter.ParseNumber(string(a))
		if !ok {
			return nil, false
		}
		v[j] = float32(f)
	}
	return v, true
}

// decodeFP32 reads a blob of little-endian float32s.
func decodeFP32(b []byte) ([]float32, bool) {
	if len(b) < 4 || len(b)%4 != 0 {
		return nil, false
	}
	v := make([]float32, len(b)/4)
	for j := range v {
		v[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
	}
	return v, true
}

// compileFilter compiles a FILTER expression, answering Redis's error.
func compileFilter(x *cmdtable.Ctx, expr []byte) (*filter.Expr, bool) {
	f, err := filter.Compile(string(expr))
	if err != nil {
		near := string(expr)
		if se, ok := err.(*filter.SyntaxError); ok {
			near = se.Near()
		}
		x.Error("ERR syntax error in FILTER expression near: " + near)
		return nil, false
	}
	return f, true
}

// writeAttrs writes an element's attributes, null when it has none.
func writeAttrs(w *resp.Writer, attrs string) {
	if attrs == "" {
		w.Null()
		return
	}
	w.BulkString(attrs)
}

// writeVector writes a vector as an array of doubles.
func writeVector(w *resp.Writer, v []float32) {
	w.Array(len(v))
	for _, f := range v {
		writeFloat32(w, f)
	}
}

// writeFloat32 writes a float32 as the double it widens to (what Redis's
// replies of C floats show).
func writeFloat32(w *resp.Writer, f float32) { w.Double(float64(f)) }

// searchSyntax is what differs between VSIM's options and VSIM.SEARCH's.
type searchSyntax struct {
	count        string // the name of the result count option: COUNT or K
	count0, ef0  int64  // defaults
	errSyntax    string // the reply to an unknown option
	allowAttribs bool   // WITHATTRIBS is an option
	// own reads one of the command's other options, with its argument
	// (nil when none follows); it returns how many arguments it used
	// (-1: not an option of the command) or an error reply.
	own func(opt string, arg []byte) (used int, bad string)
}

// parseSearchOptions reads search options into q (K, EF, FILTER, FILTER-EF)
// and reports WITHATTRIBS; ok is false after an error reply.
func parseSearchOptions(x *cmdtable.Ctx, opts [][]byte, syn searchSyntax, q *vstore.Query) (withAttribs, ok bool) {
	count, ef, filterEF := syn.count0, syn.ef0, int64(0)
	num := func(b []byte, dst *int64) bool {
		n, ok := cmdtable.ParseInt(b)
		*dst = n
		return ok && n > 0
	}
	for j := 0; j < len(opts); j++ {
		opt := strings.ToUpper(string(opts[j]))
		var arg []byte
		if j+1 < len(opts) {
			arg = opts[j+1]
		}
		bad := ""
		switch {
		case opt == "WITHATTRIBS":
			withAttribs = true
		case opt == syn.count && arg != nil:
			j++
			if !num(arg, &count) {
				bad = "ERR invalid " + syn.count
			}
		case opt == "EF" && arg != nil:
			j++
			if !num(arg, &ef) {
				bad = errInvalidEF
			}
		case opt == "FILTER-EF" && arg != nil:
			j++
			if !num(arg, &filterEF) {
				bad = "ERR invalid FILTER-EF"
			}
		case opt == "FILTER" && arg != nil:
			j++
			if q.Filter, ok = compileFilter(x, arg); !ok {
				return false, false
			}
		default:
			used := -1
			if syn.own != nil {
				used, bad = syn.own(opt, arg)
			}
			if used < 0 {
				bad = syn.errSyntax
			}
			j += max(used, 0)
		}
		if bad != "" {
			x.Error(bad)
			return false, false
		}
	}
	if filterEF == 0 {
		filterEF = min(count, 1<<31) * 100
	}
	// Counts beyond any index's size only waste memory: cap them.
	const maxInt32 = 1<<31 - 1
	q.K, q.EF, q.FilterEF = int(min(count, maxInt32)), int(min(ef, maxInt32)), int(min(filterEF, maxInt32))
	return withAttribs, true
}
