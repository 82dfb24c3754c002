// Package sourcetest reads a package's Go source, for the tests that check
// what the code itself makes: every denial's code and the args it is made
// with (domain), every audit note's (operations/audit).
package sourcetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Parse parses the Go files of the package in dir, its tests and the
// files named in skip left out, in one file set.
func Parse(t testing.TB, dir string, skip ...string) (*token.FileSet, []*ast.File) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") || slices.Contains(skip, filepath.Base(name)) {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return fset, files
}
