package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hotkv/hotkv/internal/persist"
	"github.com/hotkv/hotkv/internal/rdb"
)

// check verifies a snapshot or log file as redis-check-rdb/aof do, naming the
// offset of the first damage; the exit status is 0 only for a sound file.
func check(path string) int {
	if f, err := os.Open(path); err == nil {
		var magic [9]byte
		n, _ := io.ReadFull(f, magic[:])
		if rdb.IsFile(magic[:n]) {
			f.Seek(0, io.SeekStart)
			defer f.Close()
			return checkRDB(path, f)
		}
		f.Close()
	}
	msg, err := persist.CheckFile(path)
	if err != nil {
		fmt.Printf("%s: %v\n", path, err)
		return 1
	}
	fmt.Printf("%s: %s\n", path, msg)
	return 0
}

// checkRDB verifies a Redis RDB file as HotKV would load it (every value
// decoded and validated), like redis-check-rdb.
func checkRDB(path string, f *os.File) int {
	st, err := rdb.ReadFile(f, time.Now().UnixMilli(), rdb.FileHandler{})
	if err != nil {
		fmt.Printf("%s: %v\n", path, err)
		return 1
	}
	sum := "no checksum"
	if st.Checksum {
		sum = "checksum OK"
	}
	fmt.Printf("%s: Redis RDB file OK: version %d, %d keys, %d bytes, %s\n", path, st.Version, st.Keys, st.Bytes, sum)
	return 0
}

// fix cuts a damaged log at its first bad record (redis-check-aof --fix);
// the flag is the user's consent, so it asks nothing but says what it cut.
func fix(path string) int {
	if later := laterLog(path); later != "" {
		fmt.Printf("%s: not the last log in its manifest (%s follows): cutting it would replay %s over a gap; restore the file from a backup\n", path, later, later)
		return 1
	}
	records, kept, dropped, err := persist.FixLog(path)
	switch {
	case err != nil:
		fmt.Printf("%s: %v\n", path, err)
		return 1
	case dropped == 0:
		fmt.Printf("%s: append-only log OK: %d records, %d bytes; nothing to fix\n", path, records, kept)
	default:
		fmt.Printf("%s: cut at offset %d: kept %d records (%d bytes), dropped %d bytes from the first bad record on; the original is in %s.bak\n",
			path, kept, records, kept, dropped, path)
	}
	return 0
}

// laterLog is the incremental log a manifest beside path names after it,
// "" if path is the last one (or no manifest names it).
func laterLog(path string) string {
	manifests, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.manifest"))
	for _, m := range manifests {
		b, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		var incrs []string
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) == 6 && f[5] == "i" {
				incrs = append(incrs, f[1])
			}
		}
		for i, name := range incrs {
			if name == filepath.Base(path) && i < len(incrs)-1 {
				return incrs[len(incrs)-1]
			}
		}
	}
	return ""
}
