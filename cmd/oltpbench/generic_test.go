package main

import (
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/workload"
)

// The generic packages know workloads only through the contract: no code
// (identifier or string) in their non-test files may name a registered
// workload, one of its results or its operations. Comments may say whose
// behaviour the code follows ("as sysbench does").
func TestGenericPackagesNameNoWorkload(t *testing.T) {
	var names []string
	for _, s := range workload.All() {
		names = append(names, s.Name)
		w := s.New()
		names = append(names, w.Metric().Ops...)
	}
	// The tests and transactions that results name.
	names = append(names, "oltp_", "select_random", "bulk_insert", "payment", "order_status", "delivery", "stock_level", "TPC-C")
	re := regexp.MustCompile(`(?i)` + strings.Join(quoteAll(names), "|"))
	for _, dir := range []string{"internal/runner", "internal/result", "internal/compare", "internal/bench", "internal/hist", "internal/plan"} {
		files, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			var sc scanner.Scanner
			sc.Init(fset.AddFile(f, -1, len(b)), b, nil, 0)
			for {
				pos, tok, lit := sc.Scan()
				if tok == token.EOF {
					break
				}
				if m := re.FindString(lit); m != "" && (tok == token.IDENT || tok == token.STRING) {
					t.Errorf("%s names workload %q: %s", fset.Position(pos), m, lit)
				}
			}
		}
	}
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = regexp.QuoteMeta(x)
	}
	return out
}
