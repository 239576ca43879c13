package tpch

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// The specification's answer set: each query's rows at SF 1 with the
// validation parameters, as TPC publishes them (one file per query,
// values separated by '|', padded with spaces, a header line first).
//
//go:embed answers/*.out
var answerFiles embed.FS

// kinds are each query's columns as clause 2.1.3.5 compares them: str,
// int and cnt exactly; num (a single value) to the cent; sum, avg and rat
// (aggregates and ratios) rounded to the cent and within 1%.
var kinds = [23]string{1: "str str sum sum sum sum avg avg avg cnt", 2: "num str str int str str str str",
	3: "int sum str int", 4: "str cnt", 5: "str sum", 6: "sum", 7: "str str int sum", 8: "int rat",
	9: "str int sum", 10: "int str sum num str str str str", 11: "int sum", 12: "str sum sum",
	13: "cnt cnt", 14: "rat", 15: "int str str str sum", 16: "str str num cnt", 17: "avg",
	18: "str int int str num sum", 19: "sum", 20: "str str", 21: "str cnt", 22: "num cnt sum"}

// Answer is query n's rows in the answer set.
func Answer(n int) ([][]string, error) {
	b, err := answerFiles.ReadFile(fmt.Sprintf("answers/q%d.out", n))
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	var out [][]string
	for _, l := range lines[1:] {
		var row []string
		for _, v := range strings.Split(l, "|") {
			row = append(row, strings.TrimSpace(v))
		}
		out = append(out, row)
	}
	return out, nil
}

// compareAnswer says how rows differ from query n's answer, or nil.
func compareAnswer(n int, rows [][]string) error {
	want, err := Answer(n)
	if err != nil {
		return err
	}
	return compareRows(strings.Fields(kinds[n]), want, rows)
}

// compareRows compares rows with want by the columns' kinds, row by row in order.
func compareRows(kind []string, want, rows [][]string) error {
	if len(rows) != len(want) {
		return fmt.Errorf("%d rows, the answer has %d", len(rows), len(want))
	}
	for i := range want {
		if len(rows[i]) != len(kind) || len(want[i]) != len(kind) {
			return fmt.Errorf("row %d: %d columns, the answer has %d", i+1, len(rows[i]), len(want[i]))
		}
		for j, k := range kind {
			if !sameValue(k, want[i][j], rows[i][j]) {
				return fmt.Errorf("row %d column %d: %q, the answer has %q", i+1, j+1, rows[i][j], want[i][j])
			}
		}
	}
	return nil
}

func sameValue(kind, want, got string) bool {
	got = strings.TrimSpace(got)
	switch kind {
	case "str":
		return got == want
	case "int", "cnt":
		a, err1 := strconv.ParseFloat(got, 64)
		b, err2 := strconv.ParseFloat(want, 64)
		return err1 == nil && err2 == nil && a == b
	}
	g, err1 := strconv.ParseFloat(got, 64)
	w, err2 := strconv.ParseFloat(want, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	r := math.Round(g*100) / 100
	if kind == "num" {
		return math.Abs(r-w) < 0.005
	}
	lo, hi := 0.99*w, 1.01*w
	if w < 0 {
		lo, hi = hi, lo
	}
	return r >= lo-0.005 && r <= hi+0.005
}

// checkCommand is `tpch check`: every table holds dbgen's rows at --sf,
// and at SF 1 the 22 queries with the validation parameters give the
// answer set.
func (w *tpch) checkCommand(ctx context.Context, db *sql.DB, _ int, out io.Writer) error {
	failed := 0
	verdict := func(what string, ok bool, start time.Time) {
		v := "PASS"
		if !ok {
			v, failed = "FAIL", failed+1
		}
		fmt.Fprintf(out, "tpch %-70s %s  %.2fs\n", what, v, time.Since(start).Seconds())
	}
	for _, t := range []string{"region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"} {
		start := time.Now()
		want := rowsOf(w.scale, t)
		var n int64
		qctx, cancel := w.bound(ctx)
		err := db.QueryRowContext(qctx, "SELECT COUNT(*) FROM "+t).Scan(&n)
		cancel()
		if err != nil {
			return fmt.Errorf("counting %s: %w", t, err)
		}
		verdict(fmt.Sprintf("%s holds dbgen's %d rows (%d)", t, want, n), n == want, start)
	}
	if w.sf != 1 {
		fmt.Fprintf(out, "tpch the answer set is the specification's at SF 1: at --sf=%s only the rows are checked\n", fmtSF(w.sf))
	} else {
		params := DefaultParams(1)
		for _, q := range Queries {
			start := time.Now()
			qctx, cancel := w.bound(ctx)
			rows, err := queryRows(qctx, db, q.Statements(params[q.N], 0))
			cancel()
			if err != nil {
				return fmt.Errorf("%s: %w", q.Name, err)
			}
			err = compareAnswer(q.N, rows)
			what := fmt.Sprintf("%s gives the answer set's %d rows", q.Name, len(rows))
			if err != nil {
				what = fmt.Sprintf("%s differs from the answer set: %v", q.Name, err)
			}
			verdict(what, err == nil, start)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d TPC-H check(s) failed", failed)
	}
	return nil
}

// queryRows runs a query's statements on one connection and returns the
// rows of its SELECT as text.
func queryRows(ctx context.Context, db *sql.DB, stmts []string) ([][]string, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var out [][]string
	for _, q := range stmts {
		if !strings.HasPrefix(strings.ToLower(q), "select") {
			if _, err := c.ExecContext(ctx, q); err != nil {
				return nil, err
			}
			continue
		}
		rows, err := c.QueryContext(ctx, q)
		if err != nil {
			return nil, err
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]sql.RawBytes, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return nil, err
			}
			row := make([]driver.Value, len(cols))
			for i, v := range vals {
				if v == nil {
					row[i] = nil
				} else {
					row[i] = []byte(string(v))
				}
			}
			out = append(out, texts(row))
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return nil, err
		}
		rows.Close()
	}
	return out, nil
}
