// Package ycsb is YCSB's core workload for go-ycsb's users: its command
// line (load|run mysql -P workloads/workloada -p key=value), its property
// files (A-F shipped), the usertable of YCSB_KEY and FIELD0..FIELDn, its
// operations (read, update, insert, scan, read-modify-write) and request
// distributions (uniform, zipfian, latest, hotspot, sequential,
// exponential) as YCSB defines them. The table is loaded by the loader
// (parallel, LOAD DATA or CSV files), and runs are oltpbench's: plans,
// repeats, verdicts and result files.
package ycsb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/random"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/worker"
	"github.com/oltpbench/oltpbench/internal/workload"
)

func init() {
	workload.Register(workload.Spec{
		Name:        "ycsb",
		Use:         "<load|run|cleanup> mysql -P workloads/workloada [-p key=value ...]",
		Example:     "oltpbench ycsb run mysql -P workloads/workloada -p recordcount=100000 -p operationcount=100000 -p threadcount=16",
		Short:       "YCSB's core workload, as go-ycsb runs it: property files A-F, read/update/insert/scan/read-modify-write",
		DefaultDB:   "test",
		Threads:     "1",
		ThreadsHelp: "threads (threadcount); a list runs a sweep; a range with --p95-slo searches",
		Retry:       []string{"1213", "1205"},
		RetryHelp:   "errors on which an operation is redone: deadlock (1213), lock wait timeout (1205), or all",
		CSVFlags:    []string{"property-file", "prop"},
		Args:        1, // the binding: mysql
		Peer: workload.Peer{
			CommandAliases: map[string]string{"load": "prepare"},
			Aliases:        map[string]string{"interval": "report-interval"}, // go-ycsb's --interval
			Rewrite:        commandFirst,
			Outputs:        []string{OutputGoYCSB},
			Output:         true, // go-ycsb's lines: oltpbench's notes (client-bound) for a person only
		},
		Describe: func(name string) (workload.Description, bool) {
			return workload.Description{Title: "YCSB", Rank: 40}, name == "ycsb"
		},
		New: func() workload.Workload { return &ycsb{} },
	})
}

// Operations, in histogram order: go-ycsb's READ, UPDATE, INSERT, SCAN and
// READ_MODIFY_WRITE, named as this workload's.
const (
	opRead = iota
	opUpdate
	opInsert
	opScan
	opRMW
)

var ops = []string{"ycsb_read", "ycsb_update", "ycsb_insert", "ycsb_scan", "ycsb_read_modify_write"}

// proportion keys, in the operations' order.
var proportions = []string{"readproportion", "updateproportion", "insertproportion", "scanproportion", "readmodifywriteproportion"}

type ycsb struct {
	files, overrides []string
	ro               *workload.RunOptions
	p                *props

	records, start int64
	fields, length int
	hashed         bool
	pad            int
	mix            []float64 // cumulative proportions
	minScan, maxSc int64
	scanZipf       *zipfian
	choose         chooser
	seed           uint64
	peerOut        bool // --output=go-ycsb: a load prints go-ycsb's lines
}

func (w *ycsb) Flags(fs *pflag.FlagSet, ro *workload.RunOptions) {
	w.ro = ro
	fs.StringArrayVarP(&w.files, "property-file", "P", nil, "a workload's property file (repeatable; workloads/workloada .. workloadf are shipped)")
	fs.StringArrayVarP(&w.overrides, "prop", "p", nil, "a property, key=value, over the files' (repeatable): recordcount, operationcount, threadcount, ...")
	ro.TimeVar(fs, "time", 0, "run: at most this long (seconds or a duration; 0: until operationcount; -p maxexecutiontime is the same)")
	fs.Int64Var(&ro.Events, "operationcount", 0, "run: operations in all (-p operationcount is the same; 0 with --time: none counted)")
	ro.WarmupVar(fs, "warmup", 0, "warm-up before measuring, excluded from results (seconds or a duration)")
	workload.SecondsVar(fs, &ro.ReportInterval, "report-interval", 10*time.Second, "interval of the report lines (0: none)")
}

