package sysbench

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/random"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/worker"
	"github.com/oltpbench/oltpbench/internal/workload"
)

func init() {
	workload.Register(workload.Spec{
		Name:    "sysbench",
		Use:     "<test> <prepare|prewarm|run|cleanup> [options]",
		Args:    1,
		Example: "oltpbench sysbench oltp_read_write run",
		Short:   "sysbench 1.0.20 OLTP tests, same options and output",
		Long: "sysbench 1.0.20's OLTP tests with the same options, defaults and text output.\nTests: " +
			strings.Join(Names(), ", ") + " (oltp_common for prepare and cleanup).",
		DefaultDB:   "sbtest",
		DefaultUser: "sbtest", // sysbench's
		Threads:     "1",
		ThreadsHelp: "number of threads to use; a list (150,300,600) runs a sweep; a range (8-1024) with --p95-slo searches",
		Retry:       []string{"1213", "1020", "1205"},
		RetryHelp:   "errors to ignore (roll back, retry the event, count), or all",
		CSVFlags: []string{"tables", "table-size", "auto-inc", "secondary", "create-secondary",
			"create-table-options", "mysql-storage-engine", "rand-type", "rand-spec-iter", "rand-spec-pct", "rand-spec-res",
			"rand-pareto-h", "rand-zipfian-exp"},
		Describe:  describe,
		RangeKeys: []string{"tables", "table_size"},
		New:       func() workload.Workload { return &suite{} },
		Peer: workload.Peer{
			Aliases:        map[string]string{"num-threads": "threads", "max-requests": "events", "max-time": "time", "tx-rate": "rate"},
			CommandAliases: map[string]string{"warmup": "prewarm"}, // sysbench 1.0's old name
			Rewrite:        rewrite,
			Output:         true,
			// sysbench's event queue: a ring of 131,072 slots, one kept free.
			RateQueue:   131071,
			InitTimeout: "FATAL: Worker threads failed to initialize within %d seconds!",
			QueueFull:   "FATAL: The event queue is full. This means the worker threads are unable to keep up with the specified event generation rate",
			Messages:    messages,
		},
	})
}

// messages are sysbench's lines as its threads live: LOG_INFO (4) and
// LOG_DEBUG (5, "DEBUG: "), and "Threads started!" once every thread has
// run its thread_init.
var messages = workload.RunMessages{
	RateStarted:        workload.Said{Text: "DEBUG: Event generating thread started\n", Level: 5},
	ReportsStarted:     workload.Said{Text: "DEBUG: Reporting thread started\n", Level: 5},
	CheckpointsStarted: workload.Said{Text: "DEBUG: Checkpoints report thread started\n", Level: 5},
	ThreadStarted:      workload.Said{Text: "DEBUG: Worker thread (#%d) started\n", Level: 5},
	ThreadReady:        workload.Said{Text: "DEBUG: Worker thread (#%d) initialized\n", Level: 5},
	AllReady:           workload.Said{Text: "Threads started!\n\n", Level: 3},
	TimeLimit:          workload.Said{Text: "Time limit exceeded, exiting...\n", Level: 4},
	EventLimit:         workload.Said{Text: "Event limit exceeded, exiting...\n", Level: 4},
	Done:               workload.Said{Text: "Done.\n\n", Level: 4},
	TraceLevel:         5,
}

// titles name the tests as the TiDB benchmark reports do; order is theirs.
var titles = map[string]string{
	"oltp_point_select": "Point Select", "oltp_read_only": "Read Only", "oltp_read_write": "Read Write",
	"oltp_write_only": "Write Only", "oltp_update_index": "Update Index", "oltp_update_non_index": "Update Non-Index",
	"oltp_insert": "Insert", "oltp_delete": "Delete", "select_random_points": "Select Random Points",
	"select_random_ranges": "Select Random Ranges", "bulk_insert": "Bulk Insert",
}

var reportOrder = []string{"oltp_point_select", "oltp_update_non_index", "oltp_update_index", "oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_insert"}

func describe(name string) (workload.Description, bool) {
	test, ok := strings.CutPrefix(name, "sysbench/")
	if !ok {
		return workload.Description{}, false
	}
	d := workload.Description{Title: name, Rank: 99}
	if t, ok := titles[test]; ok {
		d.Title = t
	}
	for i, x := range reportOrder {
		if x == test {
			d.Rank = i
		}
	}
	return d, true
}

