package tpcc

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/oltpbench/oltpbench/internal/workload"
)

// Transaction types, in the order of the result's operations.
const (
	NewOrder = iota
	Payment
	OrderStatus
	Delivery
	StockLevel
	numTx
)

// TxNames are the operations' names.
var TxNames = []string{"new_order", "payment", "order_status", "delivery", "stock_level"}

// Keying and mean think times per transaction (clause 5.2.5.7), seconds.
var (
	keying = [numTx]float64{18, 3, 2, 2, 2}
	think  = [numTx]float64{12, 12, 10, 5, 5}
)

// Config shapes a run.
type Config struct {
	Warehouses int64
	Threads    int
	Seed       uint64 // the dataset's seed: the run's C_LAST constant derives from it
	RunSeed    uint64
	Weights    [numTx]int // deck composition
	Wait       bool       // keying and think times
}

// DefaultWeights is the deck of 100 cards: the spec's minimums for Payment,
// Order-Status, Delivery and Stock-Level; New-Order the rest.
var DefaultWeights = [numTx]int{45, 43, 4, 4, 4}

// ParseWeights reads "45,43,4,4,4".
func ParseWeights(s string) ([numTx]int, error) {
	var w [numTx]int
	f := strings.Split(s, ",")
	if len(f) != numTx {
		return w, fmt.Errorf("invalid --weights=%s: five numbers for new_order,payment,order_status,delivery,stock_level", s)
	}
	total := 0
	for i, x := range f {
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil || n < 0 {
			return w, fmt.Errorf("invalid --weights=%s: five numbers >= 0", s)
		}
		w[i], total = n, total+n
	}
	if total == 0 {
		return w, fmt.Errorf("invalid --weights=%s: all zero", s)
	}
	return w, nil
}

// Audit counts what the spec's run-time requirements are checked on.
type Audit struct {
	NewOrders, Rollbacks     atomic.Int64
	Lines, RemoteLines       atomic.Int64
	Payments, RemotePayments atomic.Int64
	ByName, ByNameOf         atomic.Int64        // Payment and Order-Status selecting by last name, of all of them
	Errors                   [numTx]atomic.Int64 // failed attempts (each redone unless the run ended)
	Retries                  [numTx]atomic.Int64
	SkippedDeliveries        atomic.Int64
}

// Run makes the workers of a run.
type Run struct {
	cfg   Config
	c     NURandC
	deck  []int
	Audit Audit
}

// NewRun prepares a run.
func NewRun(cfg Config) *Run {
	r := &Run{cfg: cfg, c: Constants(cfg.Seed)}
	for t, n := range cfg.Weights {
		for i := 0; i < n; i++ {
			r.deck = append(r.deck, t)
		}
	}
	return r
}

// Constants returns the NURand constants of the run.
func (r *Run) Constants() NURandC { return r.c }

type threadState struct {
	rand     *workload.Rand
	deck     []int
	pos      int
	homes    []int64 // warehouses this terminal uses
	district int64   // Stock-Level's district
	pending  int     // transaction to redo after a failure, -1 if none
	next     int     // transaction drawn by Wait, -1 if none
	last     int     // the last transaction completed, for its think time
	in       txInput
	changes  []stockChange // New-Order's stock rows, reused
}

// txInput holds one transaction's inputs, kept for a retry.
type txInput struct {
	w, d, cw, cd, cid int64
	byName            bool
	last              []byte
	amount            float64
	olCnt             int
	items             [maxLines]line
	rollback          bool
	carrier           int64
	threshold         int64
}

type line struct {
	item, supply, qty int64
	price             float64
	name, data        []byte
	found             bool
}

type worker struct {
	r    *Run
	th   *workload.Thread
	st   *threadState
	sess *workload.Session
	s    stmts
}

