package main

import (
	"github.com/oltpbench/oltpbench/internal/layers"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/engine/pipeline"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// genericPackages know workloads only through the contract: every package
// of the rooms below the workloads' and above them (layers.Generic).
func genericPackages(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(p, layers.Module+"/")
		if r := layers.RoomOf(rel); r != nil && r.Generic {
			pkgs = append(pkgs, rel)
		}
	}
	if len(pkgs) < 20 {
		t.Fatalf("%d generic packages: %q", len(pkgs), pkgs)
	}
	return pkgs
}

// serverNames are the servers' own names that hold a workload's word: TiDB's
// statements summary history and InnoDB's history list are not TPC-C's
// history table.
var serverNames = strings.NewReplacer("statements_summary_history", "", "history_list", "")

// workloadWords are what a generic package must not name: every registered
// workload, its results' operations, its metric and figures, its tables and
// its columns (those long enough not to be ordinary words).
func workloadWords(t *testing.T) []string {
	var names []string
	for _, s := range workload.All() {
		names = append(names, s.Name)
		p, err := pipeline.Configure(append([]string{s.Name}, firstTest(s)...), "prepare")
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		m := p.Workload().Metric()
		names = append(names, m.Ops...)
		if m.Name != result.QPS.Name { // statement counting is result's own metric
			names = append(names, m.Name)
		}
		for _, tab := range p.Workload().Dataset().Tables {
			names = append(names, tab.Name)
			for _, c := range tab.Columns {
				if len(c) >= 4 && strings.Contains(c, "_") {
					names = append(names, c)
				}
			}
		}
	}
	// CH's region is also S3's (loader's store); nation goes with it.
	names = slices.DeleteFunc(names, func(n string) bool { return n == "region" || n == "nation" || n == "part" })
	// The tests, transactions and figures that results name.
	return append(names, "oltp_", "select_random", "bulk_insert", "payment", "order_status", "delivery", "stock_level",
		"TPC-C", "tpmTotal", "_x100", "sbtest", "warehouse", "QphH", "revenue1", "CH-benCHmark", "TPC-H", "lineitem", "partsupp")
}

// wordPattern matches any of words: a short one (a workload called "ch")
// only as a whole word, so that "checkpoint" passes.
func wordPattern(words []string, withShort bool) *regexp.Regexp {
	var long, short []string
	for _, w := range words {
		if len(w) < 4 {
			short = append(short, regexp.QuoteMeta(w))
		} else {
			long = append(long, regexp.QuoteMeta(w))
		}
	}
	pat := `(^|[^a-z])(` + strings.Join(long, "|") + `)`
	if len(short) > 0 && withShort {
		pat = `(^|[^a-z])(` + strings.Join(long, "|") + `|(?:` + strings.Join(short, "|") + `)(?:[^a-z0-9_]|$))`
	}
	return regexp.MustCompile(`(?i)` + pat)
}

// firstTest is the positional argument a workload's prepare takes, if any.
func firstTest(s workload.Spec) []string {
	switch {
	case s.Args == 0:
		return nil
	case s.Name == "ycsb":
		return []string{"mysql"} // its binding
	}
	return []string{"oltp_read_write"}
}

// The generic packages know workloads only through the contract: no code
// (identifier or string) in their non-test files may name a registered
// workload, one of its results or operations, its metric, tables or columns.
// Comments may say whose behaviour the code follows ("as sysbench does").
func TestGenericPackagesNameNoWorkload(t *testing.T) {
	words := workloadWords(t)
	// A short name is looked for in strings only: ch is also Go's name for a channel.
	re, reIdent := wordPattern(words, true), wordPattern(words, false)
	for _, dir := range genericPackages(t) {
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
				r := re
				if tok == token.IDENT {
					r = reIdent
				}
				if m := r.FindStringSubmatch(serverNames.Replace(lit)); m != nil && (tok == token.IDENT || tok == token.STRING) {
					t.Errorf("%s names workload %q: %s", fset.Position(pos), m[2], lit)
				}
			}
		}
	}
}

// The report path (reading, merging and comparing result files) works
// offline: it links neither the runner nor a database driver.
func TestReportPathLinksNoDriver(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(gobin, "list", "-deps", "../../internal/result", "../../internal/report/compare").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, bad := range []string{"github.com/go-sql-driver/mysql", "/internal/engine/runner", "/internal/conn", "/internal/workload", "database/sql"} {
			if strings.HasSuffix(dep, bad) || dep == bad {
				t.Errorf("the report path links %s", dep)
			}
		}
	}
}