// suite is the sysbench workload: sysbench's options and command line,
// and the kind of test the command line names, which is its own type:
// a native OLTP test (native.go), a Lua script (lua.go) or a compiled-in
// test (hwtests.go). Each kind shares the options and the report, and none
// branches on another.
type suite struct {
	kind kind
	o    Options
	dist *random.Dist
	ro   *workload.RunOptions

	stdin bool           // the script comes on standard input
	fs    *pflag.FlagSet // the flag set the options are in (a script's own too)

	psMode, dbDriver string
	randType         string
	randSpecIter     int
	randSpecPct      float64
	randSpecRes      float64
	randParetoH      float64
	randZipfExp      float64

	version   bool
	verbosity int
	// debug is sysbench's --debug (said in the header, and the verbosity
	// of debug); validate is --validate: sysbench 1.0.20's OLTP tests
	// check nothing more with it, they say it in the header.
	debug, validate bool
	dbDebug         bool // --db-debug

	percentile  float64
	percentiles []string
	pcts        []float64
	histogram   bool
	checkpoints []string
}

// kind is what one kind of test does with the suite's options.
type kind interface {
	// setup checks the options for command once parsed; name is the test
	// argument ("oltp_common" when none).
	setup(st *workload.Setup, name, command string) error
	name() string
	dataset() dataset.Dataset
	sizes() map[string]string
	hooks() workload.Hooks
	// newRun makes the run on the suite's report (sr).
	newRun(sr *suiteRun, c workload.RunConfig) (workload.Run, error)
	// front answers what sysbench answers for the test before it runs a
	// command (args: the test and the command).
	front(args []string, out io.Writer) (bool, error)
}

// compatOptions parse so that sysbench command lines run; they change nothing here.
// Each has nothing to act on in Go (see the README's option table):
// thread-stack-size (goroutine stacks grow), pgsql-variant (the pgsql
// driver's).
var compatOptions = []string{"thread-stack-size", "pgsql-variant"}

func (s *suite) Flags(fs *pflag.FlagSet, ro *workload.RunOptions) {
	s.ro, s.fs = ro, fs
	s.kind = &native{suite: s} // until Declare finds another kind
	s.o = Defaults()
	for _, o := range Decl(&s.o) {
		name := strings.ReplaceAll(o.Name, "_", "-")
		switch o.Kind {
		case OptBool:
			options.AddBool(fs, o.Bool, name, *o.Bool, o.Help)
		case OptInt:
			if o.Int != nil {
				fs.Var(options.Int64{P: o.Int}, name, o.Help)
			} else {
				fs.Var(options.Int{P: o.IntP}, name, o.Help)
			}
		case OptString:
			fs.StringVar(o.String, name, *o.String, o.Help)
		}
	}
	fs.Int64Var(&ro.Events, "events", 0, "limit for total number of events (0: none)")
	ro.TimeVar(fs, "time", 10*time.Second, "limit for total execution time in seconds, or a duration like 5m (0: none)")
	ro.RateVar(fs, "rate", "average transactions rate; 0 for unlimited (open loop: latency from the scheduled start); or a schedule: 500@60s,1000@60s, 100-2000@2m (a ramp)")
	workload.SecondsVar(fs, &ro.ReportInterval, "report-interval", 0, "report intermediate statistics every N seconds (0: off)")
	options.AddList(fs, &s.checkpoints, "report-checkpoints", nil, "dump full statistics and reset counters at these times (seconds)")
	ro.WarmupVar(fs, "warmup-time", 0, "run this many seconds before measuring")
	fs.Float64Var(&s.percentile, "percentile", 95, "percentile for latency statistics (1-100; 0 disables)")
	options.AddList(fs, &s.percentiles, "percentiles", nil, "extra percentiles for the final report, e.g. 50,95,99,99.9")
	options.AddBool(fs, &s.histogram, "histogram", false, "print latency histogram in report")
	fs.Var(workload.Seconds{P: &ro.Grace, Off: true}, "forced-shutdown", "seconds to wait after --time before stopping anyway, or off")
	fs.StringVar(&s.randType, "rand-type", "special", "random numbers distribution {uniform,gaussian,special,pareto,zipfian}")
	fs.Int64Var(&ro.Seed, "rand-seed", 0, "seed for the run's random numbers; 0 uses the current time")
	fs.IntVar(&s.randSpecIter, "rand-spec-iter", 12, "number of iterations used for numbers generation")
	fs.Float64Var(&s.randSpecPct, "rand-spec-pct", 1, "percentage of values to be treated as 'special' (special distribution)")
	fs.Float64Var(&s.randSpecRes, "rand-spec-res", 75, "percentage of 'special' values to use (special distribution)")
	fs.Float64Var(&s.randParetoH, "rand-pareto-h", 0.2, "parameter h for pareto distribution")
	fs.Float64Var(&s.randZipfExp, "rand-zipfian-exp", 0.8, "shape parameter (exponent, theta) for the zipfian distribution")
	fs.StringVar(&s.psMode, "db-ps-mode", "auto", "prepared statements usage mode {auto, disable}")
	fs.StringVar(&s.dbDriver, "db-driver", "mysql", "database driver (mysql)")
	options.AddBool(fs, &s.version, "version", false, "print version and exit")
	options.AddBool(fs, &ro.DryRun, "mysql-dry-run", false, "Dry run, pretend that all MySQL client API calls are successful without executing them")
	fs.IntVar(&s.verbosity, "verbosity", 3, "verbosity level {5 - debug, 0 - only critical messages}")
	options.AddBool(fs, &s.debug, "debug", false, "print more debugging info (the header says so; each thread's figures at --verbosity=5)")
	options.AddBool(fs, &s.dbDebug, "db-debug", false, "print database-specific debug information (at --verbosity=5: sysbench 1.0.20's query timers, which it never starts)")
	options.AddBool(fs, &s.validate, "validate", false, "perform validation checks where possible (sysbench 1.0.20's OLTP tests have none: the header says it)")
	workload.SecondsVar(fs, &ro.InitTimeout, "thread-init-timeout", 30*time.Second, "seconds to wait for the worker threads to connect and prepare their statements")
	for _, n := range compatOptions {
		fs.String(n, "", "accepted so that sysbench command lines parse; no effect in oltpbench")
		fs.Lookup(n).NoOptDefVal = "on"
	}
}

