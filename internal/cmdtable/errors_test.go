package cmdtable

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// errorTextDirs are the packages whose error texts follow the rule in
// errors.go: every package that builds a client-visible error reply.
var errorTextDirs = []string{
	".", "../commands", "../value/*", "../rdb", "../script",
	"../server", "../admin", "../repl", "../aof", "../stats", "../pubsub", "../acl", "../config",
}

// errorText matches a string literal that begins an error reply: one of the
// error codes HotKV sends, a space, then text. A bare code ("ERR " + msg) is a
// prefix, not a text.
var errorText = regexp.MustCompile(`^-?(ERR|WRONGTYPE|NOGROUP|BUSYGROUP|BUSYKEY|INVALIDOBJ|TESTFAILED|NOAUTH|WRONGPASS|NOPERM|NOSCRIPT|BUSY|OOM|EXECABORT|LOADING|READONLY|NOREPLICAS|MASTERDOWN|MISCONF|NOPROTO|NOTBUSY|UNKILLABLE|UNBLOCKED|IOERR) .`)

// errorTexts maps each error text written in files to where it is written.
func errorTexts(t *testing.T, fset *token.FileSet, files []*ast.File) map[string][]string {
	t.Helper()
	at := map[string][]string{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
			}
			if errorText.MatchString(s) {
				at[s] = append(at[s], fset.Position(lit.Pos()).String())
			}
			return true
		})
	}
	return at
}

// repeated lists the texts written in more than one place, with the places.
func repeated(at map[string][]string) []string {
	var out []string
	for s, where := range at {
		if len(where) > 1 {
			out = append(out, strconv.Quote(s)+" at "+strings.Join(where, ", "))
		}
	}
	sort.Strings(out)
	return out
}

// TestErrorTextsWrittenOnce holds the rule of errors.go: an error text is
// written once; a second place sending it uses the name.
func TestErrorTextsWrittenOnce(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, pattern := range errorTextDirs {
		dirs, err := filepath.Glob(pattern)
		if err != nil || len(dirs) == 0 {
			t.Fatalf("no package at %s (%v)", pattern, err)
		}
		for _, dir := range dirs {
			names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
			for _, name := range names {
				if strings.HasSuffix(name, "_test.go") {
					continue // tests quote the replies they expect
				}
				f, err := parser.ParseFile(fset, name, nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, f)
			}
		}
	}
	if len(files) < 20 {
		t.Fatalf("found only %d files: is the test run from internal/cmdtable?", len(files))
	}
	at := errorTexts(t, fset, files)
	if _, ok := at[ErrSyntax]; !ok {
		t.Fatalf("did not find %q among %d files", ErrSyntax, len(files))
	}
	for _, r := range repeated(at) {
		t.Errorf("error text written twice (name it as errors.go says): %s", r)
	}
}

// TestErrorTextsFindsRepeats checks the check on a file that breaks the rule.
func TestErrorTextsFindsRepeats(t *testing.T) {
	const src = `package p
const errA = "ERR a thing"
func f(x ctx) {
	x.Error("ERR a thing")
	x.Error("ERR " + msg)
	x.Error("ERR " + other)
	x.Error("NOGROUP No such key '" + k + "'")
	x.Error("NOGROUP No such key '" + k + "' in XREADGROUP")
	x.W.Status("CREATE <key> <groupname>")
	x.W.Status("CREATE <key> <groupname>")
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := repeated(errorTexts(t, fset, []*ast.File{f}))
	want := []string{
		`"ERR a thing" at p.go:2:14, p.go:4:10`,
		`"NOGROUP No such key '" at p.go:7:10, p.go:8:10`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("repeats found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
