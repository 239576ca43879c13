package sysbench

import (
	"database/sql/driver"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/oltpbench/oltpbench/internal/random"
	"github.com/oltpbench/oltpbench/internal/worker"
)

// bulkPacket is the size at which bulk_insert sends its multi-row INSERT
// (sysbench's bulk insert buffer).
const bulkPacket = 512 * 1024

// Run is a test bound to its options: it makes the workers of a run.
type Run struct {
	test   *Test
	o      Options
	dist   *random.Dist
	seed   uint64
	steps  []step
	unique *random.UniqueSeq
	next   atomic.Uint32
}

// NewRun binds t to its options. seed seeds every thread's generator.
func (t *Test) NewRun(o Options, dist *random.Dist, seed uint64) *Run {
	r := &Run{test: t, o: o, dist: dist, seed: seed, unique: random.NewUniqueSeq(seed)}
	if t.steps != nil {
		r.steps = t.steps(&r.o)
	}
	return r
}

// Ops names the measured operations: a sysbench run measures events.
func (r *Run) Ops() []string { return []string{r.test.Name} }

type threadState struct {
	rand    *random.Rand
	bulkRow int64
}

type testWorker struct {
	r     *Run
	th    *worker.Thread
	st    *threadState
	sess  *worker.Session
	stmts [numStmtKinds][]*worker.Stmt
	begin *worker.Stmt
	end   *worker.Stmt
	one   *worker.Stmt // select_random_points / select_random_ranges
	text  worker.Label // oltp_insert's and bulk_insert's text statements
	c     [len(cTemplate)]byte
	pad   [len(padTemplate)]byte
	buf   []byte
	rlen  int64
}

// NewWorker prepares a thread's statements on dc (sysbench's thread_init).
func (r *Run) NewWorker(dc driver.Conn, th *worker.Thread) (worker.Worker, error) {
	st, _ := th.State.(*threadState)
	if st == nil {
		st = &threadState{rand: random.NewRand(r.seed, uint64(th.ID))}
		st.rand.SetDist(r.dist)
		th.State = st
	}
	w := &testWorker{r: r, th: th, st: st, sess: worker.NewSession(dc, r.o.PreparedStmts, th)}
	if err := w.prepare(); err != nil {
		w.sess.Close()
		return nil, err
	}
	return w, nil
}

func (w *testWorker) prepare() error {
	o := &w.r.o
	var err error
	t := w.r.test
	prep := func(name, q string) *worker.Stmt {
		if err != nil {
			return nil
		}
		var s *worker.Stmt
		s, err = w.sess.PrepareNamed(worker.StmtName{Event: t.Name, Name: name}, q)
		return s
	}
	switch t.custom {
	case randomPointsEvent:
		w.one = prep("random_points", "SELECT id, k, c, pad FROM sbtest1 WHERE k IN ("+worker.Repeat("?", ", ", o.RandomPoints)+")")
		w.rlen = o.TableSize / int64(max(o.Threads, 1))
		return err
	case randomRangesEvent:
		w.one = prep("random_ranges", "SELECT count(k) FROM sbtest1 WHERE "+worker.Repeat("k BETWEEN ? AND ?", " OR ", o.NumberOfRanges))
		w.rlen = o.TableSize / int64(max(o.Threads, 1))
		return err
	case insertEvent:
		// Text statements, as sysbench sends them.
		w.text = w.sess.Label(worker.StmtName{Event: t.Name, Name: "inserts"})
		return nil
	case bulkInsertEvent:
		w.text = w.sess.Label(worker.StmtName{Event: t.Name, Name: "bulk_inserts"})
		return nil
	}
	if t.trx && !o.SkipTrx {
		w.begin = prep("begin", "BEGIN")
		w.end = prep("commit", "COMMIT")
	}
	kinds := map[stmtKind]bool{}
	for _, s := range w.r.steps {
		kinds[s.kind] = true
		if s.kind == deleteRow && !t.deleteOnly() {
			kinds[insertRow] = true
		}
	}
	for k := stmtKind(0); k < numStmtKinds; k++ {
		if !kinds[k] {
			continue
		}
		w.stmts[k] = make([]*worker.Stmt, o.Tables)
		for n := 1; n <= o.Tables; n++ {
			w.stmts[k][n-1] = prep(stmtNames[k], fmt.Sprintf(stmtDefs[k], n))
		}
	}
	return err
}

func (w *testWorker) id() int64 { return w.st.rand.Default(1, w.r.o.TableSize) }