type stmts struct {
	custWare, distForUpd, distUpd, insOrder, insNewOrder *workload.Stmt
	items, stock                                         *workload.Stmt               // maxLines slots, padded by repeating the first
	insLines                                             [maxLines + 1]*workload.Stmt // prepared when first needed
	stockUpd                                             *workload.Stmt
	wareUpd, wareSel, distYtd, distSel                   *workload.Stmt
	custByName, custForUpd, custData, custUpdBC, custUpd *workload.Stmt
	insHist                                              *workload.Stmt
	custSel, lastOrder, orderLines                       *workload.Stmt
	noMin, noDel, orderCust, orderCarrier, olDeliv       *workload.Stmt
	olSum, custDeliv                                     *workload.Stmt
	slNext, slCount                                      *workload.Stmt
	begin, commit                                        *workload.Stmt
}

// NewWorker prepares a thread's statements on dc.
func (r *Run) NewWorker(dc driver.Conn, th *workload.Thread) (workload.Worker, error) {
	st, _ := th.State.(*threadState)
	if st == nil {
		st = &threadState{rand: workload.NewRand(r.cfg.RunSeed, uint64(th.ID)), pending: -1, next: -1, last: -1}
		st.deck = append([]int(nil), r.deck...)
		st.pos = len(st.deck)
		// Warehouses spread over threads: every warehouse is some thread's home.
		W, T := r.cfg.Warehouses, int64(r.cfg.Threads)
		if T >= W {
			st.homes = []int64{int64(th.ID)%W + 1}
			st.district = (int64(th.ID)/W)%DistPerWare + 1
		} else {
			for w := int64(th.ID) + 1; w <= W; w += T {
				st.homes = append(st.homes, w)
			}
			st.district = st.rand.Uniform(1, DistPerWare)
		}
		th.State = st
	}
	w := &worker{r: r, th: th, st: st, sess: workload.NewSession(dc, true)}
	if err := w.prepare(); err != nil {
		w.sess.Close()
		return nil, err
	}
	return w, nil
}

