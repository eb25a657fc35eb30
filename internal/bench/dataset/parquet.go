package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// ReadParquet reads the vectors of a list column (float or double
// elements), one vector per row, as in dbpedia-entities-openai-1M (column
// "openai"). With column empty, the first list column is used.
func ReadParquet(path, column string) (Vectors, error) {
	f, err := os.Open(path)
	if err != nil {
		return Vectors{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Vectors{}, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return Vectors{}, fmt.Errorf("not a Parquet file: %v", err)
	}
	var leaf []string
	var names []string
	for _, p := range pf.Schema().Columns() {
		names = append(names, strings.Join(p, "."))
		if leaf == nil && len(p) > 1 && (column == "" || p[0] == column) {
			leaf = p
		}
	}
	if leaf == nil {
		if column == "" {
			return Vectors{}, fmt.Errorf("no list column (columns: %s)", strings.Join(names, ", "))
		}
		return Vectors{}, fmt.Errorf("no list column %q (columns: %s)", column, strings.Join(names, ", "))
	}
	lc, _ := pf.Schema().Lookup(leaf...)
	var out Vectors
	var row []float32
	flush := func() error {
		if row == nil {
			return nil
		}
		if out.Dim == 0 {
			out.Dim = len(row)
			out.Data = slices.Grow(out.Data, int(pf.NumRows())*out.Dim) // one allocation for the whole file
		}
		if len(row) != out.Dim || out.Dim == 0 {
			return fmt.Errorf("row %d has %d dimensions, row 0 has %d", out.Len(), len(row), out.Dim)
		}
		out.Data = append(out.Data, row...)
		row = row[:0]
		return nil
	}
	vals := make([]parquet.Value, 4096)
	for _, rg := range pf.RowGroups() {
		pages := rg.ColumnChunks()[lc.ColumnIndex].Pages()
		for {
			p, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				pages.Close()
				return Vectors{}, err
			}
			vr := p.Values()
			for {
				n, err := vr.ReadValues(vals)
				for _, v := range vals[:n] {
					if v.RepetitionLevel() == 0 {
						if err := flush(); err != nil {
							pages.Close()
							return Vectors{}, err
						}
						if row == nil {
							row = []float32{}
						}
					}
					switch v.Kind() {
					case parquet.Float:
						row = append(row, v.Float())
					case parquet.Double:
						row = append(row, float32(v.Double()))
					default:
						if !v.IsNull() {
							pages.Close()
							return Vectors{}, fmt.Errorf("column %s holds %v, not floats", strings.Join(leaf, "."), v.Kind())
						}
					}
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					pages.Close()
					return Vectors{}, err
				}
			}
			parquet.Release(p)
		}
		pages.Close()
	}
	if err := flush(); err != nil {
		return Vectors{}, err
	}
	return out, nil
}
