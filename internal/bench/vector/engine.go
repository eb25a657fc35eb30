// Package vector runs the published vector-search method against a
// server: load over many connections, recall per search depth over one
// connection, and QPS/latency over a grid of search depths and clients.
// Each engine (the commands a server uses for vectors) is one small file
// that registers an Engine.
package vector

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/internal/bench/groundtruth"
	"github.com/hotkv/hotkv/internal/bench/respclient"
)

// Index names the index and holds its build settings.
type Index struct {
	Name           string
	Dim            int
	Metric         groundtruth.Metric
	M              int
	EFConstruction int
}

// Engine speaks one server's vector commands.
type Engine interface {
	// Commands are those the server must know (checked with COMMAND INFO).
	Commands() []string
	// Create drops any index of that name and makes an empty one.
	Create(c *respclient.Conn, x Index) error
	// AppendInsert encodes adding vector v with id.
	AppendInsert(dst []byte, x Index, id int, v []float32) []byte
	// AppendSearch encodes a top-k query at search depth ef.
	AppendSearch(dst []byte, x Index, v []float32, k, ef int) []byte
	// IDs reads the ids, nearest first, from a search reply.
	IDs(reply any) ([]int32, error)
	// Describe returns the size and dimension of an existing index.
	Describe(c *respclient.Conn, x Index) (size, dim int, err error)
}

var engines = map[string]Engine{}

// Register makes an engine available by name.
func Register(name string, e Engine) { engines[name] = e }

// Lookup returns the engine called name.
func Lookup(name string) (Engine, error) {
	if e, ok := engines[name]; ok {
		return e, nil
	}
	return nil, fmt.Errorf("unknown engine %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the registered engines.
func Names() []string {
	var n []string
	for k := range engines {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// appendFP32 appends v as a bulk of little-endian float32s.
func appendFP32(dst []byte, v []float32) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(4*len(v)), 10)
	dst = append(dst, '\r', '\n')
	for _, x := range v {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(x))
	}
	return append(dst, '\r', '\n')
}

// appendBulk appends one bulk string argument.
func appendBulk(dst []byte, s string) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(s)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, s...)
	return append(dst, '\r', '\n')
}

// appendRequest encodes a command whose argument at blobAt is vector v
// and whose other arguments are args.
func appendRequest(dst []byte, v []float32, blobAt int, args ...string) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)+1), 10)
	dst = append(dst, '\r', '\n')
	for i, a := range args {
		if i == blobAt {
			dst = appendFP32(dst, v)
		}
		dst = appendBulk(dst, a)
	}
	if blobAt == len(args) {
		dst = appendFP32(dst, v)
	}
	return dst
}

// parseIDs reads every step-th element of an array reply as an integer id.
func parseIDs(reply any, step int) ([]int32, error) {
	arr, ok := reply.([]any)
	if !ok {
		return nil, fmt.Errorf("search reply is %T, not an array", reply)
	}
	ids := make([]int32, 0, len(arr)/step)
	for i := 0; i < len(arr); i += step {
		s, _ := arr[i].(string)
		id, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("search reply holds %v, not an id", arr[i])
		}
		ids = append(ids, int32(id))
	}
	return ids, nil
}

func toInt(v any) int {
	switch x := v.(type) {
	case int64:
		return int(x)
	case string:
		n, _ := strconv.Atoi(x)
		return n
	case float64:
		return int(x)
	}
	return 0
}
