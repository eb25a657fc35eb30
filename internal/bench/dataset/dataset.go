// Package dataset reads the vectors a vector benchmark indexes and queries:
// GloVe from the wink-embeddings npm tarball, .fvecs/.ivecs, .npy, Parquet
// with a list column, and seeded synthetic data.
package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Vectors is n vectors of one dimension stored back to back.
type Vectors struct {
	Dim  int
	Data []float32
}

// Len is the number of vectors.
func (v Vectors) Len() int {
	if v.Dim == 0 {
		return 0
	}
	return len(v.Data) / v.Dim
}

// At is vector i (aliasing the storage).
func (v Vectors) At(i int) []float32 { return v.Data[i*v.Dim : (i+1)*v.Dim] }

// Slice is vectors [i, j).
func (v Vectors) Slice(i, j int) Vectors { return Vectors{v.Dim, v.Data[i*v.Dim : j*v.Dim]} }

// FromRows packs rows of equal length.
func FromRows(rows [][]float32) (Vectors, error) {
	if len(rows) == 0 {
		return Vectors{}, nil
	}
	d := len(rows[0])
	out := Vectors{Dim: d, Data: make([]float32, 0, d*len(rows))}
	for i, r := range rows {
		if len(r) != d {
			return Vectors{}, fmt.Errorf("vector %d has %d dimensions, vector 0 has %d", i, len(r), d)
		}
		out.Data = append(out.Data, r...)
	}
	return out, nil
}

// Options say how a data set file is read.
type Options struct {
	Column string // Parquet: the list column holding the vectors
	Seed   uint64 // synthetic data
	Count  int    // synthetic data: vectors to generate
}

// Load reads every vector of source: a file path, or "uniform:DIM" /
// "clustered:DIM" for synthetic data.
func Load(source string, o Options) (Vectors, error) {
	if kind, d, ok := strings.Cut(source, ":"); ok && (kind == "uniform" || kind == "clustered") {
		dim, err := strconv.Atoi(d)
		if err != nil || dim < 1 {
			return Vectors{}, fmt.Errorf("%s: bad dimension %q", source, d)
		}
		if o.Count < 1 {
			return Vectors{}, fmt.Errorf("%s: no vector count", source)
		}
		if kind == "uniform" {
			return Uniform(o.Count, dim, o.Seed), nil
		}
		return Clustered(o.Count, dim, o.Seed), nil
	}
	if _, err := os.Stat(source); err != nil {
		return Vectors{}, fmt.Errorf("data set %s: %v", source, unwrapPath(err))
	}
	var (
		v   Vectors
		err error
	)
	switch ext := strings.ToLower(filepath.Ext(source)); {
	case ext == ".fvecs":
		v, err = ReadFvecs(source)
	case ext == ".ivecs":
		var ids [][]int32
		ids, err = ReadIvecs(source)
		if err == nil {
			v, err = intsToVectors(ids)
		}
	case ext == ".npy":
		v, err = ReadNpy(source)
	case ext == ".parquet":
		v, err = ReadParquet(source, o.Column)
	case ext == ".tgz", strings.HasSuffix(source, ".tar.gz"), ext == ".json":
		v, err = ReadWink(source)
	case ext == ".hdf5", ext == ".h5":
		err = fmt.Errorf("HDF5 is not read directly; convert it once with: python3 -c \"import h5py,numpy;f=h5py.File('%s');numpy.save('train.npy',f['train'][:]);numpy.save('test.npy',f['test'][:])\" (Debian: apt-get install python3-h5py), then use --data train.npy --query-data test.npy", source)
	default:
		err = fmt.Errorf("unknown format (want .fvecs, .ivecs, .npy, .parquet, a wink-embeddings .tgz/.json, uniform:DIM or clustered:DIM)")
	}
	if err != nil {
		if strings.HasPrefix(err.Error(), source) {
			return Vectors{}, err
		}
		return Vectors{}, fmt.Errorf("data set %s: %v", source, err)
	}
	if v.Len() == 0 {
		return Vectors{}, fmt.Errorf("data set %s: no vectors", source)
	}
	return v, nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func intsToVectors(rows [][]int32) (Vectors, error) {
	f := make([][]float32, len(rows))
	for i, r := range rows {
		f[i] = make([]float32, len(r))
		for j, x := range r {
			f[i][j] = float32(x)
		}
	}
	return FromRows(f)
}
