package commands

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/internal/ai"
	"github.com/hotkv/hotkv/internal/cmdtable"
	"github.com/hotkv/hotkv/internal/resp"
	"github.com/hotkv/hotkv/internal/vector/filter"
	"github.com/hotkv/hotkv/internal/vector/hnsw"
	"github.com/hotkv/hotkv/internal/vector/quant"
)

// Argument parsing shared by the AI-layer families (PCACHE, SCACHE, AMEM).
// Parsers return Redis-style error text and never keep x.Args: strings are
// copied out.

// opts walks a command's optional arguments; the first error sticks.
type opts struct {
	args [][]byte
	i    int
	err  string
}

func (o *opts) more() bool { return o.err == "" && o.i < len(o.args) }

// kw consumes the next argument if it is the keyword k.
func (o *opts) kw(k string) bool {
	if o.more() && cmdtable.Is(o.args[o.i], k) {
		o.i++
		return true
	}
	return false
}

func (o *opts) fail(msg string) {
	if o.err == "" {
		o.err = msg
	}
}

func (o *opts) next() []byte {
	if !o.more() {
		o.fail(cmdtable.ErrSyntax)
		return nil
	}
	o.i++
	return o.args[o.i-1]
}

func (o *opts) str() string { return string(o.next()) }

func (o *opts) int(lo, hi int64) int64 {
	b := o.next()
	if o.err != "" {
		return 0
	}
	n, ok := cmdtable.ParseInt(b)
	if !ok {
		o.fail(cmdtable.ErrNotInt)
	} else if n < lo || n > hi {
		o.fail("ERR value is out of range, must be between " + strconv.FormatInt(lo, 10) + " and " + strconv.FormatInt(hi, 10))
	}
	return n
}

func (o *opts) float() float64 {
	b := o.next()
	if o.err != "" {
		return 0
	}
	f, ok := cmdtable.ParseFloat(b)
	if !ok || math.IsInf(f, 0) {
		o.fail(cmdtable.ErrNotFloat)
	}
	return f
}

// seconds reads a non-negative number of seconds (fractions allowed) as ms.
func (o *opts) seconds() int64 {
	f := o.float()
	if o.err == "" && (f < 0 || f > 1e12) {
		o.fail("ERR invalid expire time")
	}
	return int64(f * 1000)
}

// ttl parses an entry's EX seconds | PX milliseconds | PERSIST into *dst
// (ms; -1 for PERSIST) and reports whether it consumed one.
func (o *opts) ttl(dst *int64) bool {
	switch {
	case o.kw("ex"):
		*dst = o.int(1, math.MaxInt64/1000) * 1000
	case o.kw("px"):
		*dst = o.int(1, math.MaxInt64/2)
	case o.kw("persist"):
		*dst = -1
	default:
		return false
	}
	return true
}

// vector parses VALUES n v1 .. vn or FP32 blob (little-endian float32s).
func (o *opts) vector() []float32 {
	switch {
	case o.kw("values"):
		n := o.int(1, maxVectorDim)
		if o.err != "" {
			return nil
		}
		if len(o.args)-o.i < int(n) {
			o.fail(cmdtable.ErrSyntax)
			return nil
		}
		v := make([]float32, n)
		for j := range v {
			v[j] = float32(o.float())
		}
		return v
	case o.kw("fp32"):
		b := o.next()
		if o.err != "" {
			return nil
		}
		if len(b) == 0 || len(b)%4 != 0 {
			o.fail("ERR FP32 blob length must be a positive multiple of 4")
			return nil
		}
		v := make([]float32, len(b)/4)
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
		}
		return v
	}
	o.fail("ERR a vector is required: VALUES n v1 .. vn or FP32 blob")
	return nil
}

func (o *opts) filter() *filter.Expr {
	s := o.str()
	if o.err != "" {
		return nil
	}
	f, err := filter.Compile(s)
	if err != nil {
		o.fail("ERR " + err.Error())
	}
	return f
}

