package dataset

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
)

// ReadFvecs reads the TEXMEX format: per vector a little-endian int32
// dimension followed by that many float32s.
func ReadFvecs(path string) (Vectors, error) {
	var out Vectors
	err := readVecs(path, func(d int, rec []byte) error {
		if out.Dim == 0 {
			out.Dim = d
			if st, err := os.Stat(path); err == nil { // one allocation for the whole file
				out.Data = make([]float32, 0, int(st.Size())/(4+4*d)*d)
			}
		} else if d != out.Dim {
			return fmt.Errorf("vector %d has %d dimensions, vector 0 has %d", out.Len(), d, out.Dim)
		}
		for i := range d {
			out.Data = append(out.Data, math.Float32frombits(binary.LittleEndian.Uint32(rec[4*i:])))
		}
		return nil
	})
	return out, err
}

// ReadIvecs reads .ivecs: per row a little-endian int32 count and that
// many int32s (ground-truth neighbour ids).
func ReadIvecs(path string) ([][]int32, error) {
	var out [][]int32
	err := readVecs(path, func(d int, rec []byte) error {
		row := make([]int32, d)
		for i := range row {
			row[i] = int32(binary.LittleEndian.Uint32(rec[4*i:]))
		}
		out = append(out, row)
		return nil
	})
	return out, err
}

func readVecs(path string, row func(d int, rec []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var hdr [4]byte
	var rec []byte
	for n := 0; ; n++ {
		if _, err := r.Read(hdr[:1]); err != nil {
			return nil // clean end of file
		}
		if _, err := readFull(r, hdr[1:]); err != nil {
			return fmt.Errorf("row %d: truncated", n)
		}
		d := int(int32(binary.LittleEndian.Uint32(hdr[:])))
		if d <= 0 || d > 1<<20 {
			return fmt.Errorf("row %d: bad dimension %d (not an .fvecs/.ivecs file?)", n, d)
		}
		if cap(rec) < 4*d {
			rec = make([]byte, 4*d)
		}
		if _, err := readFull(r, rec[:4*d]); err != nil {
			return fmt.Errorf("row %d: truncated", n)
		}
		if err := row(d, rec[:4*d]); err != nil {
			return err
		}
	}
}

func readFull(r *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// WriteFvecs writes v as .fvecs.
func WriteFvecs(path string, v Vectors) error {
	return writeVecs(path, v.Len(), v.Dim, func(i, j int) uint32 { return math.Float32bits(v.Data[i*v.Dim+j]) })
}

// WriteIvecs writes rows of equal length as .ivecs.
func WriteIvecs(path string, rows [][]int32) error {
	d := 0
	if len(rows) > 0 {
		d = len(rows[0])
	}
	return writeVecs(path, len(rows), d, func(i, j int) uint32 { return uint32(rows[i][j]) })
}

func writeVecs(path string, n, d int, at func(i, j int) uint32) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var b [4]byte
	for i := range n {
		binary.LittleEndian.PutUint32(b[:], uint32(d))
		w.Write(b[:])
		for j := range d {
			binary.LittleEndian.PutUint32(b[:], at(i, j))
			w.Write(b[:])
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
