package tpcc

import (
	"database/sql/driver"

	"github.com/oltpbench/oltpbench/internal/worker"
)

// stockLevel is clause 2.8 (read only): the terminal's own district.
type stockLevel struct {
	next, count *worker.Stmt
}

func (t *stockLevel) prepare(p *preparer) {
	t.next = p.stmt("district_select", "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?")
	t.count = p.stmt("stock_count", "SELECT COUNT(DISTINCT(s_i_id)) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?")
}

// inputs: clause 2.8.1, a threshold; the district is the terminal's.
func (t *stockLevel) inputs(w *terminal, in *txInput) {
	in.d = w.st.district
	in.threshold = w.st.rand.Uniform(10, 20)
}

func (t *stockLevel) run(w *terminal, in *txInput) error {
	if err := w.begin.Exec(); err != nil {
		return err
	}
	var next int64
	t.next.Bind().Int(in.w).Int(in.d)
	if err := one(t.next, func(r []driver.Value) { next = asInt(r[0]) }); err != nil {
		return err
	}
	// The last 20 orders of the district.
	t.count.Bind().Int(in.w).Int(in.d).Int(next).Int(next - 20).Int(in.w).Int(in.threshold)
	if _, err := t.count.Query(); err != nil {
		return err
	}
	return w.commit.Exec()
}

func (t *stockLevel) done(*Audit, *txInput) {}