func (w *worker) prepare() error {
	var err error
	p := func(q string) *workload.Stmt {
		if err != nil {
			return nil
		}
		var s *workload.Stmt
		s, err = w.sess.Prepare(q)
		return s
	}
	s := &w.s
	s.begin, s.commit = p("BEGIN"), p("COMMIT")
	s.custWare = p("SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?")
	s.distForUpd = p("SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = ? AND d_id = ? FOR UPDATE")
	s.distUpd = p("UPDATE district SET d_next_o_id = ? WHERE d_w_id = ? AND d_id = ?")
	s.insOrder = p("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, ?, ?)")
	s.insNewOrder = p("INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)")
	// One statement for any number of lines: unused IN slots repeat the first
	// value, which changes neither the rows nor the locks.
	s.items = p("SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN (" + repeat("?", ", ", maxLines) + ")")
	s.stock = p("SELECT s_i_id, s_w_id, s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM stock WHERE (s_w_id, s_i_id) IN (" + repeat("(?, ?)", ", ", maxLines) + ") FOR UPDATE")
	// All of an order's stock rows in one statement, not one per line: the
	// rows are those locked above, each set to the values the lines applied
	// in turn would leave (stockUpdate lays out the parameters).
	s.stockUpd = p("UPDATE stock SET s_quantity = " + stockCase + ", s_ytd = s_ytd + " + stockCase +
		", s_order_cnt = s_order_cnt + " + stockCase + ", s_remote_cnt = s_remote_cnt + " + stockCase +
		" WHERE (s_w_id, s_i_id) IN (" + repeat("(?, ?)", ", ", maxLines) + ")")
	s.distYtd = p("UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?")
	s.distSel = p("SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district WHERE d_w_id = ? AND d_id = ?")
	s.wareUpd = p("UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?")
	s.wareSel = p("SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE w_id = ?")
	s.custByName = p("SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first")
	s.custForUpd = p("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE")
	s.custData = p("SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.custUpdBC = p("UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.custUpd = p("UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.insHist = p("INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
	s.custSel = p("SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.lastOrder = p("SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1")
	s.orderLines = p("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")
	s.noMin = p("SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE")
	s.noDel = p("DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?")
	s.orderCust = p("SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?")
	s.orderCarrier = p("UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?")
	s.olDeliv = p("UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")
	s.olSum = p("SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?")
	s.custDeliv = p("UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.slNext = p("SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?")
	s.slCount = p("SELECT COUNT(DISTINCT(s_i_id)) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?")
	return err
}

// stockKeyMul numbers a stock row (warehouse, item) as one integer for the
// CASEs of the stock update; item ids stay below it.
const stockKeyMul = 1000000

var stockCase = "CASE s_w_id * " + strconv.Itoa(stockKeyMul) + " + s_i_id " + repeat("WHEN ? THEN ?", " ", maxLines) + " END"

// stockChange is what an order does to one stock row: the final quantity,
// and the sums its lines add to the counters.
type stockChange struct{ key, qty, ytd, cnt, remote int64 }

// stockUpdate sets the parameters of the stock update for changes (one per
// row, at least one); unused slots repeat the last row, which matches the
// same row with the same values.
func stockUpdate(st *workload.Stmt, changes []stockChange) {
	for j := 0; j < maxLines; j++ {
		c := changes[min(j, len(changes)-1)]
		for k, v := range [4]int64{c.qty, c.ytd, c.cnt, c.remote} {
			st.Int(k*2*maxLines+2*j, c.key)
			st.Int(k*2*maxLines+2*j+1, v)
		}
		st.Int(8*maxLines+2*j, c.key/stockKeyMul)
		st.Int(8*maxLines+2*j+1, c.key%stockKeyMul)
	}
}

func repeat(one, sep string, n int) string {
	return strings.TrimSuffix(strings.Repeat(one+sep, n), sep)
}

func (w *worker) home() int64 {
	h := w.st.homes
	if len(h) == 1 {
		return h[0]
	}
	return h[w.st.rand.Uniform(0, int64(len(h)-1))]
}

func (w *worker) other(home int64) int64 {
	W := w.r.cfg.Warehouses
	if W == 1 {
		return home
	}
	x := w.st.rand.Uniform(1, W-1)
	if x >= home {
		x++
	}
	return x
}

// Wait draws the next transaction and, in --wait mode, sleeps the think time
// of the last one and the keying time of the next (clause 5.2.5.7), outside
// the measured response time. A transaction to redo needs no new draw.
func (w *worker) Wait(stop <-chan struct{}) bool {
	st := w.st
	if st.pending >= 0 || st.next >= 0 {
		return true
	}
	if st.pos >= len(st.deck) {
		for i := len(st.deck) - 1; i > 0; i-- {
			j := st.rand.Uniform(0, int64(i))
			st.deck[i], st.deck[j] = st.deck[j], st.deck[i]
		}
		st.pos = 0
	}
	t := st.deck[st.pos]
	st.pos++
	w.inputs(t)
	st.next = t
	if !w.r.cfg.Wait {
		return true
	}
	pause := keying[t]
	if st.last >= 0 {
		// Negative exponential think time, truncated at 10 times the mean.
		pause += math.Min(-math.Log(1-st.rand.Float64())*think[st.last], 10*think[st.last])
	}
	tm := time.NewTimer(time.Duration(pause * float64(time.Second)))
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-stop:
		return false
	}
}

// Event runs the drawn transaction, or redoes a failed one with the same inputs.
func (w *worker) Event() (int, error) {
	st := w.st
	t := st.pending
	if t < 0 {
		if st.next < 0 {
			w.Wait(nil) // a caller that does not pace: draw now
		}
		t, st.next = st.next, -1
	} else {
		w.r.Audit.Retries[t].Add(1)
	}
	st.pending = t
	var err error
	switch t {
	case NewOrder:
		err = w.newOrder()
	case Payment:
		err = w.payment()
	case OrderStatus:
		err = w.orderStatus()
	case Delivery:
		err = w.delivery()
	case StockLevel:
		err = w.stockLevel()
	}
	if err != nil {
		w.r.Audit.Errors[t].Add(1)
		return t, err
	}
	st.pending, st.last = -1, t
	w.count(t)
	return t, nil
}

// count updates the audit once a transaction has committed.
func (w *worker) count(t int) {
	a, in := &w.r.Audit, &w.st.in
	switch t {
	case NewOrder:
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
	case Payment:
		a.Payments.Add(1)
		if in.cw != in.w {
			a.RemotePayments.Add(1)
		}
		fallthrough
	case OrderStatus:
		a.ByNameOf.Add(1)
		if in.byName {
			a.ByName.Add(1)
		}
	}
}

// inputs draws a transaction's inputs as clause 2.x.1 specifies.
func (w *worker) inputs(t int) {
	r, in, c := w.st.rand, &w.st.in, w.r.c
	in.w = w.home()
	in.d = r.Uniform(1, DistPerWare)
	in.cw, in.cd = in.w, in.d
	customer := func() {
		in.byName = r.Uniform(1, 100) <= 60
		if in.byName {
			in.last = LastName(in.last[:0], NURand(r, 255, c.LastRun, 0, 999))
		} else {
			in.cid = NURand(r, 1023, c.ID, 1, CustPerDist)
		}
	}
	switch t {
	case NewOrder:
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
	case Payment:
		if w.r.cfg.Warehouses > 1 && r.Uniform(1, 100) > 85 {
			in.cd, in.cw = r.Uniform(1, DistPerWare), w.other(in.w)
		}
		customer()
		in.amount = float64(r.Uniform(100, 500000)) / 100
	case OrderStatus:
		customer()
	case Delivery:
		in.carrier = r.Uniform(1, 10)
	case StockLevel:
		in.d = w.st.district
		in.threshold = r.Uniform(10, 20)
	}
}

func now() string { return time.Now().Format("2006-01-02 15:04:05") }

func asFloat(v driver.Value) float64 {
	switch x := v.(type) {
	case []byte:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case float64:
		return x
	case int64:
		return float64(x)
	}
	return 0
}

func asInt(v driver.Value) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case []byte:
		n, _ := strconv.ParseInt(string(x), 10, 64)
		return n
	}
	return 0
}

var errNoRow = errors.New("tpcc: expected row missing")

func (w *worker) one(st *workload.Stmt, fn func(row []driver.Value)) error {
	n, err := st.Scan(func(row []driver.Value) error { fn(row); return nil })
	if err == nil && n == 0 {
		return errNoRow
	}
	return err
}

// newOrder is clause 2.4.2. Stock rows are locked in (warehouse, item) order,
// which keeps concurrent New-Orders from deadlocking on each other.
func (w *worker) newOrder() error {
	in, s := &w.st.in, &w.s
	if err := s.begin.Exec(); err != nil {
		return err
	}
	var discount, wTax, dTax float64
	var credit string
	s.custWare.Int(0, in.w)
	s.custWare.Int(1, in.d)
	s.custWare.Int(2, in.cid)
	if err := w.one(s.custWare, func(r []driver.Value) {
		discount, credit, wTax = asFloat(r[0]), string(r[2].([]byte)), asFloat(r[3])
	}); err != nil {
		return err
	}
	var next int64
	s.distForUpd.Int(0, in.w)
	s.distForUpd.Int(1, in.d)
	if err := w.one(s.distForUpd, func(r []driver.Value) { next, dTax = asInt(r[0]), asFloat(r[1]) }); err != nil {
		return err
	}
	s.distUpd.Int(0, next+1)
	s.distUpd.Int(1, in.w)
	s.distUpd.Int(2, in.d)
	if err := s.distUpd.Exec(); err != nil {
		return err
	}
	allLocal := int64(1)
	for i := 0; i < in.olCnt; i++ {
		if in.items[i].supply != in.w {
			allLocal = 0
		}
	}
	ts := now()
	st := s.insOrder
	st.Int(0, next)
	st.Int(1, in.d)
	st.Int(2, in.w)
	st.Int(3, in.cid)
	st.Str(4, ts)
	st.Int(5, int64(in.olCnt))
	st.Int(6, allLocal)
	if err := st.Exec(); err != nil {
		return err
	}
	s.insNewOrder.Int(0, next)
	s.insNewOrder.Int(1, in.d)
	s.insNewOrder.Int(2, in.w)
	if err := s.insNewOrder.Exec(); err != nil {
		return err
	}
	n := in.olCnt
	lines := in.items[:n]
	for i := 0; i < maxLines; i++ {
		s.items.Int(i, lines[min(i, n-1)].item)
	}
	for i := range lines {
		lines[i].found = false
	}
	if _, err := s.items.Scan(func(r []driver.Value) error {
		id := asInt(r[0])
		for i := range lines {
			if lines[i].item == id {
				lines[i].price, lines[i].found = asFloat(r[1]), true
				lines[i].data = append(lines[i].data[:0], r[3].([]byte)...)
			}
		}
		return nil
	}); err != nil {
		return err
	}
	for i := range lines {
		if !lines[i].found {
			// The unused item of the 1% rollback (clause 2.4.2.3).
			return s.rollbackOnly()
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		la, lb := lines[order[a]], lines[order[b]]
		return la.supply < lb.supply || la.supply == lb.supply && la.item < lb.item
	})
	type stockRow struct {
		qty  int64
		dist []byte
	}
	stock := map[[2]int64]*stockRow{}
	for j := 0; j < maxLines; j++ {
		i := order[min(j, n-1)]
		s.stock.Int(2*j, lines[i].supply)
		s.stock.Int(2*j+1, lines[i].item)
	}
	distCol := 3 + int(in.d)
	if _, err := s.stock.Scan(func(r []driver.Value) error {
		stock[[2]int64{asInt(r[1]), asInt(r[0])}] = &stockRow{qty: asInt(r[2]), dist: append([]byte(nil), r[distCol].([]byte)...)}
		return nil
	}); err != nil {
		return err
	}
	total := 0.0
	if s.insLines[n] == nil {
		st, err := w.sess.Prepare("INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES " + repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?)", ", ", n))
		if err != nil {
			return err
		}
		s.insLines[n] = st
	}
	ins := s.insLines[n]
	changes := w.st.changes[:0]
	for j, i := range order {
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
		// Lines are in (warehouse, item) order: repeats of a row are adjacent.
		if key := l.supply*stockKeyMul + l.item; len(changes) == 0 || changes[len(changes)-1].key != key {
			changes = append(changes, stockChange{key: key})
		}
		c := &changes[len(changes)-1]
		c.qty, c.ytd, c.cnt, c.remote = q, c.ytd+l.qty, c.cnt+1, c.remote+remote
		amount := float64(l.qty) * l.price
		total += amount
		b := 9 * j
		ins.Int(b, next)
		ins.Int(b+1, in.d)
		ins.Int(b+2, in.w)
		ins.Int(b+3, int64(i+1))
		ins.Int(b+4, l.item)
		ins.Int(b+5, l.supply)
		ins.Int(b+6, l.qty)
		ins.Float(b+7, amount, 2)
		ins.Bytes(b+8, sr.dist)
	}
	w.st.changes = changes
	stockUpdate(s.stockUpd, changes)
	if err := s.stockUpd.Exec(); err != nil {
		return err
	}
	if err := ins.Exec(); err != nil {
		return err
	}
	_ = total * (1 - discount) * (1 + wTax + dTax) // the order's total, as the terminal would show it
	_ = credit
	return s.commit.Exec()
}

func (s *stmts) rollbackOnly() error { return s.commitOrRollback(false) }

func (s *stmts) commitOrRollback(commit bool) error {
	if commit {
		return s.commit.Exec()
	}
	return s.begin.Session().Exec("ROLLBACK")
}

// customerByName returns the customer in the middle of those with the last
// name, ordered by first name (clause 2.5.2.2).
func (w *worker) customerByName(wid, did int64, last []byte) (int64, error) {
	s := w.s.custByName
	s.Int(0, wid)
	s.Int(1, did)
	s.Bytes(2, last)
	var ids []int64
	if _, err := s.Scan(func(r []driver.Value) error { ids = append(ids, asInt(r[0])); return nil }); err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, errNoRow
	}
	return ids[(len(ids)+1)/2-1], nil
}

