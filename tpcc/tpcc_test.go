package tpcc

import (
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
)

func TestConstantsRespectDeltaRule(t *testing.T) {
	for seed := uint64(0); seed < 2000; seed++ {
		c := Constants(seed)
		d := c.LastRun - c.Last
		if d < 0 {
			d = -d
		}
		if d < 65 || d > 119 || d == 96 || d == 112 || c.Last < 0 || c.Last > 255 || c.ID > 1023 || c.Item > 8191 {
			t.Fatalf("seed %d: %+v (delta %d)", seed, c, d)
		}
	}
}

func TestNURandRangeAndSkew(t *testing.T) {
	r := random.NewRand(1)
	counts := map[int64]int{}
	for i := 0; i < 200000; i++ {
		v := NURand(r, 1023, 259, 1, 3000)
		if v < 1 || v > 3000 {
			t.Fatalf("NURand out of range: %d", v)
		}
		counts[v]++
	}
	max := 0
	for _, c := range counts {
		if c > max {
			max = c
		}
	}
	if float64(max) < 3*200000.0/3000 {
		t.Errorf("NURand looks uniform: most frequent value drawn %d times", max)
	}
}

func TestLastName(t *testing.T) {
	for n, want := range map[int64]string{0: "BARBARBAR", 371: "PRICALLYOUGHT", 999: "EINGEINGEING"} {
		if got := string(LastName(nil, n)); got != want {
			t.Errorf("LastName(%d) = %s, want %s", n, got, want)
		}
	}
}

type rows struct {
	vals [][]string
	cur  []string
}

func (r *rows) Int(v int64)                   { r.cur = append(r.cur, itoa(v)) }
func (r *rows) Float(v float64, decimals int) { r.cur = append(r.cur, "f") }
func (r *rows) Str(s string)                  { r.cur = append(r.cur, s) }
func (r *rows) Bytes(b []byte)                { r.cur = append(r.cur, string(b)) }
func (r *rows) Plain(b []byte)                { r.cur = append(r.cur, string(b)) }
func (r *rows) Null()                         { r.cur = append(r.cur, "NULL") }
func (r *rows) EndRow() error                 { r.vals, r.cur = append(r.vals, r.cur), nil; return nil }

func itoa(v int64) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	neg := v < 0
	if neg {
		v = -v
	}
	for v > 0 {
		b = append([]byte{byte('0' + v%10)}, b...)
		v /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

func gen(t *testing.T, tab dataset.Table, chunk int64) [][]string {
	t.Helper()
	first, n := tab.ChunkRange(chunk)
	r := &rows{}
	if err := tab.Gen(random.NewRand(9, uint64(chunk)), first, n, r); err != nil {
		t.Fatal(err)
	}
	for _, row := range r.vals {
		if len(row) != len(tab.Columns) {
			t.Fatalf("%s: row of %d values, %d columns", tab.Name, len(row), len(tab.Columns))
		}
	}
	return r.vals
}

// The population rules of clause 4.3.3.1 that the checks do not cover.
func TestPopulation(t *testing.T) {
	tabs := map[string]dataset.Table{}
	for _, tb := range Tables(SchemaTPCC, 2, 9, Layout{}) {
		tabs[tb.Name] = tb
	}
	// Customers: 10% BC, the first 1000 with the fixed last names.
	cust := gen(t, tabs["customer"], 1)
	if len(cust) != 30000 || cust[0][2] != "2" {
		t.Fatalf("customer chunk 1: %d rows, w_id %s", len(cust), cust[0][2])
	}
	bc := 0
	for _, c := range cust {
		if c[13] == "BC" {
			bc++
		}
	}
	if bc < 2700 || bc > 3300 {
		t.Errorf("%d BC customers of 30000", bc)
	}
	if cust[0][5] != "BARBARBAR" || cust[999][5] != "EINGEINGEING" {
		t.Errorf("last names of customers 1 and 1000: %s %s", cust[0][5], cust[999][5])
	}
	// Orders: O_C_ID a permutation per district; carriers NULL exactly from order 2101.
	ord := gen(t, tabs["orders"], 0)
	seen := map[string]bool{}
	lines := 0
	for i, o := range ord[:3000] {
		if seen[o[3]] {
			t.Fatalf("customer %s ordered twice in district 1", o[3])
		}
		seen[o[3]] = true
		if (i+1 >= NewOrdFirst) != (o[5] == "NULL") {
			t.Fatalf("order %d carrier %s", i+1, o[5])
		}
		n := int(o[6][0] - '0')
		if len(o[6]) == 2 {
			n = 10 + int(o[6][1]-'0')
		}
		lines += n
	}
	// Order lines agree with the orders' counts, whatever the chunking.
	ol := gen(t, tabs["order_line"], 0)
	count := 0
	for _, l := range ol {
		if l[1] == "1" {
			count++
		}
	}
	if count != lines {
		t.Errorf("district 1 has %d order lines, orders say %d", count, lines)
	}
	// I_DATA: ORIGINAL in about 10% of items.
	items := gen(t, tabs["item"], 0)
	orig := 0
	for _, it := range items {
		if strings.Contains(it[4], "ORIGINAL") {
			orig++
		}
	}
	if orig < 800 || orig > 1200 {
		t.Errorf("%d of 10000 items ORIGINAL", orig)
	}
	// NEW-ORDER: orders 2101..3000 of each district.
	no := gen(t, tabs["new_order"], 0)
	if len(no) != 9000 || no[0][0] != "2101" || no[899][0] != "3000" || no[900][1] != "2" {
		t.Errorf("new_order rows %d, first %v, 900th %v", len(no), no[0], no[900])
	}
}

func TestParseChecksAndWeights(t *testing.T) {
	c, err := ParseChecks("1-4,12")
	if err != nil || len(c) != 5 || c[4] != 12 {
		t.Fatal(c, err)
	}
	if c, _ := ParseChecks(""); len(c) != 11 {
		t.Fatal("default should be all but 11")
	}
	for _, bad := range []string{"0", "13", "4-2", "x"} {
		if _, err := ParseChecks(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := ParseWeights("45,43,4,4"); err == nil {
		t.Error("four weights accepted")
	}
	if w, err := ParseWeights("1,0,0,0,0"); err != nil || w[0] != 1 {
		t.Error(w, err)
	}
}