func (s *suite) Setup(st *workload.Setup) error {
	name := "oltp_common"
	switch {
	case len(st.Args) == 1:
		name = st.Args[0]
	case len(st.Args) > 1:
		return fmt.Errorf("expected at most one test, got %q: e.g. oltpbench csv sysbench oltp_common", strings.Join(st.Args, " "))
	}
	command := st.Command
	if command == "csv" {
		command = "prepare"
	}
	return s.kind.setup(st, name, command)
}

// level is --verbosity as sysbench keeps it: a byte (-1 is 255, refused
// by Front).
func (s *suite) level() int { return s.verbosity & 0xff }

// preparedStmts reads --db-ps-mode.
func (s *suite) preparedStmts() error {
	switch s.psMode {
	case "auto":
		s.o.PreparedStmts = true
	case "disable":
		s.o.PreparedStmts = false
	default:
		return fmt.Errorf("invalid --db-ps-mode=%s: use auto or disable", s.psMode)
	}
	return nil
}

// newDist is the --rand-type distribution.
func (s *suite) newDist() (err error) {
	s.dist, err = random.NewDist(s.randType, s.randSpecIter, s.randSpecPct, s.randSpecRes, s.randParetoH, s.randZipfExp)
	return err
}

// setupRun checks the options of a run, a native test's or a script's.
func (s *suite) setupRun() error {
	if s.percentile < 0 || s.percentile > 100 {
		return fmt.Errorf("invalid --percentile=%g: must be in [0, 100]", s.percentile)
	}
	s.pcts = nil
	for _, p := range s.percentiles {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v <= 0 || v > 100 {
			return fmt.Errorf("invalid --percentiles item %q: numbers in (0, 100], e.g. 50,95,99,99.9", p)
		}
		s.pcts = append(s.pcts, v)
	}
	s.ro.Checkpoints = nil
	for _, c := range s.checkpoints {
		v, err := strconv.ParseFloat(c, 64)
		if err != nil || v <= 0 {
			return fmt.Errorf("invalid --report-checkpoints item %q: seconds, e.g. 10,20", c)
		}
		s.ro.Checkpoints = append(s.ro.Checkpoints, time.Duration(v*float64(time.Second)))
	}
	sort.Slice(s.ro.Checkpoints, func(i, j int) bool { return s.ro.Checkpoints[i] < s.ro.Checkpoints[j] })
	if s.ro.Events < 0 || s.ro.Rate < 0 {
		return errors.New("--events and --rate must not be negative")
	}
	if s.ro.Time == 0 && s.ro.Events == 0 {
		return errors.New("--time=0 and --events=0 would run forever: set one of them")
	}
	return nil
}