// payment is clause 2.5.2. The warehouse row, which every Payment of the
// warehouse updates, is updated last so its lock is held the shortest.
func (w *worker) payment() error {
	in, s := &w.st.in, &w.s
	if err := s.begin.Exec(); err != nil {
		return err
	}
	s.distYtd.Float(0, in.amount, 2)
	s.distYtd.Int(1, in.w)
	s.distYtd.Int(2, in.d)
	if err := s.distYtd.Exec(); err != nil {
		return err
	}
	var dName []byte
	s.distSel.Int(0, in.w)
	s.distSel.Int(1, in.d)
	if err := w.one(s.distSel, func(r []driver.Value) { dName = append(dName[:0], r[5].([]byte)...) }); err != nil {
		return err
	}
	var wName []byte
	s.wareSel.Int(0, in.w)
	if err := w.one(s.wareSel, func(r []driver.Value) { wName = append(wName[:0], r[5].([]byte)...) }); err != nil {
		return err
	}
	cid := in.cid
	if in.byName {
		var err error
		if cid, err = w.customerByName(in.cw, in.cd, in.last); err != nil {
			return err
		}
	}
	var credit string
	s.custForUpd.Int(0, in.cw)
	s.custForUpd.Int(1, in.cd)
	s.custForUpd.Int(2, cid)
	if err := w.one(s.custForUpd, func(r []driver.Value) { credit = string(r[9].([]byte)) }); err != nil {
		return err
	}
	if credit == "BC" {
		var cdata []byte
		s.custData.Int(0, in.cw)
		s.custData.Int(1, in.cd)
		s.custData.Int(2, cid)
		if err := w.one(s.custData, func(r []driver.Value) { cdata = append(cdata[:0], r[0].([]byte)...) }); err != nil {
			return err
		}
		nd := fmt.Appendf(nil, "%d %d %d %d %d %.2f | ", cid, in.cd, in.cw, in.d, in.w, in.amount)
		nd = append(nd, cdata...)
		if len(nd) > 500 {
			nd = nd[:500]
		}
		u := s.custUpdBC
		u.Float(0, in.amount, 2)
		u.Float(1, in.amount, 2)
		u.Bytes(2, nd)
		u.Int(3, in.cw)
		u.Int(4, in.cd)
		u.Int(5, cid)
		if err := u.Exec(); err != nil {
			return err
		}
	} else {
		u := s.custUpd
		u.Float(0, in.amount, 2)
		u.Float(1, in.amount, 2)
		u.Int(2, in.cw)
		u.Int(3, in.cd)
		u.Int(4, cid)
		if err := u.Exec(); err != nil {
			return err
		}
	}
	hdata := append(append(append([]byte(nil), wName...), "    "...), dName...)
	h := s.insHist
	h.Int(0, in.cd)
	h.Int(1, in.cw)
	h.Int(2, cid)
	h.Int(3, in.d)
	h.Int(4, in.w)
	h.Str(5, now())
	h.Float(6, in.amount, 2)
	h.Bytes(7, hdata)
	if err := h.Exec(); err != nil {
		return err
	}
	s.wareUpd.Float(0, in.amount, 2)
	s.wareUpd.Int(1, in.w)
	if err := s.wareUpd.Exec(); err != nil {
		return err
	}
	return s.commit.Exec()
}

