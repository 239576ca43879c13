package tpcc

import (
	"database/sql/driver"
	"sort"
	"strconv"

	"github.com/oltpbench/oltpbench/internal/worker"
)

// newOrder is clause 2.4. Stock rows are locked in (warehouse, item) order,
// which keeps concurrent New-Orders from deadlocking on each other.
type newOrder struct {
	custWare, distForUpd, distUpd, insOrder, insNewOrder *worker.Stmt
	items, stock, stockUpd, stockUpdLine                 *worker.Stmt
	insLines                                             [maxLines + 1]*worker.Stmt // by line count, prepared when first needed
	sess                                                 *worker.Session
	insLinesName                                         worker.StmtName
	rollback                                             worker.Label // the 1% rollback's
	schema                                               *Schema
	changes                                              []stockChange // reused
}

func (t *newOrder) prepare(p *preparer) {
	t.sess, t.schema = p.sess, p.cfg.Schema
	t.insLinesName, t.rollback = p.name("order_line_insert"), p.sess.Label(p.name("rollback"))
	t.custWare = p.stmt("customer_warehouse_select", "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?")
	t.distForUpd = p.stmt("district_select", "SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = ? AND d_id = ? FOR UPDATE")
	t.distUpd = p.stmt("district_update", "UPDATE district SET d_next_o_id = ? WHERE d_w_id = ? AND d_id = ?")
	t.insOrder = p.stmt("order_insert", "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, ?, ?)")
	t.insNewOrder = p.stmt("new_order_insert", "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)")
	// One statement for any number of lines: unused IN slots repeat the first
	// value, which changes neither the rows nor the locks.
	t.items = p.stmt("item_select", "SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN ("+worker.Repeat("?", ", ", maxLines)+")")
	t.stock = p.stmt("stock_select", "SELECT s_i_id, s_w_id, s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM stock WHERE (s_w_id, s_i_id) IN ("+worker.Repeat("(?, ?)", ", ", maxLines)+") FOR UPDATE")
	// All of an order's stock rows in one statement, not one per line: the
	// rows are those locked above, each set to the values the lines applied
	// in turn would leave (bindStockUpdate lays out the parameters).
	if p.cfg.StockPerLine {
		t.stockUpdLine = p.stmt("stock_update", "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_w_id = ? AND s_i_id = ?")
		return
	}
	t.stockUpd = p.stmt("stock_update", "UPDATE stock SET s_quantity = "+stockCase+", s_ytd = s_ytd + "+stockCase+
		", s_order_cnt = s_order_cnt + "+stockCase+", s_remote_cnt = s_remote_cnt + "+stockCase+
		" WHERE (s_w_id, s_i_id) IN ("+worker.Repeat("(?, ?)", ", ", maxLines)+")")
}

// inputs: clause 2.4.1. 1% of orders end on an unused item and roll back;
// 1% of lines come from another warehouse.
func (t *newOrder) inputs(w *terminal, in *txInput) {
	r, c := w.st.rand, w.r.c
	in.cid = NURand(r, 1023, c.ID, 1, CustPerDist)
	in.olCnt = int(r.Uniform(minLines, maxLines))
	in.rollback = r.Uniform(1, 100) == 1
	for i := 0; i < in.olCnt; i++ {
		l := &in.items[i]
		l.item = NURand(r, 8191, c.Item, 1, Items)
		l.supply = in.w
		if w.r.cfg.Warehouses > 1 && r.Uniform(1, 100) == 1 {
			l.supply = w.other(in.w)
		}
		l.qty = r.Uniform(1, 10)
	}
	if in.rollback {
		in.items[in.olCnt-1].item = unusedItem
	}
}

// stockKeyMul numbers a stock row (warehouse, item) as one integer for the
// CASEs of the stock update; item ids stay below it.
const stockKeyMul = 1000000

var stockCase = "CASE s_w_id * " + strconv.Itoa(stockKeyMul) + " + s_i_id " + worker.Repeat("WHEN ? THEN ?", " ", maxLines) + " END"