// ApplyOptions reads the property files: threadcount, operationcount and
// maxexecutiontime set --threads, --operationcount and --time unless the
// command line did; a run given --time (a plan's step) counts no
// operations unless -p operationcount says so.
func (w *ycsb) ApplyOptions(command string, fs *pflag.FlagSet, warn io.Writer) error {
	p, err := readProps(w.files, w.overrides)
	if err != nil {
		return err
	}
	if err := p.check(); err != nil {
		return err
	}
	w.p = p
	// What go-ycsb adds to the properties it prints.
	cmd := map[string]string{"prepare": "load"}[command]
	if cmd == "" {
		cmd = command
	}
	for k, v := range map[string]string{"command": cmd, "dotransactions": fmt.Sprint(command == "run"), "table": p.str("table")} {
		p.m[k], p.given[k] = v, true
	}
	given := func(k string) bool {
		return slices.ContainsFunc(w.overrides, func(o string) bool {
			return slices.ContainsFunc(splitProps(o), func(p string) bool { return strings.HasPrefix(strings.TrimSpace(p), k+"=") })
		})
	}
	set := map[string]string{"threads": p.str("threadcount"), "operationcount": p.str("operationcount")}
	if v := p.str("maxexecutiontime"); v != "0" {
		set["time"] = v
	}
	if !fs.Changed("output") {
		set["output"] = OutputGoYCSB // go-ycsb's lines, for what reads them
	}
	if fs.Changed("time") && !given("operationcount") {
		set["operationcount"] = "0"
	}
	for prop, flag := range connection {
		if v := p.str(prop); v != "" {
			set[flag] = v
		}
	}
	for flag, v := range set {
		if f := fs.Lookup(flag); f != nil && !f.Changed {
			if err := fs.Set(flag, v); err != nil {
				return fmt.Errorf("%s: %w", flag, err)
			}
		}
	}
	if f := fs.Lookup("output"); f != nil {
		w.peerOut = f.Value.String() == OutputGoYCSB
	}
	if p.str("mysql.password") != "" {
		fmt.Fprintln(warn, "oltpbench: mysql.password in a property file is not read: give it with MYSQL_PWD or --mysql-password-file")
	}
	return nil
}

func (w *ycsb) Setup(s *workload.Setup) error {
	if len(s.Args) > 1 || len(s.Args) == 1 && s.Args[0] != "" && s.Args[0] != "mysql" && s.Args[0] != "tidb" {
		return fmt.Errorf("unexpected argument(s) %q: the database binding, mysql (or tidb)", strings.Join(s.Args, " "))
	}
	if w.p == nil { // no property file or override: the defaults
		p, _ := readProps(nil, nil)
		w.p = p
	}
	p := w.p
	var err error
	if w.records, err = p.int("recordcount"); err != nil {
		return err
	}
	if w.start, err = p.int("insertstart"); err != nil {
		return err
	}
	f, _ := p.int("fieldcount")
	l, _ := p.int("fieldlength")
	w.fields, w.length = int(f), int(l)
	w.hashed = p.str("insertorder") == "hashed"
	z, _ := p.int("zeropadding")
	w.pad = int(z)
	w.minScan, _ = p.int("minscanlength")
	w.maxSc, _ = p.int("maxscanlength")
	if w.minScan < 1 || w.minScan > w.maxSc {
		return fmt.Errorf("minscanlength=%d, maxscanlength=%d: 1 <= min <= max", w.minScan, w.maxSc)
	}
	if p.str("scanlengthdistribution") == "zipfian" {
		w.scanZipf = newZipfian(w.maxSc-w.minScan+1, zipfianConstant)
	}
	sum := 0.0
	w.mix = nil
	for _, k := range proportions {
		v := p.float(k)
		if v < 0 {
			return fmt.Errorf("%s=%g: at least 0", k, v)
		}
		sum += v
		w.mix = append(w.mix, sum)
	}
	if sum == 0 && s.Command == "run" {
		return fmt.Errorf("every proportion is 0: give readproportion, updateproportion, ... (-P workloads/workloada)")
	}
	if w.records < 1 {
		return fmt.Errorf("recordcount=%d: at least 1", w.records)
	}
	if w.choose, err = newChooser(p, w.records); err != nil {
		return err
	}
	w.seed = s.Seed
	return nil
}

