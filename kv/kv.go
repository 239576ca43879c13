// Package kv is a key-value workload, after CockroachDB's kv: point reads
// and writes over a keyspace of one table, keys drawn uniformly or from a
// zipfian distribution. It is the reference workload: the smallest that
// uses the whole contract (a dataset the loader makes, options, a metric,
// a validation, workers and the default text report), and the template to
// copy for a new one (docs/ARCHITECTURE.md, "Adding a workload").
package kv

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/worker"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// The registration is the whole of what the rest of oltpbench knows of the
// workload: cmd makes `oltpbench kv` and `oltpbench csv kv` from it.
func init() {
	workload.Register(workload.Spec{
		Name:        "kv",
		Use:         "<prepare|run|cleanup> [options]",
		Example:     "oltpbench kv run --keys=100000 --read-percent=95",
		Short:       "key-value: point reads and writes over a keyspace, uniform or zipfian",
		DefaultDB:   "kv",
		Threads:     "8",
		ThreadsHelp: "threads; a list runs a sweep; a range with --p95-slo searches",
		Retry:       []string{"1213", "1205"},
		RetryHelp:   "errors on which an operation is redone: deadlock (1213), lock wait timeout (1205), or all",
		CSVFlags:    []string{"keys", "value-size"},
		RangeKeys:   []string{"keys"},
		New:         func() workload.Workload { return &kv{} },
	})
}

// Operations, in histogram order.
const (
	opRead = iota
	opWrite
)

var ops = []string{"kv_read", "kv_write"}

// kv is the workload bound to its options.
type kv struct {
	keys, valueSize int64
	readPercent     int
	distName        string
	zipfExp         float64
	seed            uint64
	dist            *random.Dist // nil: uniform
}

func (w *kv) Flags(fs *pflag.FlagSet, ro *workload.RunOptions) {
	fs.Int64Var(&w.keys, "keys", 100000, "rows in the keyspace (table kv)")
	fs.Int64Var(&w.valueSize, "value-size", 64, "bytes of each value")
	fs.IntVar(&w.readPercent, "read-percent", 95, "run: percent of operations that are reads; the rest are writes")
	fs.StringVar(&w.distName, "dist", "uniform", "run: how keys are drawn: uniform or zipfian")
	fs.Float64Var(&w.zipfExp, "zipf-exp", 0.99, "run: the zipfian distribution's exponent")
	ro.TimeVar(fs, "time", 60*time.Second, "measured run time: seconds, or a duration like 10m")
	ro.WarmupVar(fs, "warmup", 0, "warm-up before measuring, excluded from results (seconds or a duration)")
	workload.SecondsVar(fs, &ro.ReportInterval, "report-interval", 10*time.Second, "interval of the report lines (0: none)")
}

func (w *kv) Setup(s *workload.Setup) error {
	switch {
	case len(s.Args) != 0:
		return fmt.Errorf("unexpected argument(s) %q: kv has no tests to name", strings.Join(s.Args, " "))
	case w.keys < 1:
		return fmt.Errorf("invalid --keys=%d: at least 1", w.keys)
	case w.valueSize < 1 || w.valueSize > 65535:
		return fmt.Errorf("invalid --value-size=%d: 1 to 65535", w.valueSize)
	case w.readPercent < 0 || w.readPercent > 100:
		return fmt.Errorf("invalid --read-percent=%d: 0 to 100", w.readPercent)
	}
	w.seed = s.Seed
	switch w.distName {
	case "uniform":
	case "zipfian":
		d, err := random.NewDist("zipfian", 1, 1, 75, 0.2, w.zipfExp) // the other shapes are unused
		if err != nil {
			return fmt.Errorf("invalid --zipf-exp: %w", err)
		}
		w.dist = d
	default:
		return fmt.Errorf("invalid --dist=%q: use uniform or zipfian", w.distName)
	}
	return nil
}

func (w *kv) Name() string { return "kv" }

