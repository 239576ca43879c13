package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/oltpbench/oltpbench/internal/conn"
)

// A condition is one consistency requirement of clause 3.3.2, as a query per
// warehouse that returns the offending rows (none when it holds).
type condition struct {
	n    int
	desc string
	sql  string // one '?' per warehouse id occurrence, all the same warehouse
}

var conditions = []condition{
	{1, "W_YTD = sum(D_YTD)", `SELECT w_id, w_ytd, SUM(d_ytd) FROM warehouse JOIN district ON d_w_id = w_id WHERE w_id = ? GROUP BY w_id, w_ytd HAVING w_ytd <> SUM(d_ytd)`},
	{2, "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", `SELECT d_id, d_next_o_id, mo, mno FROM district
  LEFT JOIN (SELECT o_d_id, MAX(o_id) mo FROM orders WHERE o_w_id = ? GROUP BY o_d_id) o ON o.o_d_id = d_id
  LEFT JOIN (SELECT no_d_id, MAX(no_o_id) mno FROM new_order WHERE no_w_id = ? GROUP BY no_d_id) n ON n.no_d_id = d_id
  WHERE d_w_id = ? AND (d_next_o_id - 1 <> mo OR (mno IS NOT NULL AND mno <> mo))`},
	{3, "max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW-ORDER)", `SELECT no_d_id, MAX(no_o_id) - MIN(no_o_id) + 1, COUNT(*) FROM new_order WHERE no_w_id = ? GROUP BY no_d_id HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)`},
	{4, "sum(O_OL_CNT) = count(ORDER-LINE)", `SELECT o.o_d_id, o.s, l.c FROM
  (SELECT o_d_id, SUM(o_ol_cnt) s FROM orders WHERE o_w_id = ? GROUP BY o_d_id) o
  LEFT JOIN (SELECT ol_d_id, COUNT(*) c FROM order_line WHERE ol_w_id = ? GROUP BY ol_d_id) l ON l.ol_d_id = o.o_d_id
  WHERE l.c IS NULL OR o.s <> l.c`},
	{5, "O_CARRIER_ID is NULL exactly when a NEW-ORDER row exists", `SELECT o_d_id, o_id, o_carrier_id, no_o_id FROM orders
  LEFT JOIN new_order ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id
  WHERE o_w_id = ? AND ((o_carrier_id IS NULL) <> (no_o_id IS NOT NULL)) LIMIT 5`},
	{6, "O_OL_CNT = count of its ORDER-LINE rows", `SELECT o_d_id, o_id, o_ol_cnt, COUNT(ol_number) FROM orders
  LEFT JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
  WHERE o_w_id = ? GROUP BY o_d_id, o_id, o_ol_cnt HAVING o_ol_cnt <> COUNT(ol_number) LIMIT 5`},
	{7, "OL_DELIVERY_D is NULL exactly when O_CARRIER_ID is NULL", `SELECT o_d_id, o_id, o_carrier_id, ol_number, ol_delivery_d FROM orders
  JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
  WHERE o_w_id = ? AND ((o_carrier_id IS NULL) <> (ol_delivery_d IS NULL)) LIMIT 5`},
	{8, "W_YTD = sum(H_AMOUNT)", `SELECT w_id, w_ytd, (SELECT SUM(h_amount) FROM history WHERE h_w_id = ?) s FROM warehouse WHERE w_id = ? HAVING w_ytd <> s`},
	{9, "D_YTD = sum(H_AMOUNT) per district", `SELECT d_id, d_ytd, h.s FROM district
  LEFT JOIN (SELECT h_d_id, SUM(h_amount) s FROM history WHERE h_w_id = ? GROUP BY h_d_id) h ON h.h_d_id = d_id
  WHERE d_w_id = ? AND (h.s IS NULL OR d_ytd <> h.s)`},
	{10, "C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT)", `SELECT c_d_id, c_id, c_balance, COALESCE(ol.s, 0) - COALESCE(h.s, 0) FROM customer
  LEFT JOIN (SELECT o_d_id, o_c_id, SUM(ol_amount) s FROM orders JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
             WHERE o_w_id = ? AND ol_delivery_d IS NOT NULL GROUP BY o_d_id, o_c_id) ol ON ol.o_d_id = c_d_id AND ol.o_c_id = c_id
  LEFT JOIN (SELECT h_c_d_id, h_c_id, SUM(h_amount) s FROM history WHERE h_c_w_id = ? GROUP BY h_c_d_id, h_c_id) h ON h.h_c_d_id = c_d_id AND h.h_c_id = c_id
  WHERE c_w_id = ? AND c_balance <> COALESCE(ol.s, 0) - COALESCE(h.s, 0) LIMIT 5`},
	{11, "count(ORDER) - count(NEW-ORDER) = 2100 (fresh load only)", `SELECT o.o_d_id, o.c, n.c FROM
  (SELECT o_d_id, COUNT(*) c FROM orders WHERE o_w_id = ? GROUP BY o_d_id) o
  LEFT JOIN (SELECT no_d_id, COUNT(*) c FROM new_order WHERE no_w_id = ? GROUP BY no_d_id) n ON n.no_d_id = o.o_d_id
  WHERE o.c - COALESCE(n.c, 0) <> 2100`},
	{12, "C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT)", `SELECT c_d_id, c_id, c_balance + c_ytd_payment, COALESCE(ol.s, 0) FROM customer
  LEFT JOIN (SELECT o_d_id, o_c_id, SUM(ol_amount) s FROM orders JOIN order_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
             WHERE o_w_id = ? AND ol_delivery_d IS NOT NULL GROUP BY o_d_id, o_c_id) ol ON ol.o_d_id = c_d_id AND ol.o_c_id = c_id
  WHERE c_w_id = ? AND c_balance + c_ytd_payment <> COALESCE(ol.s, 0) LIMIT 5`},
}

