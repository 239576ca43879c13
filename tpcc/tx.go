package tpcc

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/oltpbench/oltpbench/internal/random"
	"github.com/oltpbench/oltpbench/internal/worker"
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

// txType is one of the five transactions: its operation name, its cards in
// the default deck, its keying and mean think times (clause 5.2.5.7,
// seconds), and the transaction itself (one file each).
type txType struct {
	name          string
	weight        int
	keying, think float64
	new           func() transaction
}

var transactions = [numTx]txType{
	NewOrder:    {"new_order", 45, 18, 12, func() transaction { return &newOrder{} }},
	Payment:     {"payment", 43, 3, 12, func() transaction { return &payment{} }},
	OrderStatus: {"order_status", 4, 2, 10, func() transaction { return &orderStatus{} }},
	Delivery:    {"delivery", 4, 2, 5, func() transaction { return &delivery{} }},
	StockLevel:  {"stock_level", 4, 2, 5, func() transaction { return &stockLevel{} }},
}

// transaction is one transaction type on one connection: it owns its
// prepared statements.
type transaction interface {
	// prepare declares the statements on the worker's session.
	prepare(p *preparer)
	// inputs draws the transaction's inputs (clause 2.x.1) beyond the home
	// warehouse and district that every transaction gets.
	inputs(w *terminal, in *txInput)
	// run is the transaction's profile, one database transaction.
	run(w *terminal, in *txInput) error
	// done counts a committed transaction in the audit.
	done(a *Audit, in *txInput)
}

// TxNames are the operations' names.
var TxNames = func() []string {
	n := make([]string, numTx)
	for t, x := range transactions {
		n[t] = x.name
	}
	return n
}()

// DefaultWeights is the deck of 100 cards: the spec's minimums for Payment,
// Order-Status, Delivery and Stock-Level; New-Order the rest.
var DefaultWeights = func() (w [numTx]int) {
	for t, x := range transactions {
		w[t] = x.weight
	}
	return w
}()

// Config shapes a run.
type Config struct {
	Warehouses int64
	Threads    int
	Seed       uint64 // the dataset's seed: the run's C_LAST constant derives from it
	RunSeed    uint64
	Weights    [numTx]int // deck composition
	Wait       float64    // keying and think times' multiplier; 0: none
	// StockPerLine updates New-Order's stock rows one statement per line, as
	// go-tpc and BenchmarkSQL do, instead of one statement for the order.
	StockPerLine bool
	// TxPerTerminal ends each terminal after that many transactions
	// (BenchmarkSQL's runTxnsPerTerminal); 0: the run's time decides.
	TxPerTerminal int64
	// RandomHome draws every transaction's warehouse (BenchmarkSQL's
	// terminalWarehouseFixed=false) instead of keeping a terminal's own.
	RandomHome bool
	Schema     *Schema  // table layout; nil: the spec's
	C          *NURandC // the dataset's constants; nil: derived from Seed
}

// Stock update modes (--stock-update).
const (
	StockUpdateOrder   = "order"
	StockUpdatePerLine = "per-line"
)