// choice reads one of names (case-insensitively) and returns its index.
func (o *opts) choice(names []string, msg string) int {
	b := o.next()
	for i, n := range names {
		if strings.EqualFold(string(b), n) {
			return i
		}
	}
	o.fail(msg)
	return 0
}

// index parses the vector index options of SCACHE.CREATE and AMEM.CREATE;
// it reports whether it consumed one.
func (o *opts) index(v *ai.VectorOptions) bool {
	switch {
	case o.kw("dim"):
		v.Dim = int(o.int(1, maxVectorDim))
	case o.kw("metric"):
		v.Metric = hnsw.Metric(o.choice(ai.MetricNames[:], errMetric))
	case o.kw("type"):
		v.Quant = quant.Kind(o.choice(ai.QuantNames[:], errQuantType))
	case o.kw("m"):
		v.M = int(o.int(2, 4096))
	case o.kw("ef"):
		v.EF = int(o.int(1, 1<<20))
	default:
		return false
	}
	return true
}

// checkIndex completes the checks of index options once all are read.
func checkIndex(v *ai.VectorOptions) string {
	if v.Dim == 0 {
		return errDimRequired
	}
	if v.Quant == quant.Bin && v.Metric != hnsw.Cosine {
		return "ERR TYPE BINARY works with METRIC COSINE only"
	}
	return ""
}

// threshold reads a distance threshold and checks it against the metric.
func (o *opts) threshold(m hnsw.Metric) float64 {
	t := o.float()
	if o.err == "" {
		if err := ai.CheckThreshold(m, t); err != nil {
			o.fail(err.Error())
		}
	}
	return t
}

// idList reads the remaining arguments as entry ids.
func (o *opts) idList() []uint64 {
	var ids []uint64
	for o.more() {
		ids = append(ids, uint64(o.int(1, math.MaxInt64)))
	}
	if len(ids) == 0 {
		o.fail(cmdtable.ErrSyntax)
	}
	return ids
}

// options reads optional arguments until they run out: opt reports whether
// it recognised the next one; anything else is a syntax error.
func (o *opts) options(opt func() bool) string {
	for o.more() {
		if !opt() {
			o.fail(cmdtable.ErrSyntax)
		}
	}
	return o.err
}

// aiCall is the order every AI command answers errors in: its arguments
// after the object's name (parse), then the object (obj answers its own
// error when it does not exist), then the operation (do).
func aiCall[R, O any](x *cmdtable.Ctx, parse func([][]byte) (R, string), obj func(*cmdtable.Ctx) *O, do func(R, *O) error) {
	r, msg := parse(x.Args[2:])
	if msg != "" {
		x.Error(msg)
		return
	}
	o := obj(x)
	if o == nil {
		return
	}
	if err := do(r, o); err != nil {
		x.Error(err.Error())
	}
}

// info is one field of an *.INFO reply.
type info struct {
	name string
	v    any // int, int64, float64 (a double), string or bool
}

// writeInfo writes *.INFO fields as a map.
func writeInfo(w *resp.Writer, fields ...info) {
	w.Map(len(fields))
	for _, f := range fields {
		w.BulkString(f.name)
		switch v := f.v.(type) {
		case int:
			w.Int(int64(v))
		case int64:
			w.Int(v)
		case float64:
			w.Double(v)
		case string:
			w.BulkString(v)
		case bool:
			w.Bool(v)
		}
	}
}

// indexInfo is the part of SCACHE.INFO and AMEM.INFO that describes the
// vector index.
func indexInfo(v ai.VectorOptions) []info {
	return []info{{"dim", v.Dim}, {"metric", ai.MetricNames[v.Metric]}, {"type", ai.QuantNames[v.Quant]}}
}

// writeNames writes a sorted list of object names.
func writeNames(w *resp.Writer, names []string) {
	w.Array(len(names))
	for _, n := range names {
		w.BulkString(n)
	}
}
