package dataset

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
)

var (
	npyDescr   = regexp.MustCompile(`'descr':\s*'([^']*)'`)
	npyFortran = regexp.MustCompile(`'fortran_order':\s*(True|False)`)
	npyShape   = regexp.MustCompile(`'shape':\s*\((\d+),\s*(\d+)\)`)
)

// ReadNpy reads a 2-D little-endian float32 or float64 NumPy array in C
// order (what numpy.save writes for an embedding matrix).
func ReadNpy(path string) (Vectors, error) {
	f, err := os.Open(path)
	if err != nil {
		return Vectors{}, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	magic := make([]byte, 8)
	if _, err := io.ReadFull(r, magic); err != nil || !bytes.HasPrefix(magic, []byte("\x93NUMPY")) {
		return Vectors{}, errors.New("not a .npy file")
	}
	var hlen int
	switch magic[6] {
	case 1:
		var b [2]byte
		_, err = io.ReadFull(r, b[:])
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	default:
		var b [4]byte
		_, err = io.ReadFull(r, b[:])
		hlen = int(binary.LittleEndian.Uint32(b[:]))
	}
	if err != nil || hlen > 1<<20 {
		return Vectors{}, errors.New("truncated .npy header")
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return Vectors{}, errors.New("truncated .npy header")
	}
	d, fo, sh := npyDescr.FindSubmatch(hdr), npyFortran.FindSubmatch(hdr), npyShape.FindSubmatch(hdr)
	if d == nil || sh == nil {
		return Vectors{}, fmt.Errorf("unsupported .npy header %q (want a 2-D array)", bytes.TrimSpace(hdr))
	}
	if fo != nil && string(fo[1]) == "True" {
		return Vectors{}, errors.New("Fortran-order .npy arrays are not supported (save with numpy.ascontiguousarray)")
	}
	n, _ := strconv.Atoi(string(sh[1]))
	dim, _ := strconv.Atoi(string(sh[2]))
	if dim < 1 {
		return Vectors{}, errors.New(".npy array has no columns")
	}
	size := 0
	switch string(d[1]) {
	case "<f4":
		size = 4
	case "<f8":
		size = 8
	default:
		return Vectors{}, fmt.Errorf(".npy dtype %s not supported (want <f4 or <f8)", d[1])
	}
	out := Vectors{Dim: dim, Data: make([]float32, n*dim)}
	buf := make([]byte, size*dim)
	for i := range n {
		if _, err := io.ReadFull(r, buf); err != nil {
			return Vectors{}, fmt.Errorf(".npy data truncated at row %d of %d", i, n)
		}
		row := out.Data[i*dim : (i+1)*dim]
		for j := range row {
			if size == 4 {
				row[j] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*j:]))
			} else {
				row[j] = float32(math.Float64frombits(binary.LittleEndian.Uint64(buf[8*j:])))
			}
		}
	}
	return out, nil
}

// WriteNpy writes v as a float32 .npy file.
func WriteNpy(path string, v Vectors) error {
	hdr := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", v.Len(), v.Dim)
	for (10+len(hdr)+1)%64 != 0 {
		hdr += " "
	}
	hdr += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(hdr)))
	b.WriteString(hdr)
	for _, x := range v.Data {
		binary.Write(&b, binary.LittleEndian, math.Float32bits(x))
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