// ParseWeights reads "45,43,4,4,4".
func ParseWeights(s string) ([numTx]int, error) {
	var w [numTx]int
	f := strings.Split(s, ",")
	if len(f) != numTx {
		return w, fmt.Errorf("invalid --weights=%s: five numbers for %s", s, strings.Join(TxNames, ","))
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
	// rows, one per thread, get every transaction for BenchmarkSQL's
	// data/result.csv; nil without a result directory.
	rows  []*rowRecorder
	start time.Time
}

// NewRun prepares a run.
func NewRun(cfg Config) *Run {
	if cfg.Schema == nil {
		cfg.Schema = SchemaTPCC
	}
	r := &Run{cfg: cfg, c: Constants(cfg.Seed)}
	if cfg.C != nil {
		r.c = *cfg.C
	}
	for t, n := range cfg.Weights {
		for i := 0; i < n; i++ {
			r.deck = append(r.deck, t)
		}
	}
	return r
}

// threadState is a terminal's state; it survives reconnects.
type threadState struct {
	rand     *random.Rand
	deck     []int
	pos      int
	homes    []int64 // warehouses this terminal uses
	district int64   // Stock-Level's district
	pending  int     // transaction to redo after a failure, -1 if none
	next     int     // transaction drawn by Wait, -1 if none
	last     int     // the last transaction completed, for its think time
	done     int64   // transactions completed
	in       txInput
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
	skipped           int // Delivery's districts without a new order
}

type line struct {
	item, supply, qty int64
	price             float64
	data              []byte
	found             bool
}

type terminal struct {
	r    *Run
	th   *worker.Thread
	st   *threadState
	sess *worker.Session
	// begin and commit are the running transaction's: each transaction
	// has its own, so that their client latency is the transaction's
	// (one server-side statement of each text serves all five).
	begin, commit   *worker.Stmt
	begins, commits [numTx]*worker.Stmt
	tx              [numTx]transaction
	rows            *rowRecorder
}

// preparer prepares a transaction's statements on a session, named for the
// transaction, and keeps the first error.
type preparer struct {
	sess  *worker.Session
	cfg   *Config
	event string // the transaction's name
	err   error
}

// stmt prepares q under name (new_order's stock_select).
func (p *preparer) stmt(name, q string) *worker.Stmt {
	if p.err != nil {
		return nil
	}
	s, err := p.sess.PrepareNamed(p.name(name), p.cfg.Schema.SQL(q))
	p.err = err
	return s
}

func (p *preparer) name(name string) worker.StmtName {
	return worker.StmtName{Event: p.event, Name: name}
}

// NewWorker prepares a thread's statements on dc.
func (r *Run) NewWorker(dc driver.Conn, th *worker.Thread) (worker.Worker, error) {
	st, _ := th.State.(*threadState)
	if st == nil {
		st = &threadState{rand: random.NewRand(r.cfg.RunSeed, uint64(th.ID)), pending: -1, next: -1, last: -1}
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
	w := &terminal{r: r, th: th, st: st, sess: worker.NewSession(dc, true, th)}
	if r.rows != nil {
		w.rows = r.rows[th.ID]
	}
	p := &preparer{sess: w.sess, cfg: &r.cfg}
	for t, x := range transactions {
		p.event = x.name
		w.begins[t], w.commits[t] = p.stmt("begin", "BEGIN"), p.stmt("commit", "COMMIT")
		w.tx[t] = x.new()
		w.tx[t].prepare(p)
	}
	if p.err != nil {
		w.sess.Close()
		return nil, p.err
	}
	return w, nil
}

func (w *terminal) home() int64 {
	h := w.st.homes
	if len(h) == 1 {
		return h[0]
	}
	return h[w.st.rand.Uniform(0, int64(len(h)-1))]
}

// other is a warehouse other than home, for remote lines and payments.
func (w *terminal) other(home int64) int64 {
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

// customer draws the customer of Payment and Order-Status: by last name 60%
// of the time (clause 2.5.1.2).
func (w *terminal) customer(in *txInput) {
	r, c := w.st.rand, w.r.c
	in.byName = r.Uniform(1, 100) <= 60
	if in.byName {
		in.last = LastName(in.last[:0], NURand(r, 255, c.LastRun, 0, 999))
	} else {
		in.cid = NURand(r, 1023, c.ID, 1, CustPerDist)
	}
}

// Wait draws the next transaction and, in --wait mode, sleeps the think time
// of the last one and the keying time of the next (clause 5.2.5.7), outside
// the measured response time. A transaction to redo needs no new draw.
func (w *terminal) Wait(stop <-chan struct{}) bool {
	st := w.st
	if st.pending >= 0 || st.next >= 0 {
		return true
	}
	if n := w.r.cfg.TxPerTerminal; n > 0 && st.done >= n {
		return false
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
	in := &st.in
	in.w = w.home()
	if w.r.cfg.RandomHome {
		in.w = st.rand.Uniform(1, w.r.cfg.Warehouses)
	}
	in.d = st.rand.Uniform(1, DistPerWare)
	in.cw, in.cd = in.w, in.d
	w.tx[t].inputs(w, in)
	st.next = t
	if w.r.cfg.Wait == 0 {
		return true
	}
	pause := transactions[t].keying
	if st.last >= 0 {
		// Negative exponential think time, truncated at 10 times the mean.
		mean := transactions[st.last].think
		pause += math.Min(-math.Log(1-st.rand.Float64())*mean, 10*mean)
	}
	tm := time.NewTimer(time.Duration(pause * w.r.cfg.Wait * float64(time.Second)))
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-stop:
		return false
	}
}

// Event runs the drawn transaction, or redoes a failed one with the same inputs.
func (w *terminal) Event() (int, error) {
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
	w.begin, w.commit = w.begins[t], w.commits[t]
	var t0 time.Time
	if w.rows != nil {
		t0 = time.Now()
	}
	err := w.tx[t].run(w, &st.in)
	if w.rows != nil {
		end := time.Now()
		w.rows.add(txRow{elapsed: end.Sub(w.r.start), latency: end.Sub(t0), ttype: uint8(t), err: err != nil,
			rbk: err == nil && t == NewOrder && st.in.rollback, skipped: uint8(st.in.skipped)})
	}
	if err != nil {
		w.r.Audit.Errors[t].Add(1)
		return t, err
	}
	st.pending, st.last = -1, t
	st.done++
	w.tx[t].done(&w.r.Audit, &st.in)
	return t, nil
}

// Rollback ends the transaction a failed event left open.
func (w *terminal) Rollback() error { return w.sess.Exec("ROLLBACK") }

// Close closes the statements.
func (w *terminal) Close() error { return w.sess.Close() }

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

// one runs a statement that must return a row.
func one(st *worker.Stmt, fn func(row []driver.Value)) error {
	n, err := st.Scan(func(row []driver.Value) error { fn(row); return nil })
	if err == nil && n == 0 {
		return errNoRow
	}
	return err
}

// customerID is the customer of Payment and Order-Status in district (wid,
// did): the drawn id, or, chosen by last name, the one in the middle of
// those with the name ordered by first name (clause 2.5.2.2). byName runs
// customerByNameSQL.
func customerID(byName *worker.Stmt, wid, did int64, in *txInput) (int64, error) {
	if !in.byName {
		return in.cid, nil
	}
	byName.Bind().Int(wid).Int(did).Bytes(in.last)
	var ids []int64
	if _, err := byName.Scan(func(r []driver.Value) error { ids = append(ids, asInt(r[0])); return nil }); err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, errNoRow
	}
	return ids[(len(ids)+1)/2-1], nil
}

// customerByNameSQL finds a customer by last name.
const customerByNameSQL = "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"
