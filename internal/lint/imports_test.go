package lint

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/hotkv/hotkv"

// layers reads the package block of docs/architecture.md: "-- " lines start
// a layer (the first is the top), and a line beginning with a package path
// names a package in the current layer; "dir/*" names dir and everything
// under it. It returns each pattern's layer, 0 at the top.
func layers(t *testing.T, doc string) map[string]int {
	t.Helper()
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	layer, inBlock, seen := -1, false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !seen && line == "## Packages":
			seen = true
		case seen && strings.HasPrefix(line, "```"):
			if inBlock {
				return out
			}
			inBlock = true
		case inBlock && strings.HasPrefix(line, "-- "):
			layer++
		case inBlock && line != "" && line[0] != ' ':
			if layer < 0 {
				t.Fatalf("%s: package %q before the first layer line", doc, line)
			}
			pat := strings.TrimSuffix(strings.Fields(line)[0], "/")
			if prev, dup := out[pat]; dup {
				t.Fatalf("%s: %s listed twice (layers %d and %d)", doc, pat, prev, layer)
			}
			out[pat] = layer
		}
	}
	t.Fatalf("%s: no fenced package block under \"## Packages\"", doc)
	return nil
}

// layerOf finds pkg's layer: its own entry, or the closest "dir/*" above it.
func layerOf(l map[string]int, pkg string) (int, string, bool) {
	if n, ok := l[pkg]; ok {
		return n, pkg, true
	}
	for dir := pkg; dir != "."; dir = filepath.Dir(dir) {
		if n, ok := l[dir+"/*"]; ok {
			return n, dir + "/*", true
		}
	}
	return 0, "", false
}

// imports maps every package directory of the module (relative to root) to
// the module packages its non-test files import.
func imports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		if _, ok := out[dir]; !ok {
			out[dir] = nil
		}
		if strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if rel, ok := strings.CutPrefix(p, module+"/"); ok {
				out[dir] = append(out[dir], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	delete(out, ".") // the module root holds no package
	return out
}

// TestImportLayers keeps the package picture in docs/architecture.md true:
// every package is in it, nothing gone is, and no import points up a layer.
func TestImportLayers(t *testing.T) {
	root := filepath.Join("..", "..")
	l := layers(t, filepath.Join(root, "docs", "architecture.md"))
	pkgs := imports(t, root)

	used := map[string]bool{}
	var problems []string
	for pkg, deps := range pkgs {
		lp, pat, ok := layerOf(l, pkg)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s is not in docs/architecture.md's package list", pkg))
			continue
		}
		used[pat] = true
		for _, dep := range deps {
			ld, _, ok := layerOf(l, dep)
			if ok && ld < lp {
				problems = append(problems, fmt.Sprintf("%s imports %s, a layer above it", pkg, dep))
			}
		}
	}
	for pat := range l {
		if !used[pat] {
			problems = append(problems, fmt.Sprintf("docs/architecture.md lists %s, which has no Go files", pat))
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// TestLayersParse pins how the block is read, so a formatting slip in the
// document cannot make TestImportLayers pass by reading nothing.
func TestLayersParse(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "a.md")
	text := "# x\n\n## Packages\n\n```\n-- top\ncmd/a/   a program\n          continued\ntests/*  tests\n-- bottom\ninternal/b/ b\n```\n\ninternal/c/ outside\n"
	if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	l := layers(t, doc)
	want := map[string]int{"cmd/a": 0, "tests/*": 0, "internal/b": 1}
	if fmt.Sprint(l) != fmt.Sprint(want) {
		t.Fatalf("layers = %v, want %v", l, want)
	}
	for pkg, n := range map[string]int{"tests/x/y": 0, "internal/b": 1} {
		if got, _, ok := layerOf(l, pkg); !ok || got != n {
			t.Errorf("layerOf(%s) = %d, %v; want %d", pkg, got, ok, n)
		}
	}
	if _, _, ok := layerOf(l, "internal/c"); ok {
		t.Error("internal/c, outside the block, was read as listed")
	}
}