func (w *ycsb) Name() string { return "ycsb" }

// batch is go-ycsb's batch.size: rows per INSERT of a load (1: a row a
// statement).
func (w *ycsb) batch() int64 {
	b, _ := w.p.int("batch.size")
	return max(b, 1)
}

// commandFirst reads go-ycsb's order, the command before the binding
// (load mysql), as oltpbench's, the command last (mysql load).
func commandFirst(args []string, _, _ io.Writer) []string {
	if len(args) >= 2 && slices.Contains([]string{"load", "run", "cleanup", "prepare"}, args[0]) && !strings.HasPrefix(args[1], "-") {
		out := append([]string{args[1], args[0]}, args[2:]...)
		return out
	}
	return args
}

// key is record n's key: "user" and its scrambled number (insertorder
// hashed) or its number zero-padded to zeropadding digits.
func (w *ycsb) key(buf []byte, n int64) []byte {
	buf = append(buf[:0], "user"...)
	if w.hashed {
		return strconv.AppendInt(buf, fnv64(n), 10)
	}
	digits := strconv.AppendInt(nil, n, 10)
	for i := len(digits); i < w.pad; i++ {
		buf = append(buf, '0')
	}
	return append(buf, digits...)
}

// Dataset is the usertable: recordcount records from insertstart.
func (w *ycsb) Dataset() dataset.Dataset {
	cols := []string{"YCSB_KEY"}
	ddl := "CREATE TABLE usertable (\n  YCSB_KEY VARCHAR(64) NOT NULL"
	for i := 0; i < w.fields; i++ {
		cols = append(cols, fmt.Sprintf("FIELD%d", i))
		ddl += fmt.Sprintf(",\n  FIELD%d VARCHAR(%d)", i, w.length)
	}
	ddl += ",\n  PRIMARY KEY (YCSB_KEY)\n)"
	// batch.size, go-ycsb's rows per INSERT of a load, is the rows of
	// each of the loader's units (one LOAD DATA or INSERT transaction);
	// go-ycsb's default of 1, a row a statement, leaves the loader's.
	chunk := int64(20000)
	if b := w.batch(); b > 1 {
		chunk = b
	}
	return dataset.Dataset{Workload: "ycsb", Meta: w.Sizes(), Tables: []dataset.Table{{
		Name: "usertable", DDL: ddl, Columns: cols, Rows: w.records, ChunkRows: chunk,
		Gen: func(r *random.Rand, first, n int64, rw dataset.RowWriter) error {
			var key []byte
			v := make([]byte, w.length)
			for row := first; row < first+n; row++ {
				key = w.key(key, w.start+row)
				rw.Bytes(key)
				for range w.fields {
					fill(r, v)
					rw.Bytes(v)
				}
				if err := rw.EndRow(); err != nil {
					return err
				}
			}
			return nil
		},
	}}}
}

// fill writes printable characters, as YCSB's random fields.
func fill(r *random.Rand, v []byte) {
	for i := range v {
		v[i] = ' ' + 1 + byte(r.Uint64()%94)
	}
}

func (w *ycsb) Sizes() map[string]string {
	return map[string]string{"recordcount": strconv.FormatInt(w.records, 10), "insertstart": strconv.FormatInt(w.start, 10),
		"fieldcount": strconv.Itoa(w.fields), "fieldlength": strconv.Itoa(w.length), "insertorder": w.p.str("insertorder")}
}

// Metric is operations per second, go-ycsb's OPS.
func (w *ycsb) Metric() result.Metric {
	return result.Metric{Name: "ops/s", Unit: "operations per second", Ops: ops, PerSeconds: 1, LatencyOp: "ycsb_read"}
}

