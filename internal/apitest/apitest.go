// Package apitest keeps a package's exported surface in a golden file, one
// declaration a line (constants, variables, types, functions and methods
// with their signatures), as Go's own api files do: an identifier that is
// added, removed or changes its signature fails the package's test until
// the file is regenerated, so the surface an embedder sees changes only on
// purpose.
package apitest

import (
	"bytes"
	"flag"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/api.txt from the package's exported declarations")

// Check compares the exported declarations of the package whose test runs
// (outside its tests) with its testdata/api.txt, or rewrites that file when
// the test runs with -update.
func Check(t testing.TB) {
	t.Helper()
	golden := filepath.Join("testdata", "api.txt")
	got := exported(t, ".")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (the package's TestAPI with -update writes it)", err)
	}
	if got == string(want) {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for _, l := range g {
		if !slices.Contains(w, l) {
			t.Errorf("new: %s", l)
		}
	}
	for _, l := range w {
		if !slices.Contains(g, l) {
			t.Errorf("gone: %s", l)
		}
	}
	t.Errorf("the exported API differs from %s; if that is meant, rerun TestAPI with -update", golden)
}

// exported lists the exported declarations of the package in dir
// (outside tests), sorted, one a line.
func exported(t testing.TB, dir string) string {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	src := func(n ast.Node) string {
		var b bytes.Buffer
		if err := printer.Fprint(&b, fset, n); err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(b.String()), " ")
	}
	var lines []string
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					recv := d.Recv.List[0].Type
					if s, ok := recv.(*ast.StarExpr); ok {
						recv = s.X
					}
					if !ast.IsExported(src(recv)) {
						continue
					}
					name = "(" + src(d.Recv.List[0].Type) + ") " + name
				}
				lines = append(lines, "func "+name+strings.TrimPrefix(src(d.Type), "func"))
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							lines = append(lines, "type "+s.Name.Name+" "+typeKind(s.Type))
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								lines = append(lines, d.Tok.String()+" "+n.Name)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n") + "\n"
}

// typeKind names what a type declaration declares.
func typeKind(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StructType:
		return "struct"
	case *ast.InterfaceType:
		return "interface"
	case *ast.Ident:
		return e.Name
	}
	return "type"
}
