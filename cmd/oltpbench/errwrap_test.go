package main

import (
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestErrorsAreWrapped keeps the error rule (docs/ARCHITECTURE.md, "Errors"):
// an fmt.Errorf that formats an error formats it with %w, so that retry,
// reconnect and the error's words reach the driver's error through any
// wrapping. An error kept as text only says so by passing err.Error().
func TestErrorsAreWrapped(t *testing.T) {
	verb := regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)
	errArg := regexp.MustCompile(`^(err|[a-zA-Z]*Err|[a-z]+\.Err|errors\.Unwrap\(.*\)|unwrapPath\(.*\))$`)
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		// Hidden folders hold no code, and the test servers' data folders
		// (.mariadb-test-N) change under the walk while the other shards run.
		if d != nil && d.IsDir() && path != "../.." && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Errorf" || !isIdent(sel.X, "fmt") {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok {
				return true
			}
			text, _ := strconv.Unquote(lit.Value)
			var verbs []string
			for _, v := range verb.FindAllString(text, -1) {
				if v != "%%" {
					verbs = append(verbs, v)
				}
			}
			for i, a := range call.Args[1:] {
				if i >= len(verbs) {
					break
				}
				var b strings.Builder
				if err := format.Node(&b, fset, a); err == nil && errArg.MatchString(b.String()) {
					checked++
					if verbs[i] != "%w" {
						t.Errorf("%s: fmt.Errorf formats the error %s with %s: wrap it with %%w (or pass %s.Error() for text only)",
							fset.Position(call.Pos()), b.String(), verbs[i], b.String())
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d wrapped errors seen: the walk missed the tree", checked)
	}
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
