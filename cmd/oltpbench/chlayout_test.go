package main

import (
	"slices"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/oltpbench/oltpbench/ch"
	"github.com/oltpbench/oltpbench/internal/engine/pipeline"
)

// readTables collects the tables a statement reads.
type readTables []string

func (t *readTables) Enter(n ast.Node) (ast.Node, bool) {
	if tn, ok := n.(*ast.TableName); ok {
		*t = append(*t, tn.Name.L)
	}
	return n, false
}
func (t *readTables) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// TestCHLayoutAgrees: in every TPC-C layout, each table CH's queries and
// view read is a table of the dataset ch loads (or its view): the layout
// names its tables (Dataset.Names) and CH writes with those names, so a
// table renamed in tpcc's layout and not in its names fails here.
func TestCHLayoutAgrees(t *testing.T) {
	for _, schema := range []string{"tpcc", "benchmarksql"} {
		p, err := pipeline.Configure([]string{"ch", "--schema=" + schema}, "prepare")
		if err != nil {
			t.Fatal(err)
		}
		ds := p.Workload().Dataset()
		if len(ds.Names) < 9 {
			t.Fatalf("%s: the dataset names %d of TPC-C's 9 tables: %v", schema, len(ds.Names), ds.Names)
		}
		have := []string{}
		for _, tb := range ds.Tables {
			have = append(have, tb.Name)
		}
		for _, v := range ds.Views {
			have = append(have, v.Name)
		}
		read := 0
		for _, q := range ch.Statements(ds.Names) {
			stmts, _, err := parser.New().Parse(q, "", "")
			if err != nil {
				t.Fatalf("%s: %v\n%s", schema, err, q)
			}
			var names readTables
			for _, s := range stmts {
				s.Accept(&names)
			}
			for _, n := range names {
				read++
				if !slices.Contains(have, n) {
					t.Errorf("%s: a CH statement reads %s, which the dataset does not have (%v)", schema, n, have)
				}
			}
		}
		if read < 22 {
			t.Errorf("%s: only %d tables read by the queries", schema, read)
		}
	}
}
