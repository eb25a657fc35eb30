package persist

import (
	"fmt"
	"os"
	"strings"
)

// ReadManifest returns the files an append-only directory's manifest names,
// in order: the base snapshot ("" if none) and the incremental logs. Each
// line is Redis's "file NAME seq N type b|i"; names are plain file names in
// the manifest's directory.
func ReadManifest(path string) (base string, incrs []string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 6 || f[0] != "file" || f[2] != "seq" || f[4] != "type" || strings.ContainsAny(f[1], "/\\") {
			return "", nil, fmt.Errorf("invalid manifest %s line %d: %q", path, i+1, line)
		}
		switch f[5] {
		case "b":
			base = f[1]
		case "i":
			incrs = append(incrs, f[1])
		default:
			return "", nil, fmt.Errorf("invalid manifest %s line %d: %q", path, i+1, line)
		}
	}
	return base, incrs, nil
}
