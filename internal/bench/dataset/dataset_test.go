package dataset

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func sample() Vectors {
	return Vectors{Dim: 3, Data: []float32{1, 2, 3, -4, 5.5, 6, 0.25, 0, -1}}
}

func TestFvecsRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.fvecs")
	if err := WriteFvecs(p, sample()); err != nil {
		t.Fatal(err)
	}
	got, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sample()) {
		t.Fatalf("got %+v", got)
	}
}

func TestIvecsRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gt.ivecs")
	rows := [][]int32{{1, 2}, {7, -3}}
	if err := WriteIvecs(p, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadIvecs(p)
	if err != nil || !reflect.DeepEqual(got, rows) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestFvecsErrors(t *testing.T) {
	dir := t.TempDir()
	// A truncated record, then rows of different dimensions.
	trunc := filepath.Join(dir, "t.fvecs")
	os.WriteFile(trunc, []byte{3, 0, 0, 0, 1, 2}, 0o644)
	if _, err := Load(trunc, Options{}); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("truncated: %v", err)
	}
	var b bytes.Buffer
	for _, d := range []uint32{2, 3} {
		binary.Write(&b, binary.LittleEndian, d)
		for range d {
			binary.Write(&b, binary.LittleEndian, float32(1))
		}
	}
	mixed := filepath.Join(dir, "m.fvecs")
	os.WriteFile(mixed, b.Bytes(), 0o644)
	if _, err := Load(mixed, Options{}); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Fatalf("mixed: %v", err)
	}
}

func TestNpy(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.npy")
	if err := WriteNpy(p, sample()); err != nil {
		t.Fatal(err)
	}
	got, err := Load(p, Options{})
	if err != nil || !reflect.DeepEqual(got, sample()) {
		t.Fatalf("f4: %+v, %v", got, err)
	}
	// float64, version 2 header, as numpy writes for float64 arrays.
	hdr := "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x02\x00")
	binary.Write(&b, binary.LittleEndian, uint32(len(hdr)))
	b.WriteString(hdr)
	for _, x := range []float64{1, 2, 3, 4.5} {
		binary.Write(&b, binary.LittleEndian, math.Float64bits(x))
	}
	p8 := filepath.Join(dir, "y.npy")
	os.WriteFile(p8, b.Bytes(), 0o644)
	got, err = Load(p8, Options{})
	if err != nil || !reflect.DeepEqual(got, Vectors{Dim: 2, Data: []float32{1, 2, 3, 4.5}}) {
		t.Fatalf("f8: %+v, %v", got, err)
	}
	bad := strings.Replace(b.String(), "<f8", "<i4", 1)
	pi := filepath.Join(dir, "z.npy")
	os.WriteFile(pi, []byte(bad), 0o644)
	if _, err := Load(pi, Options{}); err == nil || !strings.Contains(err.Error(), "dtype") {
		t.Fatalf("int dtype: %v", err)
	}
}

func TestParquet(t *testing.T) {
	type row struct {
		ID     string    `parquet:"_id"`
		OpenAI []float64 `parquet:"openai,list"`
	}
	p := filepath.Join(t.TempDir(), "d.parquet")
	rows := []row{{"a", []float64{1, 2, 3}}, {"b", []float64{4, 5, 6}}, {"c", []float64{7, 8, 9}}}
	if err := parquet.WriteFile(p, rows); err != nil {
		t.Fatal(err)
	}
	got, err := Load(p, Options{Column: "openai"})
	if err != nil {
		t.Fatal(err)
	}
	want := Vectors{Dim: 3, Data: []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
	if _, err := Load(p, Options{Column: "nope"}); err == nil || !strings.Contains(err.Error(), `no list column "nope"`) {
		t.Fatalf("missing column: %v", err)
	}
}

const winkJSON = `{"precision":8,"l2NormIndex":3,"wordIndex":4,"size":2,"dimensions":3,
"words":["b","a"],"vectors":{"b":[4,5,6,8.77,1],"a\"q":[1,2,3,3.74,0]},"unkVector":[0,0,0]}`

func TestWink(t *testing.T) {
	dir := t.TempDir()
	var tgz bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	for _, f := range []struct{ name, body string }{
		{"package/package.json", `{"name":"x"}`},
		{"package/dist/embeddings.json", winkJSON},
	} {
		tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body))})
		tw.Write([]byte(f.body))
	}
	tw.Close()
	gz.Close()
	p := filepath.Join(dir, "w.tgz")
	os.WriteFile(p, tgz.Bytes(), 0o644)
	got, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Ordered by word index, not by position in the JSON.
	want := Vectors{Dim: 3, Data: []float32{1, 2, 3, 4, 5, 6}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
}

func TestSynthetic(t *testing.T) {
	a, err := Load("clustered:8", Options{Count: 50, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Load("clustered:8", Options{Count: 50, Seed: 3})
	c, _ := Load("clustered:8", Options{Count: 50, Seed: 4})
	if a.Len() != 50 || a.Dim != 8 || !reflect.DeepEqual(a, b) || reflect.DeepEqual(a, c) {
		t.Fatal("clustered data is not seeded")
	}
	u, err := Load("uniform:5", Options{Count: 10, Seed: 1})
	if err != nil || u.Len() != 10 {
		t.Fatal(u, err)
	}
	for _, x := range u.Data {
		if x < -1 || x >= 1 {
			t.Fatalf("uniform value %v out of [-1,1)", x)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "v.txt")
	os.WriteFile(txt, []byte("1 2 3"), 0o644)
	for src, want := range map[string]string{
		filepath.Join(dir, "missing.fvecs"): "no such file",
		txt:                                 "unknown format",
		"uniform:x":                         "bad dimension",
		filepath.Join(dir, "a.hdf5"):        "no such file",
	} {
		_, err := Load(src, Options{Count: 1})
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line with %q", src, err, want)
		}
	}
	h5 := filepath.Join(dir, "glove.hdf5")
	os.WriteFile(h5, []byte("\x89HDF"), 0o644)
	if _, err := Load(h5, Options{}); err == nil || !strings.Contains(err.Error(), "python3-h5py") {
		t.Errorf("hdf5: %v", err)
	}
}