func (w *ycsb) Hooks() workload.Hooks {
	h := workload.Hooks{Validate: w.validate}
	if w.peerOut {
		h.Peer.BeforeLoad = func(out io.Writer) { (&peerReport{w: out}).header(w) }
		h.Peer.Loaded = func(out io.Writer, l workload.LoadFigures) { (&peerReport{w: out}).loaded(l, w.batch()) }
	}
	return h
}

// validate finds the usertable with at least recordcount records.
func (w *ycsb) validate(ctx context.Context, db *sql.DB, schema string) error {
	missing, err := conn.MissingTables(ctx, db, schema, []string{"usertable"})
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("no usertable in %s: run oltpbench ycsb load first", schema)
	}
	// The last record loaded, by its key: one lookup, where counting a
	// table of a hundred million records would outlast the check.
	last := w.key(nil, w.start+w.records-1)
	var one int
	switch err := db.QueryRowContext(ctx, "SELECT 1 FROM "+schema+".usertable WHERE YCSB_KEY = ?", string(last)).Scan(&one); {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("usertable has no record %d (%s): load recordcount=%d records first, or give a lower recordcount", w.start+w.records-1, last, w.records)
	case err != nil:
		return err
	}
	return nil
}

// run is one run; inserted counts the records its inserts added, which
// the key choosers draw from as they are acknowledged.
type run struct {
	workload.TextReport
	peer *peerReport // --output=go-ycsb
	w    *ycsb
	seed uint64
	// next is the insert key sequence's count, inserted the inserts
	// acknowledged (the choosers draw from those).
	next, inserted atomic.Int64
}

func (w *ycsb) NewRun(c workload.RunConfig) (workload.Run, error) {
	r := &run{TextReport: workload.TextReport{W: c.Out, Ops: ops}, w: w, seed: c.Seed}
	if c.Output == OutputGoYCSB {
		r.peer = &peerReport{w: c.Out, ops: ops}
	}
	return r, nil
}

func (r *run) Header() {
	if r.peer != nil {
		r.peer.header(r.w)
	}
}

func (r *run) Interval(iv measure.Interval) {
	if r.peer != nil {
		r.peer.interval(iv)
		return
	}
	r.TextReport.Interval(iv)
}

func (r *run) Final(f *measure.Final) (map[string]float64, map[string]string) {
	if r.peer != nil {
		r.peer.final(f)
		return nil, nil
	}
	return r.TextReport.Final(f)
}

func (r *run) Ops() []string { return ops }