// stockChange is what an order does to one stock row: the final quantity,
// and the sums its lines add to the counters.
type stockChange struct{ key, qty, ytd, cnt, remote int64 }

// columns are the values of the update's four CASEs, in statement order.
func (c stockChange) columns() [4]int64 { return [4]int64{c.qty, c.ytd, c.cnt, c.remote} }

// bindStockUpdate fills the stock update for changes (one per row, at least
// one): each CASE gets a (row key, value) pair per slot, then the IN list a
// (warehouse, item) pair per slot. Unused slots repeat the last row, which
// matches the same row with the same values.
func bindStockUpdate(st *worker.Stmt, changes []stockChange) {
	slot := func(j int) stockChange { return changes[min(j, len(changes)-1)] }
	b := st.Bind()
	for col := range 4 {
		for j := range maxLines {
			c := slot(j)
			b = b.Int(c.key).Int(c.columns()[col])
		}
	}
	for j := range maxLines {
		c := slot(j)
		b = b.Int(c.key / stockKeyMul).Int(c.key % stockKeyMul)
	}
}

type stockRow struct {
	qty  int64
	dist []byte
}

func (t *newOrder) run(w *terminal, in *txInput) error {
	if err := w.begin.Exec(); err != nil {
		return err
	}
	next, err := t.enter(in)
	if err != nil {
		return err
	}
	lines := in.items[:in.olCnt]
	found, err := t.readItems(lines)
	if err != nil {
		return err
	}
	if !found {
		// The unused item of the 1% rollback (clause 2.4.2.3).
		_, err := t.sess.ExecCountedAs(t.rollback, "ROLLBACK")
		return err
	}
	order := lineOrder(lines)
	stock, err := t.readStock(lines, order, in.d)
	if err != nil {
		return err
	}
	if err := t.writeLines(in, next, lines, order, stock); err != nil {
		return err
	}
	return w.commit.Exec()
}

// enter reads the customer and takes the district's next order number,
// and inserts the order and its new-order row.
func (t *newOrder) enter(in *txInput) (next int64, err error) {
	// The customer's discount and credit and the taxes make the order's
	// total on a terminal's screen; the run shows none, so they are read
	// and not used.
	t.custWare.Bind().Int(in.w).Int(in.d).Int(in.cid)
	if err := one(t.custWare, func([]driver.Value) {}); err != nil {
		return 0, err
	}
	t.distForUpd.Bind().Int(in.w).Int(in.d)
	if err := one(t.distForUpd, func(r []driver.Value) { next = asInt(r[0]) }); err != nil {
		return 0, err
	}
	t.distUpd.Bind().Int(next + 1).Int(in.w).Int(in.d)
	if err := t.distUpd.Exec(); err != nil {
		return 0, err
	}
	allLocal := int64(1)
	for i := 0; i < in.olCnt; i++ {
		if in.items[i].supply != in.w {
			allLocal = 0
		}
	}
	t.insOrder.Bind().Int(next).Int(in.d).Int(in.w).Int(in.cid).Str(now()).Int(int64(in.olCnt)).Int(allLocal)
	if err := t.insOrder.Exec(); err != nil {
		return 0, err
	}
	t.insNewOrder.Bind().Int(next).Int(in.d).Int(in.w)
	return next, t.insNewOrder.Exec()
}

// readItems reads the lines' items (one statement, padded to maxLines);
// found is false when one is not there (the 1% rollback).
func (t *newOrder) readItems(lines []line) (found bool, err error) {
	n := len(lines)
	b := t.items.Bind()
	for i := range maxLines {
		b = b.Int(lines[min(i, n-1)].item)
	}
	for i := range lines {
		lines[i].found = false
	}
	if _, err := t.items.Scan(func(r []driver.Value) error {
		id := asInt(r[0])
		for i := range lines {
			if lines[i].item == id {
				lines[i].price, lines[i].found = asFloat(r[1]), true
				lines[i].data = append(lines[i].data[:0], r[3].([]byte)...)
			}
		}
		return nil
	}); err != nil {
		return false, err
	}
	for i := range lines {
		if !lines[i].found {
			return false, nil
		}
	}
	return true, nil
}

