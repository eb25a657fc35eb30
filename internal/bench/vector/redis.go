package vector

import (
	"errors"
	"strconv"

	"github.com/hotkv/hotkv/internal/bench/groundtruth"
	"github.com/hotkv/hotkv/internal/bench/respclient"
)

// redisSets is Redis 8 vector sets: one key, float32 (NOQUANT), searched
// with VSIM. Engine "redis" inserts with CAS (the neighbour search runs off
// the main thread: Redis's fast way to load over many connections, but its
// recall then depends on how many inserts overlap); "redis-nocas" inserts
// on the main thread, one at a time, for the recall Redis's graph can reach.
type redisSets struct{ cas bool }

func init() {
	Register("redis", redisSets{cas: true})
	Register("redis-nocas", redisSets{})
}

func (redisSets) Commands() []string { return []string{"VADD", "VSIM", "VCARD", "VDIM"} }

func (redisSets) Create(c *respclient.Conn, x Index) error {
	if x.Metric != groundtruth.Cosine {
		return errors.New("Redis vector sets measure cosine similarity only (use --metric cosine)")
	}
	_, err := c.Do("DEL", x.Name)
	return err
}

func (r redisSets) AppendInsert(dst []byte, x Index, id int, v []float32) []byte {
	args := []string{"VADD", x.Name, "FP32", strconv.Itoa(id)}
	if r.cas {
		args = append(args, "CAS")
	}
	args = append(args, "NOQUANT", "EF", strconv.Itoa(x.EFConstruction), "M", strconv.Itoa(x.M))
	return appendRequest(dst, v, 3, args...)
}

func (redisSets) AppendSearch(dst []byte, x Index, v []float32, k, ef int) []byte {
	return appendRequest(dst, v, 3, "VSIM", x.Name, "FP32", "COUNT", strconv.Itoa(k), "EF", strconv.Itoa(ef))
}

func (redisSets) IDs(reply any) ([]int32, error) { return parseIDs(reply, 1) }

func (redisSets) Describe(c *respclient.Conn, x Index) (size, dim int, err error) {
	n, err := c.Do("VCARD", x.Name)
	if err != nil {
		return 0, 0, err
	}
	if toInt(n) == 0 {
		return 0, 0, nil
	}
	d, err := c.Do("VDIM", x.Name)
	if err != nil {
		return 0, 0, err
	}
	return toInt(n), toInt(d), nil
}
