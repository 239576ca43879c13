package tpcc

import (
	"database/sql/driver"

	"github.com/oltpbench/oltpbench/internal/worker"
)

// delivery is clause 2.7.4: the oldest undelivered order of each of the
// ten districts, all in one transaction.
type delivery struct {
	noMin, noDel, orderCust, orderCarrier *worker.Stmt
	olDeliv, olSum, custDeliv             *worker.Stmt
	sum                                   []byte // reused
}

func (t *delivery) prepare(p *preparer) {
	t.noMin = p.stmt("new_order_select", "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE")
	t.noDel = p.stmt("new_order_delete", "DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?")
	t.orderCust = p.stmt("order_select", "SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?")
	t.orderCarrier = p.stmt("order_update", "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?")
	t.olDeliv = p.stmt("order_line_update", "UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")
	t.olSum = p.stmt("order_line_sum", "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")
	t.custDeliv = p.stmt("customer_update", "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
}

// inputs: clause 2.7.1, a carrier.
func (t *delivery) inputs(w *terminal, in *txInput) { in.carrier = w.st.rand.Uniform(1, 10) }

func (t *delivery) run(w *terminal, in *txInput) error {
	if err := w.begin.Exec(); err != nil {
		return err
	}
	ts := now()
	in.skipped = 0
	for d := int64(1); d <= DistPerWare; d++ {
		var oid int64
		t.noMin.Bind().Int(in.w).Int(d)
		n, err := t.noMin.Scan(func(r []driver.Value) error { oid = asInt(r[0]); return nil })
		if err != nil {
			return err
		}
		if n == 0 {
			w.r.Audit.SkippedDeliveries.Add(1)
			in.skipped++
			continue
		}
		t.noDel.Bind().Int(in.w).Int(d).Int(oid)
		if err := t.noDel.Exec(); err != nil {
			return err
		}
		var cid int64
		t.orderCust.Bind().Int(in.w).Int(d).Int(oid)
		if err := one(t.orderCust, func(r []driver.Value) { cid = asInt(r[0]) }); err != nil {
			return err
		}
		t.orderCarrier.Bind().Int(in.carrier).Int(in.w).Int(d).Int(oid)
		if err := t.orderCarrier.Exec(); err != nil {
			return err
		}
		t.olDeliv.Bind().Str(ts).Int(in.w).Int(d).Int(oid)
		if err := t.olDeliv.Exec(); err != nil {
			return err
		}
		t.olSum.Bind().Int(in.w).Int(d).Int(oid)
		if err := one(t.olSum, func(r []driver.Value) {
			if b, ok := r[0].([]byte); ok {
				t.sum = append(t.sum[:0], b...)
			} else {
				t.sum = append(t.sum[:0], '0')
			}
		}); err != nil {
			return err
		}
		t.custDeliv.Bind().Bytes(t.sum).Int(in.w).Int(d).Int(cid)
		if err := t.custDeliv.Exec(); err != nil {
			return err
		}
	}
	return w.commit.Exec()
}

func (t *delivery) done(*Audit, *txInput) {}