func (s *suite) Name() string             { return "sysbench/" + s.kind.name() }
func (s *suite) Dataset() dataset.Dataset { return s.kind.dataset() }
func (s *suite) Sizes() map[string]string { return s.kind.sizes() }

// Metric: sysbench reports queries per second; latency is the event's.
func (s *suite) Metric() result.Metric { return result.QPS }

// Hooks are the test's, with sysbench's command line: every kind of test
// has it, before its kind is known.
func (s *suite) Hooks() workload.Hooks {
	h := s.kind.hooks()
	h.Peer.Declare, h.Peer.Front, h.Peer.Help, h.Peer.FlagError = s.Declare, s.Front, s.Help, s.FlagError
	return h
}

// nativeDataset is the sysbench tables of test t at the suite's options.
func (s *suite) nativeDataset(t *Test) dataset.Dataset {
	return dataset.Dataset{Workload: "sysbench", Tables: t.Tables(&s.o, s.dist), Meta: map[string]string{
		"tables": strconv.Itoa(s.o.Tables), "table_size": strconv.FormatInt(s.o.TableSize, 10), "rand_type": s.randType,
		"auto_inc": strconv.FormatBool(s.o.AutoInc), "secondary": strconv.FormatBool(s.o.Secondary),
		"create_secondary": strconv.FormatBool(s.o.CreateSecondary), "storage_engine": s.o.StorageEngine}}
}

// tableSizes are the dataset figures of the sysbench tables.
func (s *suite) tableSizes() map[string]string {
	return map[string]string{"tables": strconv.Itoa(s.o.Tables), "table_size": strconv.FormatInt(s.o.TableSize, 10)}
}

func (s *suite) NewRun(c workload.RunConfig) (workload.Run, error) {
	sr := &suiteRun{c: c, rep: &Report{W: c.Out, HookW: c.Stdout, Percentile: s.percentile, Percentiles: s.pcts,
		Histogram: s.histogram, Rate: c.Options.Rate > 0, DebugBlocks: s.debugBlocks(c.Traced)}, debug: s.debug, validate: s.validate}
	return s.kind.newRun(sr, c)
}

// debugBlocks are the final report's LOG_DEBUG blocks the options ask for
// (none below --verbosity=5); a traced run (--mysql-debug) reports at
// Messages.TraceLevel, as sysbench's driver raises it when it starts.
func (s *suite) debugBlocks(traced bool) DebugBlocks {
	level := s.level()
	if traced {
		level = max(level, messages.TraceLevel)
	}
	if level < 5 {
		return DebugBlocks{}
	}
	return DebugBlocks{DB: s.dbDebug, Threads: s.debug}
}

// suiteRun reports a run in sysbench's format: the run of a native test;
// a script's and a compiled-in test's wrap it.
type suiteRun struct {
	events interface {
		Ops() []string
		NewWorker(dc driver.Conn, th *worker.Thread) (worker.Worker, error)
	}
	c   workload.RunConfig
	rep *Report
	// debug and validate are --debug and --validate, said in the header.
	debug, validate bool
}

func (r *suiteRun) Ops() []string { return r.events.Ops() }
func (r *suiteRun) NewWorker(dc driver.Conn, th *worker.Thread) (worker.Worker, error) {
	return r.events.NewWorker(dc, th)
}

func (r *suiteRun) Header() { r.header(Header{}) }

// header prints sysbench's header with the run's options over h.
func (r *suiteRun) header(h Header) {
	ro := r.c.Options
	h.Tool, h.Threads, h.Rate, h.ReportInterval = r.c.Tool, r.c.Threads, ro.Rate, ro.ReportInterval
	h.Checkpoints, h.Seed, h.Warmup = ro.Checkpoints, ro.Seed, ro.Warmup
	h.Debug, h.Validate = r.debug, r.validate
	PrintHeader(r.c.Out, h)
}

func (r *suiteRun) Interval(iv measure.Interval) { r.rep.Interval(iv) }
func (r *suiteRun) Checkpoint(f measure.Final)   { r.rep.Checkpoint(f) }
func (r *suiteRun) Final(f *measure.Final) (map[string]float64, map[string]string) {
	r.rep.EndJSON()
	r.rep.Final(f)
	return nil, nil
}
