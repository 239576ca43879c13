package tpcc

import (
	"database/sql/driver"

	"github.com/oltpbench/oltpbench/internal/worker"
)

// orderStatus is clause 2.6 (read only).
type orderStatus struct {
	custByName, custSel, lastOrder, orderLines *worker.Stmt
}

func (t *orderStatus) prepare(p *preparer) {
	t.custByName = p.stmt("customer_by_name", customerByNameSQL)
	t.custSel = p.stmt("customer_select", "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	t.lastOrder = p.stmt("order_select", "SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1")
	t.orderLines = p.stmt("order_line_select", "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")
}

// inputs: clause 2.6.1, a customer of the home district.
func (t *orderStatus) inputs(w *terminal, in *txInput) { w.customer(in) }

func (t *orderStatus) run(w *terminal, in *txInput) error {
	if err := w.begin.Exec(); err != nil {
		return err
	}
	cid, err := customerID(t.custByName, in.w, in.d, in)
	if err != nil {
		return err
	}
	t.custSel.Bind().Int(in.w).Int(in.d).Int(cid)
	if err := one(t.custSel, func([]driver.Value) {}); err != nil {
		return err
	}
	var oid int64
	t.lastOrder.Bind().Int(in.w).Int(in.d).Int(cid)
	if _, err := t.lastOrder.Scan(func(r []driver.Value) error { oid = asInt(r[0]); return nil }); err != nil {
		return err
	}
	if oid > 0 {
		t.orderLines.Bind().Int(in.w).Int(in.d).Int(oid)
		if _, err := t.orderLines.Query(); err != nil {
			return err
		}
	}
	return w.commit.Exec()
}

func (t *orderStatus) done(a *Audit, in *txInput) { countByName(a, in) }