// Dataset is one table; Meta are the options that decide its rows, which
// the dataset record keeps so a run on another keyspace is told.
func (w *kv) Dataset() dataset.Dataset {
	size := w.valueSize
	return dataset.Dataset{Workload: "kv", Meta: w.Sizes(), Tables: []dataset.Table{{
		Name:      "kv",
		DDL:       fmt.Sprintf("CREATE TABLE kv (\n  k BIGINT NOT NULL,\n  v VARCHAR(%d) NOT NULL,\n  PRIMARY KEY (k)\n)", size),
		Columns:   []string{"k", "v"},
		Rows:      w.keys,
		ChunkRows: 50000,
		KeyColumn: "k",
		KeyOf:     func(row int64) int64 { return row + 1 },
		Gen: func(r *random.Rand, first, n int64, rw dataset.RowWriter) error {
			v := make([]byte, size)
			for row := first; row < first+n; row++ {
				rw.Int(row + 1)
				value(r, v)
				rw.Bytes(v)
				if err := rw.EndRow(); err != nil {
					return err
				}
			}
			return nil
		},
	}}}
}

// value fills v with random lower-case letters.
func value(r *random.Rand, v []byte) {
	for i := range v {
		v[i] = 'a' + byte(r.Uint64()%26)
	}
}

func (w *kv) Sizes() map[string]string {
	return map[string]string{"keys": strconv.FormatInt(w.keys, 10), "value_size": strconv.FormatInt(w.valueSize, 10)}
}

// Metric is operations (reads and writes) per second.
func (w *kv) Metric() result.Metric {
	return result.Metric{Name: "ops/s", Unit: "operations per second", Ops: ops, PerSeconds: 1, LatencyOp: "kv_read"}
}

func (w *kv) Hooks() workload.Hooks { return workload.Hooks{Validate: w.validate} }

// validate finds the table, and keys up to --keys in it, before a run.
func (w *kv) validate(ctx context.Context, db *sql.DB, schema string) error {
	missing, err := conn.MissingTables(ctx, db, schema, []string{"kv"})
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("no table kv in %s: run oltpbench kv prepare first", schema)
	}
	var last sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT MAX(k) FROM "+schema+".kv").Scan(&last); err != nil {
		return err
	}
	if last.Int64 < w.keys {
		return fmt.Errorf("--keys=%d, but table kv holds keys up to %d: run with --keys=%d, or prepare more", w.keys, last.Int64, last.Int64)
	}
	return nil
}

// run is one run: the options it was made with, and the default report.
type run struct {
	workload.TextReport
	w    *kv
	seed uint64
}

func (w *kv) NewRun(c workload.RunConfig) (workload.Run, error) {
	return &run{TextReport: workload.TextReport{W: c.Out, Ops: ops}, w: w, seed: c.Seed}, nil
}

func (r *run) Ops() []string { return ops }

// NewWorker prepares the two statements on the thread's connection.
func (r *run) NewWorker(dc driver.Conn, th *worker.Thread) (worker.Worker, error) {
	s := worker.NewSession(dc, true, th)
	read, err := s.PrepareNamed(worker.StmtName{Event: "kv", Name: "read"}, "SELECT v FROM kv WHERE k = ?")
	if err != nil {
		s.Close()
		return nil, err
	}
	write, err := s.PrepareNamed(worker.StmtName{Event: "kv", Name: "write"}, "UPDATE kv SET v = ? WHERE k = ?")
	if err != nil {
		s.Close()
		return nil, err
	}
	return &kvWorker{r: r, th: th, s: s, read: read, write: write, rand: random.NewRand(r.seed, uint64(th.ID)),
		v: make([]byte, r.w.valueSize)}, nil
}

// kvWorker runs one operation an event.
type kvWorker struct {
	r           *run
	th          *worker.Thread
	s           *worker.Session
	read, write *worker.Stmt
	rand        *random.Rand
	v           []byte
}

func (k *kvWorker) key() int64 {
	if d := k.r.w.dist; d != nil {
		return d.Draw(k.rand, 1, k.r.w.keys)
	}
	return k.rand.Uniform(1, k.r.w.keys)
}

func (k *kvWorker) Event() (int, error) {
	if k.rand.Uniform(1, 100) <= int64(k.r.w.readPercent) {
		k.read.Int(0, k.key())
		if _, err := k.read.Query(); err != nil {
			return opRead, err
		}
		k.th.Add(k.read.Counted(), 1)
		return opRead, nil
	}
	value(k.rand, k.v)
	k.write.Bytes(0, k.v)
	k.write.Int(1, k.key())
	if err := k.write.Exec(); err != nil {
		return opWrite, err
	}
	k.th.Add(k.write.Counted(), 1)
	return opWrite, nil
}

// Rollback has nothing to end: each operation is one autocommit statement.
func (k *kvWorker) Rollback() error { return nil }

func (k *kvWorker) Close() error { return k.s.Close() }
