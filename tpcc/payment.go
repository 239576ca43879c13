package tpcc

import (
	"database/sql/driver"
	"fmt"

	"github.com/oltpbench/oltpbench/internal/worker"
)

// payment is clause 2.5. The warehouse row, which every Payment of the
// warehouse updates, is updated last so its lock is held the shortest.
type payment struct {
	distYtd, distSel, wareSel, wareUpd  *worker.Stmt
	custByName, custForUpd, custData    *worker.Stmt
	custUpdBC, custUpd, insHist         *worker.Stmt
	dName, wName, cdata, newData, hdata []byte // reused
}

func (t *payment) prepare(p *preparer) {
	t.distYtd = p.stmt("district_update", "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?")
	t.distSel = p.stmt("district_select", "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district WHERE d_w_id = ? AND d_id = ?")
	t.wareUpd = p.stmt("warehouse_update", "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?")
	t.wareSel = p.stmt("warehouse_select", "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE w_id = ?")
	t.custByName = p.stmt("customer_by_name", customerByNameSQL)
	t.custForUpd = p.stmt("customer_select", "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE")
	t.custData = p.stmt("customer_data_select", "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	t.custUpdBC = p.stmt("customer_update_bc", "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	t.custUpd = p.stmt("customer_update", "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	t.insHist = p.stmt("history_insert", "INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
}

// inputs: clause 2.5.1. 15% of payments are for a customer of another
// warehouse.
func (t *payment) inputs(w *terminal, in *txInput) {
	r := w.st.rand
	if w.r.cfg.Warehouses > 1 && r.Uniform(1, 100) > 85 {
		in.cd, in.cw = r.Uniform(1, DistPerWare), w.other(in.w)
	}
	w.customer(in)
	in.amount = float64(r.Uniform(100, 500000)) / 100
}

func (t *payment) run(w *terminal, in *txInput) error {
	if err := w.begin.Exec(); err != nil {
		return err
	}
	t.distYtd.Bind().Float(in.amount, 2).Int(in.w).Int(in.d)
	if err := t.distYtd.Exec(); err != nil {
		return err
	}
	t.distSel.Bind().Int(in.w).Int(in.d)
	if err := one(t.distSel, func(r []driver.Value) { t.dName = append(t.dName[:0], r[5].([]byte)...) }); err != nil {
		return err
	}
	t.wareSel.Bind().Int(in.w)
	if err := one(t.wareSel, func(r []driver.Value) { t.wName = append(t.wName[:0], r[5].([]byte)...) }); err != nil {
		return err
	}
	cid, err := customerID(t.custByName, in.cw, in.cd, in)
	if err != nil {
		return err
	}
	var badCredit bool
	t.custForUpd.Bind().Int(in.cw).Int(in.cd).Int(cid)
	if err := one(t.custForUpd, func(r []driver.Value) { badCredit = string(r[9].([]byte)) == "BC" }); err != nil {
		return err
	}
	if badCredit {
		t.custData.Bind().Int(in.cw).Int(in.cd).Int(cid)
		if err := one(t.custData, func(r []driver.Value) { t.cdata = append(t.cdata[:0], r[0].([]byte)...) }); err != nil {
			return err
		}
		// The payment goes in front of C_DATA, which keeps 500 characters.
		nd := fmt.Appendf(t.newData[:0], "%d %d %d %d %d %.2f | ", cid, in.cd, in.cw, in.d, in.w, in.amount)
		nd = append(nd, t.cdata...)
		t.newData = nd
		if len(nd) > 500 {
			nd = nd[:500]
		}
		t.custUpdBC.Bind().Float(in.amount, 2).Float(in.amount, 2).Bytes(nd).Int(in.cw).Int(in.cd).Int(cid)
		if err := t.custUpdBC.Exec(); err != nil {
			return err
		}
	} else {
		t.custUpd.Bind().Float(in.amount, 2).Float(in.amount, 2).Int(in.cw).Int(in.cd).Int(cid)
		if err := t.custUpd.Exec(); err != nil {
			return err
		}
	}
	t.hdata = append(append(append(t.hdata[:0], t.wName...), "    "...), t.dName...)
	t.insHist.Bind().Int(in.cd).Int(in.cw).Int(cid).Int(in.d).Int(in.w).Str(now()).Float(in.amount, 2).Bytes(t.hdata)
	if err := t.insHist.Exec(); err != nil {
		return err
	}
	t.wareUpd.Bind().Float(in.amount, 2).Int(in.w)
	if err := t.wareUpd.Exec(); err != nil {
		return err
	}
	return w.commit.Exec()
}

func (t *payment) done(a *Audit, in *txInput) {
	a.Payments.Add(1)
	if in.cw != in.w {
		a.RemotePayments.Add(1)
	}
	countByName(a, in)
}

// countByName counts a Payment or Order-Status for the 60% by-name audit line.
func countByName(a *Audit, in *txInput) {
	a.ByNameOf.Add(1)
	if in.byName {
		a.ByName.Add(1)
	}
}
