package vector

import (
	"strconv"
	"strings"

	"github.com/hotkv/hotkv/internal/bench/respclient"
)

// hotkvIndex is HotKV's named indexes (VSIM.CREATEINDEX/SET/SEARCH).
type hotkvIndex struct{}

func init() { Register("hotkv", hotkvIndex{}) }

func (hotkvIndex) Commands() []string {
	return []string{"VSIM.CREATEINDEX", "VSIM.SET", "VSIM.SEARCH", "VSIM.DROPINDEX", "VSIM.INFO"}
}

func (hotkvIndex) Create(c *respclient.Conn, x Index) error {
	if _, err := c.Do("VSIM.DROPINDEX", x.Name); err != nil && !strings.Contains(err.Error(), "no such index") {
		return err
	}
	_, err := c.Do("VSIM.CREATEINDEX", x.Name, "DIM", strconv.Itoa(x.Dim), "METRIC", strings.ToUpper(string(x.Metric)),
		"M", strconv.Itoa(x.M), "EF_CONSTRUCTION", strconv.Itoa(x.EFConstruction))
	return err
}

func (hotkvIndex) AppendInsert(dst []byte, x Index, id int, v []float32) []byte {
	return appendRequest(dst, v, 4, "VSIM.SET", x.Name, strconv.Itoa(id), "FP32")
}

func (hotkvIndex) AppendSearch(dst []byte, x Index, v []float32, k, ef int) []byte {
	return appendRequest(dst, v, 3, "VSIM.SEARCH", x.Name, "FP32", "K", strconv.Itoa(k), "EF", strconv.Itoa(ef))
}

// IDs reads id, distance pairs.
func (hotkvIndex) IDs(reply any) ([]int32, error) { return parseIDs(reply, 2) }

func (hotkvIndex) Describe(c *respclient.Conn, x Index) (size, dim int, err error) {
	v, err := c.Do("VSIM.INFO", x.Name)
	if err != nil {
		if strings.Contains(err.Error(), "no such index") {
			return 0, 0, nil
		}
		return 0, 0, err
	}
	arr, _ := v.([]any)
	for i := 0; i+1 < len(arr); i += 2 {
		switch k, _ := arr[i].(string); k {
		case "size":
			size = toInt(arr[i+1])
		case "dim":
			dim = toInt(arr[i+1])
		}
	}
	return size, dim, nil
}
