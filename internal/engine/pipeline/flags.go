package pipeline

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/engine/cells"
	"github.com/oltpbench/oltpbench/internal/engine/health"
	"github.com/oltpbench/oltpbench/internal/metrics"
	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/oltpbench/oltpbench/loader"
)

// Flags are the options the pipeline owns, the same in every command:
// connection, loader, output, thread levels.
type Flags struct {
	threads      int
	netIO        string
	conn         conn.Flags
	load         loader.Flags
	ignoreErrors []string

	resultFile, output, configFile string

	lv      levelFlags
	search  searchFlags // a workload with a Capacity: its search command
	metrics metrics.Flags
	// A run is client-bound at this share of its CPUs (percent) or this
	// scheduling latency p99.
	boundCPU   float64
	boundSched time.Duration
	// skipDatasetCheck runs a run that asks for more than its dataset has.
	skipDatasetCheck bool
	// stmtLatency times each statement the workload names.
	stmtLatency bool
	// mysqlDebug prints every client call (--mysql-debug).
	mysqlDebug bool
	// intervalCounters reads the server's counters at every report interval.
	intervalCounters bool
	// events are --event's specs: operations during the run.
	events []string
	// Connection churn: a new connection every connRefresh, or every
	// event (reconnect "event"); idleConns held open doing nothing.
	connRefresh time.Duration
	reconnect   string
	idleConns   int
	// notes shows oltpbench's own lines beside a peer tool's output when
	// stderr is no terminal (--notes).
	notes bool
}

// registerWorkload adds everything a workload command takes besides the
// workload's own options.
func (f *Flags) registerWorkload(fs *pflag.FlagSet, spec workload.Spec) {
	fs.StringVar(&f.lv.threadsSpec, result.FlagThreads, spec.Threads, spec.ThreadsHelp)
	f.lv.register(fs)
	if spec.Capacity != nil {
		f.search.register(fs, spec.Capacity)
	}
	f.conn.Register(fs, spec.DefaultDB, spec.DefaultUser)
	options.AddList(fs, &f.ignoreErrors, "mysql-ignore-errors", spec.Retry, spec.RetryHelp)
	fs.StringVar(&f.netIO, "net-io", "auto", "run: how connections wait for replies: blocking (a thread per connection, as C clients), poller (Go's network poller), or auto (blocking up to 8 threads per CPU)")
	f.load.Register(fs, true)
	fs.StringVar(&f.resultFile, result.FlagResultFile, "", "write the JSON result here")
	fs.StringVar(&f.output, "output", "text", "text, json (the JSON result on stdout after the report), or a workload's own style (see its --help)")
	fs.StringVar(&f.configFile, "config-file", "", "file of key=value options (the command line wins)")
	f.metrics.Register(fs)
	fs.Float64Var(&f.boundCPU, "client-bound-cpu", 100*health.DefaultLimits.CPUShare, "run: a run whose client used this percent of its CPUs is client-bound: its figures measure the client (0: never)")
	fs.BoolVar(&f.skipDatasetCheck, "skip-dataset-check", false, "run: skip the checks of the run against its dataset: the workload's (its tables are there, its sizes are the dataset's) and the run's sizes against the dataset's record")
	fs.BoolVar(&f.stmtLatency, "statement-latency", false, "run: time each statement of the workload on the client (an HDR histogram per statement in the result, report show, report compare and the metrics; off by default: it costs about 2% of client CPU per query in read_write)")
	options.AddBool(fs, &f.mysqlDebug, "mysql-debug", false, "run: print every client call as the MySQL C client's debug trace names them (DEBUG: lines on standard output; the password never)")
	fs.StringArrayVar(&f.events, result.FlagEvent, nil, "run: an operation during the run, measured (repeatable): 'at=20s;sql=ALTER TABLE t ADD INDEX i (c)' or 'at=60s;timeout=5m;on_error=stop;command=...' (name=, timeout= (1h), on_error=record|stop; sql= or command= last); the result splits the run into windows before, during and after, with each event's impact")
	workload.SecondsVar(fs, &f.connRefresh, "conn-refresh", 0, "run: each thread closes its connection and opens a new one this often, between events (load reaches nodes added behind a proxy; 0: never; seconds or a duration)")
	fs.StringVar(&f.reconnect, "reconnect", "", "run: event: a new connection for every event (transaction), as an application without a pool")
	fs.IntVar(&f.idleConns, "idle-conns", 0, "run: hold this many more connections open doing nothing, as an application's pool does")
	fs.BoolVar(&f.intervalCounters, "interval-counters", false, "run: the server's status counters at every report interval too (SHOW GLOBAL STATUS on a connection of its own, as the interval is cut): their changes in the result's intervals")
	if spec.Peer.Output {
		options.AddBool(fs, &f.notes, "notes", false, "oltpbench's own lines beside the peer tool's (warnings, the client-bound note, hints, the loader's mode, progress and summary, its options in --help): shown on a terminal, and with this on everywhere; off, a harness reads the peer's lines alone")
	}
	workload.SecondsVar(fs, &f.boundSched, "client-bound-sched-latency", health.DefaultLimits.SchedLatency, "run: a run whose goroutines waited this long (p99) for a CPU is client-bound (0: never; seconds or a duration)")
}

// checkRun checks the options of a run that no workload reads, so that a
// plan names a bad one before anything runs.
func (f *Flags) checkRun() error {
	if _, err := parseEvents(f.events); err != nil {
		return err
	}
	if f.reconnect != "" && f.reconnect != "event" {
		return fmt.Errorf("invalid --reconnect=%s: event (a new connection for every event), or leave it out", f.reconnect)
	}
	if f.idleConns < 0 {
		return fmt.Errorf("invalid --idle-conns=%d: 0 or more", f.idleConns)
	}
	return nil
}

// limits are the client-bound thresholds.
func (f *Flags) limits() health.Limits {
	return health.Limits{CPUShare: f.boundCPU / 100, SchedLatency: f.boundSched}
}

// firstThreads sets f.threads from --threads (the first level, or the low end of a range).
func (f *Flags) firstThreads() error {
	levels, lo, _, err := cells.ParseThreads(f.lv.threadsSpec, f.lv.p95SLO != "")
	if err != nil {
		return err
	}
	if levels != nil {
		f.threads = levels[0]
	} else {
		f.threads = lo
	}
	return nil
}

// flagValues lists every option's effective value, secrets removed.
func flagValues(fs *pflag.FlagSet) map[string]string {
	m := map[string]string{}
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden || fl.Name == "mysql-password" || fl.Name == "help" {
			return
		}
		m[fl.Name] = loader.RedactURL(fl.Value.String()) // --dir may hold storage keys
	})
	return m
}