// NewWorker prepares the operations' statements on the thread's connection.
func (r *run) NewWorker(dc driver.Conn, th *worker.Thread) (worker.Worker, error) {
	w := r.w
	s := worker.NewSession(dc, true, th)
	wk := &ycsbWorker{r: r, th: th, s: s, rand: random.NewRand(r.seed, uint64(th.ID)), v: make([]byte, w.length)}
	if r.peer != nil {
		wk.parts = r.peer.newParts()
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", w.fields+1), ", ")
	stmts := []struct {
		dst  **worker.Stmt
		name string
		sql  string
	}{
		{&wk.read, "read", "SELECT * FROM usertable WHERE YCSB_KEY = ?"},
		{&wk.insert, "insert", "INSERT INTO usertable VALUES (" + marks + ")"},
		{&wk.scan, "scan", "SELECT * FROM usertable WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?"},
	}
	for _, st := range stmts {
		p, err := s.PrepareNamed(worker.StmtName{Event: "ycsb", Name: st.name}, st.sql)
		if err != nil {
			s.Close()
			return nil, err
		}
		*st.dst = p
	}
	for i := 0; i < w.fields; i++ {
		p, err := s.PrepareNamed(worker.StmtName{Event: "ycsb", Name: fmt.Sprintf("update%d", i)}, fmt.Sprintf("UPDATE usertable SET FIELD%d = ? WHERE YCSB_KEY = ?", i))
		if err != nil {
			s.Close()
			return nil, err
		}
		wk.update = append(wk.update, p)
	}
	return wk, nil
}

type ycsbWorker struct {
	r                  *run
	th                 *worker.Thread
	s                  *worker.Session
	read, insert, scan *worker.Stmt
	update             []*worker.Stmt
	rand               *random.Rand
	key, v             []byte
	vals               [][]byte  // an insert's fields
	parts              *rmwParts // go-ycsb's output: a read-modify-write's read and update
}

// next is the record an operation reads or changes, of those there are.
func (k *ycsbWorker) next() int64 {
	w := k.r.w
	return w.start + w.choose.next(k.rand, w.records+k.r.inserted.Load())
}

func (k *ycsbWorker) Event() (int, error) {
	w := k.r.w
	x := k.rand.Float64() * w.mix[len(w.mix)-1]
	op := 0
	for op < len(w.mix)-1 && x >= w.mix[op] {
		op++
	}
	var err error
	switch op {
	case opRead:
		err = k.doRead()
	case opUpdate:
		err = k.doUpdate(k.next())
	case opInsert:
		err = k.doInsert()
	case opScan:
		err = k.doScan()
	case opRMW:
		n := k.next()
		k.key = w.key(k.key, n)
		k.read.Bytes(0, k.key)
		t0 := time.Now()
		if _, err = k.read.Query(); err == nil {
			k.th.Add(k.read.Counted(), 1)
			t1 := time.Now()
			err = k.doUpdate(n)
			if err == nil && k.parts != nil {
				k.parts.record(t1.Sub(t0), time.Since(t1))
			}
		}
	}
	return op, err
}

func (k *ycsbWorker) doRead() error {
	k.key = k.r.w.key(k.key, k.next())
	k.read.Bytes(0, k.key)
	if _, err := k.read.Query(); err != nil {
		return err
	}
	k.th.Add(k.read.Counted(), 1)
	return nil
}

// doUpdate writes one field of record n (YCSB's writeallfields=false).
func (k *ycsbWorker) doUpdate(n int64) error {
	w := k.r.w
	st := k.update[k.rand.Uniform(0, int64(w.fields-1))]
	fill(k.rand, k.v)
	k.key = w.key(k.key, n)
	st.Bytes(0, k.v)
	st.Bytes(1, k.key)
	if err := st.Exec(); err != nil {
		return err
	}
	k.th.Add(st.Counted(), 1)
	return nil
}

// doInsert inserts the next record of the run's insert sequence (after
// recordcount); a key a run before inserted is passed over for the next.
func (k *ycsbWorker) doInsert() error {
	w := k.r.w
	for range maxTaken {
		err := k.insertAt(w.start + w.records + k.r.next.Add(1) - 1)
		if conn.Code(err) != "1062" {
			return err
		}
	}
	return fmt.Errorf("%d keys in a row after recordcount are taken: load again, or raise insertstart", maxTaken)
}

// maxTaken bounds the keys an insert passes over.
const maxTaken = 100000

func (k *ycsbWorker) insertAt(n int64) error {
	w := k.r.w
	k.key = w.key(k.key, n)
	k.insert.Bytes(0, k.key)
	if k.vals == nil {
		k.vals = make([][]byte, w.fields)
		for i := range k.vals {
			k.vals[i] = make([]byte, w.length)
		}
	}
	for i, v := range k.vals {
		fill(k.rand, v)
		k.insert.Bytes(i+1, v)
	}
	if err := k.insert.Exec(); err != nil {
		return err
	}
	k.r.inserted.Add(1) // acknowledged: the choosers may draw it
	k.th.Add(k.insert.Counted(), 1)
	return nil
}

func (k *ycsbWorker) doScan() error {
	w := k.r.w
	length := k.rand.Uniform(w.minScan, w.maxSc)
	if w.scanZipf != nil {
		length = w.minScan + w.scanZipf.next(k.rand, w.maxSc-w.minScan+1)
	}
	k.key = w.key(k.key, k.next())
	k.scan.Bytes(0, k.key)
	k.scan.Int(1, length)
	if _, err := k.scan.Query(); err != nil {
		return err
	}
	k.th.Add(k.scan.Counted(), 1)
	return nil
}

// Rollback has nothing to end: each operation is autocommit statements.
func (k *ycsbWorker) Rollback() error { return nil }

func (k *ycsbWorker) Close() error { return k.s.Close() }
