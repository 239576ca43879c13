package tpch

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/oltpbench/oltpbench/tpch/dbgen"
)

// refreshBatch is how many orders one statement of RF1 inserts or of RF2
// deletes; each batch is its own transaction, an order with its lines.
const refreshBatch = 100

// values writes rows as the VALUES of a multi-row INSERT.
type values struct {
	b     strings.Builder
	first bool
	rows  int
}

func (v *values) sep() {
	if v.first {
		if v.rows > 0 {
			v.b.WriteString(",")
		}
		v.b.WriteString("(")
		v.first = false
		return
	}
	v.b.WriteString(",")
}

func (v *values) Int(x int64) { v.sep(); v.b.WriteString(strconv.FormatInt(x, 10)) }
func (v *values) Money(c int64) {
	v.sep()
	v.b.Write(dbgen.AppendMoney(nil, c))
}
func (v *values) Str(s []byte) {
	v.sep()
	v.b.WriteByte('\'')
	for _, c := range s {
		if c == '\'' || c == '\\' {
			v.b.WriteByte('\\')
		}
		v.b.WriteByte(c)
	}
	v.b.WriteByte('\'')
}
func (v *values) EndRow() error {
	v.b.WriteString(")")
	v.first = true
	v.rows++
	return nil
}

// insertOrders are the statements that insert orders (and their lines)
// made by gen, which writes a range of them, in batches: per batch the
// orders' INSERT then the lines'.
func insertOrders(n int64, gen func(first, n int64, lines bool, w dbgen.Writer) error) ([][]string, error) {
	var out [][]string
	for first := int64(0); first < n; first += refreshBatch {
		k := min(refreshBatch, n-first)
		var batch []string
		for _, t := range []struct {
			name  string
			lines bool
		}{{"orders", false}, {"lineitem", true}} {
			v := &values{first: true}
			if err := gen(first, k, t.lines, v); err != nil {
				return nil, err
			}
			batch = append(batch, "INSERT INTO "+t.name+" VALUES "+v.b.String())
		}
		out = append(out, batch)
	}
	return out, nil
}

// rf1 are RF1's statements for a refresh pair, batch by batch.
func rf1(s *dbgen.Scale, pair int) ([][]string, error) {
	return insertOrders(s.RefreshOrders(), func(first, n int64, lines bool, w dbgen.Writer) error {
		return s.GenRefreshRange(pair, first, n, lines, w)
	})
}

// rf2 are RF2's statements for a refresh pair: the lines, then the
// orders, of the old orders it deletes, batch by batch.
func rf2(s *dbgen.Scale, pair int) [][]string {
	first, n := s.RefreshDeletes(pair)
	var out [][]string
	for i := first; i < first+n; i += refreshBatch {
		var keys []string
		for j := i; j < min(i+refreshBatch, first+n); j++ {
			keys = append(keys, strconv.FormatInt(dbgen.OrderKey(j+1), 10))
		}
		in := strings.Join(keys, ",")
		out = append(out, []string{"DELETE FROM lineitem WHERE l_orderkey IN (" + in + ")",
			"DELETE FROM orders WHERE o_orderkey IN (" + in + ")"})
	}
	return out
}

// restore puts the orders of refresh pairs back as loaded, pair by pair
// from the first, until a pair that no run changed: RF1's orders deleted,
// RF2's put back. It returns the pairs it changed.
func restore(ctx context.Context, db *sql.DB, s *dbgen.Scale) (int, error) {
	fixed := 0
	for pair := 1; int64(pair)*s.RefreshOrders() <= s.Orders(); pair++ {
		changed, err := restorePair(ctx, db, s, pair)
		if err != nil {
			return fixed, fmt.Errorf("putting back the orders of refresh pair %d: %w", pair, err)
		}
		if !changed {
			return fixed, nil
		}
		fixed++
	}
	return fixed, nil
}

func restorePair(ctx context.Context, db *sql.DB, s *dbgen.Scale, pair int) (bool, error) {
	n := s.RefreshOrders()
	lo := int64(pair-1)*n + 1
	hi := lo + n - 1
	// RF1's orders of the pair: keys with the second key group.
	var added int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM orders WHERE o_orderkey BETWEEN ? AND ? AND o_orderkey & 24 = 8",
		dbgen.RefreshKey(lo), dbgen.RefreshKey(hi)).Scan(&added); err != nil {
		return false, err
	}
	var addedLines int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM lineitem WHERE l_orderkey BETWEEN ? AND ? AND l_orderkey & 24 = 8",
		dbgen.RefreshKey(lo), dbgen.RefreshKey(hi)).Scan(&addedLines); err != nil {
		return false, err
	}
	// RF2's: the pair's old orders, all there with all their lines.
	var kept, keptLines int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM orders WHERE o_orderkey BETWEEN ? AND ? AND o_orderkey & 24 = 0",
		dbgen.OrderKey(lo), dbgen.OrderKey(hi)).Scan(&kept); err != nil {
		return false, err
	}
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM lineitem WHERE l_orderkey BETWEEN ? AND ? AND l_orderkey & 24 = 0",
		dbgen.OrderKey(lo), dbgen.OrderKey(hi)).Scan(&keptLines); err != nil {
		return false, err
	}
	lines := &counter{}
	first, _ := s.RefreshDeletes(pair)
	if err := s.Gen("lineitem", first, n, lines); err != nil {
		return false, err
	}
	if added == 0 && addedLines == 0 && kept == n && keptLines == lines.rows {
		return false, nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	for _, q := range []string{
		"DELETE FROM lineitem WHERE l_orderkey BETWEEN ? AND ? AND l_orderkey & 24 = 8",
		"DELETE FROM orders WHERE o_orderkey BETWEEN ? AND ? AND o_orderkey & 24 = 8",
	} {
		if _, err := tx.ExecContext(ctx, q, dbgen.RefreshKey(lo), dbgen.RefreshKey(hi)); err != nil {
			return false, err
		}
	}
	for _, q := range []string{
		"DELETE FROM lineitem WHERE l_orderkey BETWEEN ? AND ? AND l_orderkey & 24 = 0",
		"DELETE FROM orders WHERE o_orderkey BETWEEN ? AND ? AND o_orderkey & 24 = 0",
	} {
		if _, err := tx.ExecContext(ctx, q, dbgen.OrderKey(lo), dbgen.OrderKey(hi)); err != nil {
			return false, err
		}
	}
	batches, err := insertOrders(n, func(f, k int64, l bool, w dbgen.Writer) error {
		table := "orders"
		if l {
			table = "lineitem"
		}
		return s.Gen(table, first+f, k, w)
	})
	if err != nil {
		return false, err
	}
	for _, b := range batches {
		for _, q := range b {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return false, err
			}
		}
	}
	return true, tx.Commit()
}

type counter struct{ rows int64 }

func (c *counter) Int(int64)     {}
func (c *counter) Money(int64)   {}
func (c *counter) Str([]byte)    {}
func (c *counter) EndRow() error { c.rows++; return nil }
