package tpch

import (
	"github.com/oltpbench/oltpbench/internal/testenv/race"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/oltpbench/oltpbench/tpch/dbgen"
)

// TestStatementsParseForTiDB: every query, with the validation parameters
// and with random ones, parses with TiDB's parser (no TiDB server here).
func TestStatementsParseForTiDB(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, params := range []Params{DefaultParams(1), RandomParams(1, r), RandomParams(0.01, r)} {
		for _, q := range Queries {
			stmts := q.Statements(params[q.N], 3)
			if want := map[bool]int{true: 3, false: 1}[q.N == 15]; len(stmts) != want {
				t.Fatalf("%s: %d statements, want %d", q.Name, len(stmts), want)
			}
			for _, s := range stmts {
				if strings.Contains(s, ":") && !strings.Contains(s, "'") {
					t.Errorf("%s: a mark left in %q", q.Name, s)
				}
				if _, _, err := parser.New().Parse(s, "", ""); err != nil {
					t.Errorf("TiDB's parser refuses %s: %v\n%s", q.Name, err, s)
				}
			}
		}
	}
}

func TestSelectQueries(t *testing.T) {
	for _, c := range []struct {
		list string
		want []int
		err  string
	}{
		{"all", nil, ""},
		{"q1,q6, Q14", []int{1, 6, 14}, ""},
		{"q1,q23", nil, `unknown query "q23" in --queries: TPC-H's queries are q1 to q22`},
		{"q0", nil, `unknown query "q0"`},
		{"6", nil, `unknown query "6"`},
		{"q2,q2", nil, "query q2 twice in --queries"},
	} {
		qs, err := SelectQueries(c.list)
		if c.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), c.err) {
				t.Errorf("SelectQueries(%q) = %v, want %q", c.list, err, c.err)
			}
			continue
		}
		var got []int
		for _, q := range qs {
			got = append(got, q.N)
		}
		if c.want == nil {
			c.want = got[:0:0]
			for i := 1; i <= 22; i++ {
				c.want = append(c.want, i)
			}
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("SelectQueries(%q) = %v, %v; want %v", c.list, got, err, c.want)
		}
	}
}

// TestStreamOrders: every stream's order is a permutation of the 22
// queries, and a subset keeps the stream's order.
func TestStreamOrders(t *testing.T) {
	for s := range order {
		qs := StreamOrder(s, Queries)
		var ns []int
		for _, q := range qs {
			ns = append(ns, q.N)
		}
		sorted := slices.Sorted(slices.Values(ns))
		for i, n := range sorted {
			if n != i+1 {
				t.Fatalf("stream %d: %v is not a permutation of 1..22", s, ns)
			}
		}
	}
	sub, _ := SelectQueries("q1,q2,q14")
	var got []string
	for _, q := range StreamOrder(0, sub) {
		got = append(got, q.Name)
	}
	if strings.Join(got, ",") != "q14,q2,q1" {
		t.Errorf("stream 0 of q1,q2,q14 = %v, want q14,q2,q1 (the power test's order)", got)
	}
}

// TestRandomParams: the substitution rules' ranges, and one seed's
// parameters are the same every time.
func TestRandomParams(t *testing.T) {
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	for seed := uint64(0); seed < 200; seed++ {
		p := RandomParams(1, rand.New(rand.NewPCG(seed, 0)))
		if d := atoi(p[1][0]); d < 60 || d > 120 {
			t.Fatalf("Q1 delta %d", d)
		}
		if q := atoi(p[18][0]); q < 312 || q > 315 {
			t.Fatalf("Q18 quantity %d", q)
		}
		if p[7][0] == p[7][1] || p[12][0] == p[12][1] {
			t.Fatalf("Q7 or Q12 with the same value twice: %v %v", p[7], p[12])
		}
		codes := map[string]bool{}
		for _, c := range p[22] {
			if n := atoi(c); n < 10 || n > 34 || codes[c] {
				t.Fatalf("Q22 codes %v", p[22])
			}
			codes[c] = true
		}
		if len(p[16]) != 10 || !strings.HasPrefix(p[16][0], "Brand#") {
			t.Fatalf("Q16 %v", p[16])
		}
		if d := p[4][0]; d < "1993-01-01" || d > "1997-10-01" || !strings.HasSuffix(d, "-01") {
			t.Fatalf("Q4 date %s", d)
		}
	}
	a := RandomParams(1, rand.New(rand.NewPCG(7, 1)))
	b := RandomParams(1, rand.New(rand.NewPCG(7, 1)))
	c := RandomParams(1, rand.New(rand.NewPCG(7, 2)))
	same := func(x, y Params) bool {
		for n := 1; n <= 22; n++ {
			if !slices.Equal(x[n], y[n]) {
				return false
			}
		}
		return true
	}
	if !same(a, b) || same(a, c) {
		t.Errorf("random parameters: same seed differ %v, other stream the same %v", !same(a, b), same(a, c))
	}
}

