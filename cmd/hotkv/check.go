package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hotkv/hotkv/internal/persist"
	"github.com/hotkv/hotkv/internal/rdb"
)

// checkUsage is how --check is called, for its usage error and --help.
var checkUsage = []string{
	"hotkv --check FILE|DIR   (verify a snapshot, an append-only log, or every file of an append-only directory: the directory or its manifest)",
	"hotkv --check --fix FILE|DIR   (cut a damaged log at its first bad record, keeping FILE.bak; of a directory, its last log)",
}

// checkCmd runs hotkv --check with the arguments after it; anything but a
// path, or --fix and a path, is a usage error.
func checkCmd(args []string) int {
	switch {
	case len(args) == 1 && args[0] != "--fix":
		return check(args[0])
	case len(args) == 2 && args[0] == "--fix":
		return fix(args[1])
	}
	fmt.Fprintf(os.Stderr, "Usage: %s\n       %s\n", checkUsage[0], checkUsage[1])
	return 1
}

// check verifies a snapshot or log file as redis-check-rdb/aof do, naming the
// offset of the first damage, or every file of an append-only directory; the
// exit status is 0 only when all are sound.
func check(path string) int {
	if m, err := manifestOf(path); err != nil {
		fmt.Printf("%s: %v\n", path, err)
		return 1
	} else if m != "" {
		return checkManifest(m)
	}
	if !checkFile(path, "") {
		return 1
	}
	return 0
}

// checkFile verifies one file and prints what it found: a Redis RDB file
// (unless magic asks for a log), or a HotKV file of that kind (magic: "",
// either).
func checkFile(path, magic string) bool {
	if magic != persist.LogMagic {
		if f, err := os.Open(path); err == nil {
			defer f.Close()
			var head [9]byte
			n, _ := io.ReadFull(f, head[:])
			if rdb.IsFile(head[:n]) {
				f.Seek(0, io.SeekStart)
				return checkRDB(path, f)
			}
		}
	}
	msg, err := persist.CheckKind(path, magic)
	if err != nil {
		fmt.Printf("%s: %v\n", path, err)
		return false
	}
	fmt.Printf("%s: %s\n", path, msg)
	return true
}

// checkRDB verifies a Redis RDB file as HotKV would load it (every value
// decoded and validated), like redis-check-rdb.
func checkRDB(path string, f *os.File) bool {
	st, err := rdb.ReadFile(f, time.Now().UnixMilli(), rdb.FileHandler{})
	if err != nil {
		fmt.Printf("%s: %v\n", path, err)
		return false
	}
	sum := "no checksum"
	if st.Checksum {
		sum = "checksum OK"
	}
	fmt.Printf("%s: Redis RDB file OK: version %d, %d keys, %d bytes, %s\n", path, st.Version, st.Keys, st.Bytes, sum)
	return true
}

// manifestOf is the manifest to check for path: path itself if it is named
// *.manifest, the one manifest in it if it is a directory, "" for any other
// file (or none: checking it says so).
func manifestOf(path string) (string, error) {
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		if strings.HasSuffix(path, ".manifest") {
			return path, nil
		}
		return "", nil
	}
	found, err := filepath.Glob(filepath.Join(path, "*.manifest"))
	switch {
	case err != nil:
		return "", err
	case len(found) == 0:
		if sub, _ := filepath.Glob(filepath.Join(path, "*", "*.manifest")); len(sub) > 0 {
			return "", fmt.Errorf("a directory with no manifest (*.manifest): not an append-only directory (%s is one)", filepath.Dir(sub[0]))
		}
		return "", errors.New("a directory with no manifest (*.manifest): not an append-only directory")
	case len(found) > 1:
		return "", fmt.Errorf("a directory with %d manifests: name the one to check (%s)", len(found), strings.Join(found, ", "))
	}
	return found[0], nil
}

// logFile is a file a manifest names and the kind it must be.
type logFile struct{ path, magic string }

// manifestFiles lists the files manifest m names, in the order loading
// reads them: the base snapshot (a HotKV snapshot or a Redis RDB file),
// then the incremental logs.
func manifestFiles(m string) ([]logFile, error) {
	base, incrs, err := persist.ReadManifest(m)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(m)
	var files []logFile
	if base != "" {
		files = append(files, logFile{filepath.Join(dir, base), persist.SnapshotMagic})
	}
	for _, name := range incrs {
		files = append(files, logFile{filepath.Join(dir, name), persist.LogMagic})
	}
	return files, nil
}

// checkManifest verifies every file manifest m names, each reported on its
// own line, then a verdict on the whole.
func checkManifest(m string) int {
	files, err := manifestFiles(m)
	if err != nil {
		fmt.Printf("%s: %v\n", m, err)
		return 1
	}
	bad := 0
	for _, f := range files {
		if !checkNamed(f) {
			bad++
		}
	}
	if bad > 0 {
		fmt.Printf("%s: %d of the %d files it names damaged or missing\n", m, bad, len(files))
		return 1
	}
	fmt.Printf("%s: append-only directory OK: the %d files it names are sound\n", m, len(files))
	return 0
}

// checkNamed is checkFile for a file a manifest names, saying so if it is
// missing.
func checkNamed(f logFile) bool {
	if _, err := os.Stat(f.path); errors.Is(err, fs.ErrNotExist) {
		fmt.Printf("%s: missing: the manifest names it\n", f.path)
		return false
	}
	return checkFile(f.path, f.magic)
}

// fix cuts a damaged log at its first bad record (redis-check-aof --fix);
// the flag is the user's consent, so it asks nothing but says what it cut.
// Of an append-only directory it cuts the last log (fixManifest).
func fix(path string) int {
	if m, err := manifestOf(path); err != nil {
		fmt.Printf("%s: %v\n", path, err)
		return 1
	} else if m != "" {
		return fixManifest(m)
	}
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

// fixManifest fixes the last incremental log manifest m names, once every
// file before it is sound: only the last can be cut (a later log would
// replay over the gap, a snapshot loads whole or not at all), so damage
// elsewhere is refused.
func fixManifest(m string) int {
	files, err := manifestFiles(m)
	if err != nil {
		fmt.Printf("%s: %v\n", m, err)
		return 1
	}
	last := len(files) - 1
	if last < 0 || files[last].magic != persist.LogMagic {
		last = len(files) // no log to cut: check them all
	}
	for _, f := range files[:last] {
		if !checkNamed(f) {
			fmt.Printf("%s: not fixed: %s is damaged or missing, and only the last incremental log can be cut; restore it from a backup\n", m, f.path)
			return 1
		}
	}
	if last == len(files) {
		fmt.Printf("%s: names no incremental log; nothing to fix\n", m)
		return 0
	}
	if _, err := os.Stat(files[last].path); errors.Is(err, fs.ErrNotExist) {
		fmt.Printf("%s: missing: the manifest names it\n", files[last].path)
		return 1
	}
	return fix(files[last].path)
}

// laterLog is the incremental log a manifest beside path names after it,
// "" if path is the last one (or no manifest names it).
func laterLog(path string) string {
	manifests, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.manifest"))
	for _, m := range manifests {
		_, incrs, err := persist.ReadManifest(m)
		if i := slices.Index(incrs, filepath.Base(path)); err == nil && i >= 0 && i < len(incrs)-1 {
			return incrs[len(incrs)-1]
		}
	}
	return ""
}