// ParseChecks reads "1-4,12" (or "all"); the default is every condition but 11.
func ParseChecks(s string) ([]int, error) {
	if s == "" {
		return []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12}, nil
	}
	if s == "all" {
		return []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, nil
	}
	set := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		a, b, rng := strings.Cut(strings.TrimSpace(part), "-")
		lo, err1 := strconv.Atoi(a)
		hi := lo
		var err2 error
		if rng {
			hi, err2 = strconv.Atoi(b)
		}
		if err1 != nil || err2 != nil || lo < 1 || hi > 12 || lo > hi {
			return nil, fmt.Errorf("invalid --checks=%s: condition numbers 1-12, e.g. 1-4,12 or all", s)
		}
		for i := lo; i <= hi; i++ {
			set[i] = true
		}
	}
	var out []int
	for i := range set {
		out = append(out, i)
	}
	sort.Ints(out)
	return out, nil
}

// CheckResult is one condition's outcome.
type CheckResult struct {
	N        int
	Desc     string
	Pass     bool
	Elapsed  time.Duration
	Failures []string // the first offending rows, "w=3: 1 | 2 | ..."
}

// Check runs the conditions over warehouses 1..w, warehouses in parallel.
func Check(ctx context.Context, db *sql.DB, s *Schema, w int64, which []int, threads int) ([]CheckResult, error) {
	var out []CheckResult
	for _, n := range which {
		c := conditions[n-1]
		c.sql = s.SQL(c.sql)
		start := time.Now()
		res := CheckResult{N: n, Desc: c.desc, Pass: true}
		var mu sync.Mutex
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(max(threads, 1))
		for wid := int64(1); wid <= w; wid++ {
			g.Go(func() error {
				args := make([]any, strings.Count(c.sql, "?"))
				for i := range args {
					args[i] = wid
				}
				err := conn.QueryStrings(gctx, db, c.sql, func(vals []sql.NullString) error {
					var f []string
					for _, v := range vals {
						if v.Valid {
							f = append(f, v.String)
						} else {
							f = append(f, "NULL")
						}
					}
					mu.Lock()
					res.Pass = false
					if len(res.Failures) < 5 {
						res.Failures = append(res.Failures, fmt.Sprintf("w=%d: %s", wid, strings.Join(f, " | ")))
					}
					mu.Unlock()
					return nil
				}, args...)
				if err != nil {
					return fmt.Errorf("condition %d, warehouse %d: %w", n, wid, err)
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return out, err
		}
		res.Elapsed = time.Since(start)
		out = append(out, res)
	}
	return out, nil
}