// TestAnswerSet: the 22 answers parse with the columns their kinds name,
// and the comparison keeps the specification's rules.
func TestAnswerSet(t *testing.T) {
	for n := 1; n <= 22; n++ {
		rows, err := Answer(n)
		if err != nil || len(rows) == 0 {
			t.Fatalf("q%d: %v, %d rows", n, err, len(rows))
		}
		if err := compareAnswer(n, rows); err != nil {
			t.Errorf("q%d against itself: %v", n, err)
		}
	}
	want := [][]string{{"A", "37734107.00", "25.52", "1478493"}}
	kind := []string{"str", "sum", "avg", "cnt"}
	for _, c := range []struct {
		row []string
		ok  bool
	}{
		{[]string{"A", "37734107", "25.5220", "1478493"}, true},
		{[]string{"A", "37734107.00", "25.77", "1478493"}, true},  // avg within 1%
		{[]string{"A", "37734107.00", "25.80", "1478493"}, false}, // past 1%
		{[]string{"A", "37734107.00", "25.52", "1478494"}, false}, // a count exactly
		{[]string{"a", "37734107.00", "25.52", "1478493"}, false}, // a string exactly
		{[]string{"A", "38200000.00", "25.52", "1478493"}, false}, // a sum past 1%
	} {
		err := compareRows(kind, want, [][]string{c.row})
		if (err == nil) != c.ok {
			t.Errorf("%v: %v, want ok=%v", c.row, err, c.ok)
		}
	}
	if err := compareRows([]string{"num"}, [][]string{{"9938.53"}}, [][]string{{"9938.54"}}); err == nil {
		t.Error("a single value 9938.54 taken for 9938.53")
	}
}

func TestMetrics(t *testing.T) {
	for sf, want := range map[float64]int{0.01: 2, 1: 2, 10: 3, 30: 4, 100: 5, 1000: 7, 3000: 8} {
		if got := MinStreams(sf); got != want {
			t.Errorf("MinStreams(%v) = %d, want %d", sf, got, want)
		}
	}
	// Clause 5.4.1.4: 0.001 s next to 10 s counts as 0.01 s.
	if got := floorTimes([]float64{10, 0.001, 5}); got[1] != 0.01 || got[0] != 10 {
		t.Errorf("floorTimes = %v", got)
	}
	if g := geoMean([]float64{1, 4, 16}); g < 3.999 || g > 4.001 {
		t.Errorf("geoMean = %v, want 4", g)
	}
}

// TestDDLAndRefreshParseForTiDB: the tables' DDL and the refresh
// functions' statements parse with TiDB's parser.
func TestDDLAndRefreshParseForTiDB(t *testing.T) {
	race.Skip(t)
	s, err := dbgen.NewScale(0.01)
	if err != nil {
		t.Fatal(err)
	}
	var stmts []string
	for _, d := range ddl {
		stmts = append(stmts, d)
	}
	ins, err := rf1(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) == 0 || len(rf2(s, 2)) == 0 {
		t.Fatal("no refresh statements")
	}
	for _, b := range append(ins, rf2(s, 2)...) {
		stmts = append(stmts, b...)
	}
	for _, q := range stmts {
		if _, _, err := parser.New().Parse(q, "", ""); err != nil {
			t.Errorf("TiDB's parser refuses %.200s: %v", q, err)
		}
	}
	// RF1 inserts the pair's orders and their lines, every value quoted
	// or a number.
	if !strings.HasPrefix(ins[0][0], "INSERT INTO orders VALUES (") || !strings.HasPrefix(ins[0][1], "INSERT INTO lineitem VALUES (") {
		t.Errorf("RF1's first batch: %.80s / %.80s", ins[0][0], ins[0][1])
	}
}