// orderStatus is clause 2.6.2 (read only).
func (w *worker) orderStatus() error {
	in, s := &w.st.in, &w.s
	if err := s.begin.Exec(); err != nil {
		return err
	}
	cid := in.cid
	if in.byName {
		var err error
		if cid, err = w.customerByName(in.w, in.d, in.last); err != nil {
			return err
		}
	}
	s.custSel.Int(0, in.w)
	s.custSel.Int(1, in.d)
	s.custSel.Int(2, cid)
	if err := w.one(s.custSel, func([]driver.Value) {}); err != nil {
		return err
	}
	var oid int64
	s.lastOrder.Int(0, in.w)
	s.lastOrder.Int(1, in.d)
	s.lastOrder.Int(2, cid)
	if _, err := s.lastOrder.Scan(func(r []driver.Value) error { oid = asInt(r[0]); return nil }); err != nil {
		return err
	}
	if oid > 0 {
		s.orderLines.Int(0, in.w)
		s.orderLines.Int(1, in.d)
		s.orderLines.Int(2, oid)
		if _, err := s.orderLines.Query(); err != nil {
			return err
		}
	}
	return s.commit.Exec()
}

// delivery is clause 2.7.4, all ten districts in one transaction.
func (w *worker) delivery() error {
	in, s := &w.st.in, &w.s
	if err := s.begin.Exec(); err != nil {
		return err
	}
	ts := now()
	for d := int64(1); d <= DistPerWare; d++ {
		var oid int64
		s.noMin.Int(0, in.w)
		s.noMin.Int(1, d)
		n, err := s.noMin.Scan(func(r []driver.Value) error { oid = asInt(r[0]); return nil })
		if err != nil {
			return err
		}
		if n == 0 {
			w.r.Audit.SkippedDeliveries.Add(1)
			continue
		}
		s.noDel.Int(0, in.w)
		s.noDel.Int(1, d)
		s.noDel.Int(2, oid)
		if err := s.noDel.Exec(); err != nil {
			return err
		}
		var cid int64
		s.orderCust.Int(0, in.w)
		s.orderCust.Int(1, d)
		s.orderCust.Int(2, oid)
		if err := w.one(s.orderCust, func(r []driver.Value) { cid = asInt(r[0]) }); err != nil {
			return err
		}
		s.orderCarrier.Int(0, in.carrier)
		s.orderCarrier.Int(1, in.w)
		s.orderCarrier.Int(2, d)
		s.orderCarrier.Int(3, oid)
		if err := s.orderCarrier.Exec(); err != nil {
			return err
		}
		s.olDeliv.Str(0, ts)
		s.olDeliv.Int(1, in.w)
		s.olDeliv.Int(2, d)
		s.olDeliv.Int(3, oid)
		if err := s.olDeliv.Exec(); err != nil {
			return err
		}
		var sum []byte
		s.olSum.Int(0, in.w)
		s.olSum.Int(1, d)
		s.olSum.Int(2, oid)
		if err := w.one(s.olSum, func(r []driver.Value) {
			if b, ok := r[0].([]byte); ok {
				sum = append(sum[:0], b...)
			} else {
				sum = append(sum[:0], '0')
			}
		}); err != nil {
			return err
		}
		s.custDeliv.Bytes(0, sum)
		s.custDeliv.Int(1, in.w)
		s.custDeliv.Int(2, d)
		s.custDeliv.Int(3, cid)
		if err := s.custDeliv.Exec(); err != nil {
			return err
		}
	}
	return s.commit.Exec()
}

// stockLevel is clause 2.8.2 (read only).
func (w *worker) stockLevel() error {
	in, s := &w.st.in, &w.s
	if err := s.begin.Exec(); err != nil {
		return err
	}
	var next int64
	s.slNext.Int(0, in.w)
	s.slNext.Int(1, in.d)
	if err := w.one(s.slNext, func(r []driver.Value) { next = asInt(r[0]) }); err != nil {
		return err
	}
	c := s.slCount
	c.Int(0, in.w)
	c.Int(1, in.d)
	c.Int(2, next)
	c.Int(3, next-20)
	c.Int(4, in.w)
	c.Int(5, in.threshold)
	if _, err := c.Query(); err != nil {
		return err
	}
	return s.commit.Exec()
}

// Rollback ends the transaction a failed event left open.
func (w *worker) Rollback() error { return w.sess.Exec("ROLLBACK") }

// Close closes the statements.
func (w *worker) Close() error { return w.sess.Close() }