// lineOrder is the lines in (warehouse, item) order: the order stock
// rows are locked in, to cut deadlocks.
func lineOrder(lines []line) []int {
	order := make([]int, len(lines))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		la, lb := lines[order[a]], lines[order[b]]
		return la.supply < lb.supply || la.supply == lb.supply && la.item < lb.item
	})
	return order
}

// readStock reads the lines' stock rows for update, by (warehouse, item).
func (t *newOrder) readStock(lines []line, order []int, district int64) (map[[2]int64]*stockRow, error) {
	n := len(lines)
	stock := map[[2]int64]*stockRow{}
	b := t.stock.Bind()
	for j := range maxLines {
		l := lines[order[min(j, n-1)]]
		b = b.Int(l.supply).Int(l.item)
	}
	distCol := 3 + int(district)
	_, err := t.stock.Scan(func(r []driver.Value) error {
		stock[[2]int64{asInt(r[1]), asInt(r[0])}] = &stockRow{qty: asInt(r[2]), dist: append([]byte(nil), r[distCol].([]byte)...)}
		return nil
	})
	return stock, err
}

// writeLines updates the stock rows and inserts the order lines (one
// statement each).
func (t *newOrder) writeLines(in *txInput, next int64, lines []line, order []int, stock map[[2]int64]*stockRow) error {
	n := len(lines)
	if t.insLines[n] == nil {
		st, err := t.sess.PrepareNamed(t.insLinesName, t.schema.SQL("INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES "+worker.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?)", ", ", n)))
		if err != nil {
			return err
		}
		t.insLines[n] = st
	}
	ins := t.insLines[n].Bind()
	changes := t.changes[:0]
	for _, i := range order {
		l := &lines[i]
		sr := stock[[2]int64{l.supply, l.item}]
		if sr == nil {
			return errNoRow
		}
		q := sr.qty - l.qty
		if sr.qty < l.qty+10 {
			q += 91
		}
		sr.qty = q
		remote := int64(0)
		if l.supply != in.w {
			remote = 1
		}
		if t.stockUpdLine != nil {
			// Lines in (warehouse, item) order: the locks are taken as above.
			t.stockUpdLine.Bind().Int(q).Int(l.qty).Int(remote).Int(l.supply).Int(l.item)
			if err := t.stockUpdLine.Exec(); err != nil {
				return err
			}
		}
		// Lines are in (warehouse, item) order: repeats of a row are adjacent.
		if key := l.supply*stockKeyMul + l.item; len(changes) == 0 || changes[len(changes)-1].key != key {
			changes = append(changes, stockChange{key: key})
		}
		c := &changes[len(changes)-1]
		c.qty, c.ytd, c.cnt, c.remote = q, c.ytd+l.qty, c.cnt+1, c.remote+remote
		ins = ins.Int(next).Int(in.d).Int(in.w).Int(int64(i+1)).Int(l.item).Int(l.supply).Int(l.qty).
			Float(float64(l.qty)*l.price, 2).Bytes(sr.dist)
	}
	t.changes = changes
	if t.stockUpd != nil {
		bindStockUpdate(t.stockUpd, changes)
		if err := t.stockUpd.Exec(); err != nil {
			return err
		}
	}
	return ins.Stmt().Exec()
}

func (t *newOrder) done(a *Audit, in *txInput) {
	a.NewOrders.Add(1)
	if in.rollback {
		a.Rollbacks.Add(1)
		return
	}
	a.Lines.Add(int64(in.olCnt))
	remote := 0
	for i := 0; i < in.olCnt; i++ {
		if in.items[i].supply != in.w {
			remote++
		}
	}
	a.RemoteLines.Add(int64(remote))
}
