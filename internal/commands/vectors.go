package commands

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/hotkv/hotkv/internal/command"
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
func vecArity(x *command.Ctx, name string) {
	x.Error("ERR wrong number of arguments for '" + name + "' command")
}

// parseVector reads "[REDUCE dim] FP32 blob" or "[REDUCE dim] VALUES n
// v1..vn" at args[i] as Redis's parseVector does (REDUCE only when
// reduce). It returns the vector, the REDUCE dimension (0 without), and how
// many arguments it consumed; ok is false for any malformed specification,
// including NaN or infinite components (which Redis refuses only in part:
// an infinity would make the normalised vector NaN).
func parseVector(args [][]byte, i int, reduce bool) (v []float32, rdim, consumed int, ok bool) {
	if reduce && len(args) > i+2 && strings.EqualFold(string(args[i]), "REDUCE") {
		n, ok := command.ParseInt(args[i+1])
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
	case strings.EqualFold(string(args[i]), "FP32"):
		if len(args) < i+2 {
			return nil, 0, 0, false
		}
		v, ok = decodeFP32(args[i+1])
		consumed += 2
	case strings.EqualFold(string(args[i]), "VALUES"):
		if len(args) < i+2 {
			return nil, 0, 0, false
		}
		n, isInt := command.ParseInt(args[i+1])
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
func compileFilter(x *command.Ctx, expr []byte) (*filter.Expr, bool) {
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

// writeFloat32 writes a float32 as the double it widens to (what Redis's
// replies of C floats show).
func writeFloat32(w *resp.Writer, f float32) { w.Double(float64(f)) }
