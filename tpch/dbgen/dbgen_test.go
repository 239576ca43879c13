package dbgen

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// golden is one line of testdata/dbgen-sha256.txt: the rows and the
// SHA-256 of a flat file TPC's dbgen 2.17.3 wrote (dbgen -s SF [-U N]).
type golden struct {
	sf   string
	file string
	rows int64
	sum  string
}

func goldens(t *testing.T) []golden {
	t.Helper()
	b, err := os.ReadFile("testdata/dbgen-sha256.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []golden
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		rows, _ := strconv.ParseInt(f[2], 10, 64)
		out = append(out, golden{f[0], f[1], rows, f[3]})
	}
	return out
}

// tbl writes what makes a dbgen file: a table, a refresh pair's orders or
// lines ("orders.tbl.u2"), or a pair's deleted keys ("delete.2").
func tbl(s *Scale, file string, w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	tw := NewTblWriter(bw)
	var err error
	name, ext, _ := strings.Cut(file, ".")
	switch {
	case name == "delete":
		pair, _ := strconv.Atoi(ext)
		first, n := s.RefreshDeletes(pair)
		for i := first; i < first+n; i++ {
			tw.Int(KeyOf("orders", i))
			tw.EndRow()
		}
	case strings.HasPrefix(ext, "tbl.u"):
		pair, _ := strconv.Atoi(strings.TrimPrefix(ext, "tbl.u"))
		err = s.GenRefresh(pair, name == "lineitem", tw)
	default:
		err = s.Gen(name, 0, s.Indexes(name), tw)
	}
	if err != nil {
		return 0, err
	}
	return tw.Rows, bw.Flush()
}

// TestSameAsDbgen: every table, refresh set and delete set at SF 0.01, 0.1
// and 1 is byte for byte what dbgen wrote (its rows and SHA-256).
func TestSameAsDbgen(t *testing.T) {
	for _, g := range goldens(t) {
		t.Run(g.sf+"/"+g.file, func(t *testing.T) {
			if g.sf == "1" && testing.Short() {
				t.Skip("SF 1 in -short")
			}
			t.Parallel()
			sf, _ := strconv.ParseFloat(g.sf, 64)
			s, err := NewScale(sf)
			if err != nil {
				t.Fatal(err)
			}
			h := sha256.New()
			rows, err := tbl(s, g.file, h)
			if err != nil {
				t.Fatal(err)
			}
			if rows != g.rows || hex.EncodeToString(h.Sum(nil)) != g.sum {
				t.Errorf("SF %s %s: %d rows, sha256 %x; dbgen wrote %d rows, %s", g.sf, g.file, rows, h.Sum(nil), g.rows, g.sum)
			}
		})
	}
}

// TestChunks: a table made in chunks from any index is the table made whole.
func TestChunks(t *testing.T) {
	s, err := NewScale(0.01)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range Tables {
		whole, chunked := sha256.New(), sha256.New()
		n := s.Indexes(tb.Name)
		genTo(t, s, tb.Name, 0, n, whole)
		for first, step := int64(0), int64(1); first < n; first, step = first+step, step*3 {
			genTo(t, s, tb.Name, first, min(step, n-first), chunked)
		}
		if string(whole.Sum(nil)) != string(chunked.Sum(nil)) {
			t.Errorf("%s made in chunks differs from %s made whole", tb.Name, tb.Name)
		}
	}
}

// TestRefreshChunks: a refresh pair made in parts is the pair made whole.
func TestRefreshChunks(t *testing.T) {
	s, err := NewScale(0.1)
	if err != nil {
		t.Fatal(err)
	}
	for _, lines := range []bool{false, true} {
		whole, parts := sha256.New(), sha256.New()
		bw := bufio.NewWriter(whole)
		if err := s.GenRefresh(3, lines, NewTblWriter(bw)); err != nil {
			t.Fatal(err)
		}
		bw.Flush()
		bp := bufio.NewWriter(parts)
		n := s.RefreshOrders()
		for first := int64(0); first < n; first += 40 {
			if err := s.GenRefreshRange(3, first, min(40, n-first), lines, NewTblWriter(bp)); err != nil {
				t.Fatal(err)
			}
		}
		bp.Flush()
		if string(whole.Sum(nil)) != string(parts.Sum(nil)) {
			t.Errorf("refresh pair 3 (lines %v) made in parts differs from it made whole", lines)
		}
	}
}

func genTo(t *testing.T, s *Scale, table string, first, n int64, h hash.Hash) {
	t.Helper()
	bw := bufio.NewWriter(h)
	if err := s.Gen(table, first, n, NewTblWriter(bw)); err != nil {
		t.Fatal(err)
	}
	bw.Flush()
}

func TestScaleInput(t *testing.T) {
	for _, c := range []struct {
		sf   float64
		want string
	}{
		{0, "invalid --sf=0: a scale factor above 0"},
		{-1, "invalid --sf=-1: a scale factor above 0"},
		{0.0005, "invalid --sf=0.0005: below 1 a scale factor is in thousandths"},
		{1.5, "invalid --sf=1.5: from 1 up a scale factor is a whole number"},
		{30000, "invalid --sf=30000: scale factors from 30000 up"},
	} {
		_, err := NewScale(c.sf)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("NewScale(%v) = %v, want %q...", c.sf, err, c.want)
		}
	}
	for sf, parts := range map[float64]int64{0.001: 200, 0.01: 2000, 0.25: 50000, 1: 200000, 10: 2000000} {
		s, err := NewScale(sf)
		if err != nil || s.Parts() != parts {
			t.Errorf("NewScale(%v): %v parts, %v; want %d", sf, s, err, parts)
		}
	}
}

// TestOrderKeys: the sparse keys map back to their orders.
func TestOrderKeys(t *testing.T) {
	for i := int64(1); i < 1000; i++ {
		k := OrderKey(i)
		if j, ok := OrderIndex(k); !ok || j != i {
			t.Fatalf("OrderIndex(OrderKey(%d) = %d) = %d, %v", i, k, j, ok)
		}
		if _, ok := OrderIndex(RefreshKey(i)); ok {
			t.Fatalf("refresh key %d taken for a loaded order", RefreshKey(i))
		}
	}
}