// Event runs one sysbench event.
func (w *testWorker) Event() (int, error) {
	switch w.r.test.custom {
	case insertEvent:
		return 0, w.insert()
	case randomPointsEvent:
		return 0, w.randomPoints()
	case randomRangesEvent:
		return 0, w.randomRanges()
	case bulkInsertEvent:
		return 0, w.bulkInsert()
	}
	rnd := w.st.rand
	if w.begin != nil {
		if err := w.begin.Exec(); err != nil {
			return 0, err
		}
		w.th.Add(w.begin.Counted(), 1)
	}
	for _, s := range w.r.steps {
		tn := int(rnd.Uniform(1, int64(w.r.o.Tables))) - 1
		st := w.stmts[s.kind][tn]
		for i := 0; i < s.count; i++ {
			var err error
			ran := st
			switch s.kind {
			case pointSelect:
				st.Int(0, w.id())
				_, err = st.Query()
			case simpleRange, sumRange, orderRange, distinctRange:
				id := w.id()
				st.Int(0, id)
				st.Int(1, id+w.r.o.RangeSize-1)
				_, err = st.Query()
			case indexUpdate:
				st.Int(0, w.id())
				err = st.Exec()
			case nonIndexUpdate:
				rnd.Digits(w.c[:], cTemplate)
				st.Bytes(0, w.c[:])
				st.Int(1, w.id())
				err = st.Exec()
			case deleteRow:
				id, k := w.id(), w.id()
				st.Int(0, id)
				if err = st.Exec(); err != nil {
					return 0, err
				}
				if w.r.test.deleteOnly() {
					break
				}
				w.th.Add(st.Counted(), 1)
				ins := w.stmts[insertRow][tn]
				ran = ins
				rnd.Digits(w.c[:], cTemplate)
				rnd.Digits(w.pad[:], padTemplate)
				ins.Int(0, id)
				ins.Int(1, k)
				ins.Bytes(2, w.c[:])
				ins.Bytes(3, w.pad[:])
				err = ins.Exec()
			}
			if err != nil {
				return 0, err
			}
			w.th.Add(ran.Counted(), 1)
		}
	}
	if w.end != nil {
		if err := w.end.Exec(); err != nil {
			return 0, err
		}
		w.th.Add(w.end.Counted(), 1)
	}
	return 0, nil
}

func (w *testWorker) insert() error {
	o := &w.r.o
	rnd := w.st.rand
	tn := rnd.Uniform(1, int64(o.Tables))
	k := rnd.Default(1, o.TableSize)
	rnd.Digits(w.c[:], cTemplate)
	rnd.Digits(w.pad[:], padTemplate)
	var id int64
	if !o.AutoInc {
		// A 32-bit value no thread has used, moved into INT's signed range.
		id = int64(w.r.unique.At(w.r.next.Add(1)-1)) - 2147483648
	}
	b := append(w.buf[:0], "INSERT INTO sbtest"...)
	b = strconv.AppendInt(b, tn, 10)
	b = append(b, " (id, k, c, pad) VALUES ("...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, k, 10)
	b = append(b, ", '"...)
	b = append(b, w.c[:]...)
	b = append(b, "', '"...)
	b = append(b, w.pad[:]...)
	b = append(b, "')"...)
	w.buf = b
	c, err := w.sess.ExecCountedAs(w.text, string(b))
	if err != nil {
		return err
	}
	w.th.Add(c, 1)
	return nil
}

// randomBounds returns the thread's own slice of the key space, so that
// threads do not overlap (as select_random_points.lua does).
func (w *testWorker) randomBounds() (int64, int64) {
	tid := int64(w.th.ID % max(w.r.o.Threads, 1))
	lo := w.rlen * tid
	return lo, lo + w.rlen
}

func (w *testWorker) randomPoints() error {
	lo, hi := w.randomBounds()
	for i := 0; i < w.r.o.RandomPoints; i++ {
		w.one.Int(i, w.st.rand.Default(lo, hi))
	}
	if _, err := w.one.Query(); err != nil {
		return err
	}
	w.th.Add(w.one.Counted(), 1)
	return nil
}

func (w *testWorker) randomRanges() error {
	lo, hi := w.randomBounds()
	for i := 0; i < w.r.o.NumberOfRanges; i++ {
		v := w.st.rand.Default(lo, hi)
		w.one.Int(2*i, v)
		w.one.Int(2*i+1, v+w.r.o.Delta)
	}
	if _, err := w.one.Query(); err != nil {
		return err
	}
	w.th.Add(w.one.Counted(), 1)
	return nil
}

// bulkInsert adds one row to the thread's multi-row INSERT and sends it when
// it reaches the packet size; the rest goes at the end of the run.
func (w *testWorker) bulkInsert() error {
	w.st.bulkRow++
	if len(w.buf) == 0 {
		w.buf = append(w.buf, "INSERT INTO sbtest"...)
		w.buf = strconv.AppendInt(w.buf, int64(w.th.ID%max(w.r.o.Threads, 1))+1, 10)
		w.buf = append(w.buf, " VALUES"...)
	} else {
		w.buf = append(w.buf, ',')
	}
	w.buf = append(w.buf, '(')
	w.buf = strconv.AppendInt(w.buf, w.st.bulkRow, 10)
	w.buf = append(w.buf, ',')
	w.buf = strconv.AppendInt(w.buf, w.st.bulkRow, 10)
	w.buf = append(w.buf, ')')
	if len(w.buf) >= bulkPacket {
		return w.flushBulk()
	}
	return nil
}

func (w *testWorker) flushBulk() error {
	if len(w.buf) == 0 {
		return nil
	}
	q := string(w.buf)
	w.buf = w.buf[:0]
	c, err := w.sess.ExecCountedAs(w.text, q)
	if err != nil {
		return err
	}
	w.th.Add(c, 1)
	return nil
}

// Rollback ends the transaction a failed event left open.
func (w *testWorker) Rollback() error {
	if w.r.test.custom == bulkInsertEvent {
		w.buf = w.buf[:0]
	}
	return w.sess.Exec("ROLLBACK")
}

// Close sends what bulk_insert still holds and closes the statements.
func (w *testWorker) Close() error {
	var err error
	if w.r.test.custom == bulkInsertEvent {
		err = w.flushBulk()
	}
	w.sess.Close()
	return err
}
