package race

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestHeavyListed: every test that calls Skip is in scripts/test.sh's heavy
// list (else make test would never run it), and the list names no other.
func TestHeavyListed(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	var calls []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "Skip" {
						if x, ok := s.X.(*ast.Ident); ok && x.Name == "race" {
							calls = append(calls, fn.Name.Name)
						}
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(root, "scripts", "test.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^heavy='([^']*)'`).FindSubmatch(script)
	if m == nil {
		t.Fatal("scripts/test.sh has no heavy='...' list")
	}
	listed := strings.Split(string(m[1]), "|")
	slices.Sort(calls)
	slices.Sort(listed)
	if len(calls) == 0 || !slices.Equal(calls, listed) {
		t.Errorf("tests calling race.Skip: %v; scripts/test.sh's heavy list: %v", calls, listed)
	}
}
