// Package workload is the workload contract: what a benchmark (sysbench's OLTP
// tests, TPC-C) gives the one prepare / run / check / cleanup / csv pipeline
// that cmd drives, and the registry the commands are made from. A workload
// is a package that calls Register; nothing else names it.
package workload

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/msglog"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/worker"
)

// Spec registers a workload: one command of oltpbench (`oltpbench NAME ...`)
// and of `oltpbench csv NAME`. A workload of its own fills the first group
// (the kv workload is the smallest example); Peer is for a workload that
// speaks as another tool does (sysbench's, BenchmarkSQL's).
type Spec struct {
	Name        string // the command, and how results name the workload (or its prefix)
	Short, Long string
	Use         string // usage line after the command name
	Args        int    // positional arguments before the command (sysbench's test)
	Example     string // a command line, for the message on a wrong argument count
	DefaultDB   string // --mysql-db default
	DefaultUser string // --mysql-user default ("": root, as MySQL's clients, go-tpc and BenchmarkSQL have it)
	Threads     string // --threads default
	ThreadsHelp string // --threads help
	// Retry lists the server errors a run rolls back, counts and redoes by
	// default (--mysql-ignore-errors); RetryHelp says what they are.
	Retry     []string
	RetryHelp string
	// CSVFlags are the workload's options that `csv NAME --help` shows: those
	// that shape the files.
	CSVFlags []string
	// RangeKeys are the dataset figures (Dataset.Meta keys, flags with '-'
	// for '_') that bound what a run reads (sysbench's tables and
	// table_size, TPC-C's warehouses): a run on less than the dataset's is
	// warned of; more is the workload's Validate to refuse.
	RangeKeys []string
	// Describe names one of the workload's results for reports: the title,
	// the rank among the workload's tests and the report layout. ok is
	// false for a name that is not this workload's. nil: the result's name
	// is its title.
	Describe func(resultName string) (d Description, ok bool)
	New      func() Workload
	// Base names a registered workload this one is built on (CH-benCHmark
	// on TPC-C): the fields left empty here are the base's.
	Base string
	// Upgrade gives a result file of format 1 written by this workload its
	// metric, reporting whether the file was one (result.Upgrade).
	Upgrade result.Upgrade

	// Peer is what a workload that is a drop-in for another tool declares.
	Peer Peer

	// Capacity, when set, gives the workload a search command: the most
	// units (TPC-C's warehouses) a server sustains while its runs pass.
	Capacity *Capacity

	// Clients, when set, is how a run is shared among client machines
	// (plan run --clients) beyond each client taking its share of the
	// threads and of a rate, which is all a workload without it needs.
	Clients *Clients
}

// Clients is how a workload's run is split among client machines and put
// back together.
type Clients struct {
	// Whole reports whether a run with these options is one whole that
	// cannot be split (TPC-H's power test runs alone before its streams):
	// client 0 runs it with all its threads, the others sit the cell out.
	Whole func(args []string) bool
	// Share is the options a client's share adds to its command line: it
	// runs threads first to first+n-1 of all (from 0). The merged result
	// keeps none of them.
	Share func(first, n, all int) []string
	// Figures are the merged run's figures from its parts', each client's
	// own (Result.Figures and NotApplicable).
	Figures func(parts []*result.Result) (map[string]float64, map[string]string)
}

// Capacity is how `oltpbench NAME search` probes a workload: runs on the
// first N units of the loaded dataset, ThreadsPer threads a unit, each
// judged by Verdict.
type Capacity struct {
	Unit       string // what is counted, plural: "warehouses"
	Size       string // the option of the loaded size: "warehouses"
	Active     string // the option that runs on the first N units: "active-warehouses"
	ThreadsPer int    // threads a unit: 10 terminals a warehouse
	// Requires is an option the search needs set (not off, not 0), and
	// RequiresWhy the line that says so.
	Requires, RequiresWhy string
	// Verdict judges a probe's result: passed, and why in a few words
	// (the figures that decided).
	Verdict func(r *result.Result) (pass bool, why string)
}

// Peer is how a workload speaks as another tool does: its option and
// command names, its output styles, its words as a run goes and when it
// stops. A workload of its own leaves it empty and gets oltpbench's.
type Peer struct {
	Aliases map[string]string // option aliases (sysbench's deprecated names, BenchmarkSQL's)
	// CommandAliases are other names of its commands (sysbench's warmup for
	// prewarm).
	CommandAliases map[string]string
	// Outputs are --output styles of the run report beyond text and json
	// (a peer tool's end-of-run lines); RunConfig.Output says which ran.
	Outputs []string
	// RateQueue is how many scheduled events wait in a --rate run before one
	// that cannot keep up stops, and QueueFull that stop in the peer tool's
	// words (sysbench's event queue of 131,071 and its FATAL line); 0 and ""
	// take the runner's.
	RateQueue int
	QueueFull string
	// InitTimeout is the peer tool's words when the threads did not start
	// within RunOptions.InitTimeout, with a %d for its seconds ("" for
	// oltpbench's own).
	InitTimeout string
	// Messages are what the peer tool says as a run's threads live, each
	// at its verbosity (Setup.Verbosity) and up.
	Messages RunMessages
	// Output: the workload's output is a peer tool's, line for line
	// (sysbench's): oltpbench's own notes about a run (client-bound) go to
	// a person only, as a Message's hint does.
	Output bool
	// Rewrite, if set, reads the command line after the workload's name as
	// the peer tool reads it before parsing (sysbench's deprecated
	// --test=PATH names the test) and prints the peer's warnings about it.
	Rewrite func(args []string, stdout, stderr io.Writer) []string
}

// Description is how reports present a workload's results.
type Description struct {
	Title string
	Rank  int
	// Compact: the markdown report is one table of throughput by version and
	// threads (as TiDB's TPC-C reports), without latency tables per version.
	Compact bool
	// Details: reports also compare the result's figures beside the
	// headline (QphH) and each operation's latency (CH's 22 queries).
	Details bool
}

// Workload is one benchmark bound to its options.
type Workload interface {
	// Flags declares the workload's own options on fs and binds the run
	// options it offers to ro.
	Flags(fs *pflag.FlagSet, ro *RunOptions)
	// Setup validates the options once parsed. args are the positional
	// arguments before the command (sysbench's test); s.Threads may be
	// changed when --threads was not given.
	Setup(s *Setup) error
	// Name is how results name the workload: "tpcc", "sysbench/oltp_read_write".
	Name() string
	// Dataset is what prepare loads (and csv writes).
	Dataset() dataset.Dataset
	// Sizes are the dataset figures a run records even when the data was
	// loaded by another tool.
	Sizes() map[string]string
	Metric() result.Metric
	Hooks() Hooks
	NewRun(c RunConfig) (Run, error)
}

// Setup is what a workload sees of the command line once it is parsed.
type Setup struct {
	Command    string
	Args       []string
	Threads    int
	ThreadsSet bool   // --threads was given
	Seed       uint64 // the dataset's seed (--seed)
	// Verbosity selects what is printed, as sysbench's --verbosity: 3 (the
	// default) reports and banners, 4 and up also the loader's own lines;
	// table lines and errors always.
	Verbosity int
}

// Said is a message printed at a verbosity (Setup.Verbosity) and up
// through the command's message log, which counts repeats; the zero Said
// is never printed.
type Said struct {
	Text  string // a whole message with its line end; a thread's has %d for its number
	Level int
}

// RunMessages are what a peer tool says as a run goes: its helpers
// starting (the --rate scheduler, the interval and checkpoint reporters),
// each main thread starting (before it connects), ready (its first worker
// made) and stopping at the time or the event limit, all of them ready,
// and the threads done, before the final report.
type RunMessages struct {
	RateStarted, ReportsStarted, CheckpointsStarted   Said
	ThreadStarted, ThreadReady, TimeLimit, EventLimit Said
	AllReady, Done                                    Said
	// TraceLevel is the verbosity from --mysql-debug's first traced call
	// on (sysbench's driver sets LOG_DEBUG as it starts, after its first
	// thread said it started); 0 leaves it.
	TraceLevel int
}

// Hooks are the optional steps a workload adds to the pipeline; a nil
// field is a step the workload does not have. Peer holds what only a
// drop-in for another tool needs.
type Hooks struct {
	// Validate checks before a run or check that the dataset is on the server.
	Validate func(ctx context.Context, db *sql.DB, schema string) error
	// Restore puts the dataset back as loaded before a run or check, once
	// Validate found it (TPC-H's orders its refresh functions changed). Its
	// length is the dataset's: it runs watched by a ping beside it, with no
	// bound of its own, where Validate's reads have the checks' bound.
	Restore func(ctx context.Context, db *sql.DB, schema string) error
	// Check is the `check` command: consistency conditions, printed to w.
	Check func(ctx context.Context, db *sql.DB, threads int, w io.Writer) error
	// Prewarm is the `prewarm` command: reads the dataset into the server's caches.
	Prewarm func(ctx context.Context, pool *conn.Pool, threads int, w io.Writer) error
	// AfterLoad runs once prepare has loaded the dataset (TiFlash replicas).
	AfterLoad func(ctx context.Context, db *sql.DB, w io.Writer) error
	// ExactRows are the tables' row counts the workload can give exactly
	// and cheaply (TPC-C's orders from its district counters); the others
	// are the server's estimates.
	ExactRows func(ctx context.Context, db *sql.DB) map[string]int64
	// Preflight returns the workload's own warnings about a run before it
	// starts (a setting of the server's that makes it measure something
	// else), given the server's version, its variables and the threads.
	Preflight func(server Server, threads int) []string
	// Extra declares threads of a second kind beside the level's
	// --threads (CH-benCHmark's analytical streams), from the run's
	// connection options; the run gets them in RunConfig.Extra.
	Extra func(co conn.Options) (ExtraThreads, error)

	// Peer is what a drop-in for another tool (sysbench) adds.
	Peer PeerHooks
}

// LoadFigures are a load's figures as the loader measured them: its time
// and each unit's rows and time (a unit is one transaction: a LOAD DATA or
// the INSERTs of its rows).
type LoadFigures struct {
	Took  time.Duration
	Units []LoadUnit
	Done  bool // the load's end, not an interval
}

// LoadUnit is one unit of a load.
type LoadUnit struct {
	Rows int64
	Took time.Duration
}

// PeerHooks are the steps of a workload that is a drop-in for another
// tool: its command line, its own commands and connections, its lines as
// a load and a cleanup go.
type PeerHooks struct {
	// BeforeLoad is printed after the banner, before a load starts.
	BeforeLoad func(w io.Writer)
	// Loaded, when set, prints the peer's lines from a load's figures so
	// far, every report interval (RunOptions.ReportInterval) and once it
	// is done (l.Done: go-ycsb's INSERT figures); the loader's own lines
	// then go to a person only, as with TableMessages.
	Loaded func(w io.Writer, l LoadFigures)
	// TableMessages: the loader prints a line per table and phase
	// (sysbench's "Creating table 'sbtest1'...").
	TableMessages bool
	// Dropping is printed before cleanup drops each table; without it
	// cleanup prints one line at the end.
	Dropping func(w io.Writer, table string)
	// OwnConnections: the run's threads open the connections they need,
	// when they ask (a sysbench script's connect()), from RunConfig.Dialer;
	// the run connects to nothing before it starts and its workers are
	// given no connection, so a script that sends no SQL needs no server.
	OwnConnections bool
	// Commands are commands of the workload's own (a script's custom
	// commands), beyond prepare, prewarm, run, check and cleanup.
	Commands []string
	// Command, when set, runs a command itself in place of the pipeline (a
	// script's prepare, cleanup and custom commands); handled false leaves
	// the command to the pipeline.
	Command func(ctx context.Context, name string, co conn.Options, threads int, out io.Writer) (handled bool, err error)
	// Connected, with Command, says whether the command connected to the
	// server: a cleanup that did not (a script's cleanup that sends no
	// SQL) leaves the dataset record alone and needs no server.
	Connected func() bool
	// Declare sees the arguments after the workload's name before they are
	// parsed and adds the options they call for to fs (a script declares
	// its own); an error is kept for Setup to report.
	Declare func(args []string, fs *pflag.FlagSet)
	// Front runs after the options are parsed and before the pipeline
	// (--version, banners, the test and command checks); done reports
	// that it answered the command line itself.
	Front func(inv Invocation, args []string, fs *pflag.FlagSet, out io.Writer) (done bool, err error)
	// Help is the workload's own --help layout.
	Help func(w io.Writer, fs *pflag.FlagSet)
	// FlagError words errors of option parsing (inv.Line as given, out for
	// what comes before the error).
	FlagError func(err error, inv Invocation, out io.Writer) error
}

// Server is what a preflight check knows of the server.
type Server struct {
	Version   string
	TiDB      bool
	Variables map[string]string // @@name -> value, of those read (max_prepared_stmt_count, max_connections)
}

// ExtraThreads are N threads beside the level's, with IDs from the level's
// count up, on Conn (the run's connection options, or others: another
// endpoint, other session variables; Own says they differ). They are not
// paced by --rate nor counted by --events, and stop when the others end.
type ExtraThreads struct {
	N    int
	Conn conn.Options
	Own  bool // Conn is not the run's: the pipeline opens a pool for them
}

// RunConfig is what a run is made from.
type RunConfig struct {
	Tool    string // the tool's name and version, for the report's header
	Threads int
	Seed    uint64            // the run's seed, never 0
	Record  map[string]string // the dataset record found on the server (may be empty)
	Options *RunOptions
	Out     io.Writer // the text report
	Output  string    // --output: text, json, or one of Spec.Peer.Outputs
	// Stdout is the command's output at any --verbosity: what a script
	// prints itself; Log is the same output as the message log that
	// counts repeats (a peer tool's logger's messages).
	Stdout io.Writer
	Log    *msglog.Log
	// Traced: the run's client calls are traced (--mysql-debug), from
	// which a peer tool reports at RunMessages.TraceLevel.
	Traced bool
	// Dialer opens connections one by one, for a workload whose threads
	// open their own (Hooks.Peer.OwnConnections).
	Dialer conn.Dialer
	// Extra are the threads Hooks.Extra declared for this run.
	Extra ExtraThreads
	// Measured closes when the measured window starts: the warm-up's end,
	// or the run's start without one. A run that is a fixed list of steps
	// (TPC-H's tests) holds them until then, so that none is spent in a
	// warm-up (a plan on several clients warms every part up until one
	// instant). nil: no wait.
	Measured <-chan struct{}
}

// Run makes the workers of one run and reports it as text.
type Run interface {
	Ops() []string // measured operations, in histogram order
	NewWorker(dc driver.Conn, t *worker.Thread) (worker.Worker, error)
	// Header is printed before the run starts.
	Header()
	measure.Reporter
	// Final prints the end-of-run report and returns the workload's own
	// figures for the result file (tpmTotal, efficiency), and those that do
	// not apply to this run, with why.
	Final(f *measure.Final) (figures map[string]float64, notApplicable map[string]string)
}

// Counters is implemented by a Run that keeps counts of its own (TPC-C's
// audit: rollbacks, remote lines, errors per transaction); live metrics
// read them at any time from any goroutine, so they must be atomic.
type Counters interface {
	Counters() map[string]int64
}

// Invocation is the command that runs a workload, built once by cmd and
// passed down: the tool's name and version for banners and results, and
// the command line as given (storage keys taken out) for messages that
// quote it.
type Invocation struct {
	Tool string // "oltpbench 1.2.3"
	Line []string
}

// ToolName is the tool's name and version, "oltpbench" when not given.
func (i Invocation) ToolName() string {
	if i.Tool == "" {
		return "oltpbench"
	}
	return i.Tool
}

var specs = map[string]Spec{}

// Register adds a workload; it panics on a duplicate name (a programming error).
func Register(s Spec) {
	if _, dup := specs[s.Name]; dup {
		panic("workload: " + s.Name + " registered twice")
	}
	specs[s.Name] = s
}

// All returns the registered workloads by name.
func All() []Spec {
	var out []Spec
	for _, s := range specs {
		out = append(out, resolve(s))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Upgrade gives a result file of format 1 its metric through the
// Spec.Upgrade of the workloads registered (result.ReadWith).
func Upgrade(r *result.Result) bool {
	for _, s := range All() {
		if s.Upgrade != nil && s.Upgrade(r) {
			return true
		}
	}
	return false
}

// Lookup returns the workload registered under name.
func Lookup(name string) (Spec, bool) {
	s, ok := specs[name]
	return resolve(s), ok
}

// resolve fills the fields a workload built on another left empty with
// its base's; registration order does not matter.
func resolve(s Spec) Spec {
	b, ok := specs[s.Base]
	if s.Base == "" || !ok {
		return s
	}
	b = resolve(b)
	if s.DefaultDB == "" {
		s.DefaultDB = b.DefaultDB
	}
	if s.Threads == "" {
		s.Threads, s.ThreadsHelp = b.Threads, b.ThreadsHelp
	}
	if s.Peer.Aliases == nil {
		s.Peer.Aliases = b.Peer.Aliases
	}
	if s.Retry == nil {
		s.Retry, s.RetryHelp = b.Retry, b.RetryHelp
	}
	if s.CSVFlags == nil {
		s.CSVFlags = b.CSVFlags
	}
	if s.Peer.Outputs == nil {
		s.Peer.Outputs = b.Peer.Outputs
	}
	if s.RangeKeys == nil {
		s.RangeKeys = b.RangeKeys
	}
	return s
}

// Describe names a result's workload for reports; unknown names are their own title.
func Describe(resultName string) Description {
	for _, s := range All() {
		if s.Describe == nil {
			continue
		}
		if d, ok := s.Describe(resultName); ok {
			return d
		}
	}
	return Description{Title: resultName, Rank: 1 << 20}
}

// OptionFile is implemented by a workload that reads options from a file in
// a peer tool's format (BenchmarkSQL's props): before Setup it sets the
// flags the command line left unset, and names on warn, once, what it does
// not implement.
type OptionFile interface {
	ApplyOptions(command string, fs *pflag.FlagSet, warn io.Writer) error
}

// Message is an error printed as it is: a peer tool's own wording (sysbench's
// "FATAL: ..."), so that scripts matching it keep working, and an optional
// hint line of oltpbench's.
type Message struct {
	Text string
	Hint string
}

func (m *Message) Error() string {
	if m.Hint == "" {
		return m.Text
	}
	return m.Text + "\n" + m.Hint
}

// OneLine is an error as one line: a Message in another tool's words
// (sysbench's FATAL line and oltpbench's hint) keeps the hint.
func OneLine(err error) error {
	var m *Message
	if errors.As(err, &m) {
		if m.Hint != "" {
			return errors.New(strings.TrimPrefix(m.Hint, "oltpbench: "))
		}
		return errors.New(strings.ReplaceAll(m.Text, "\n", "; "))
	}
	return err
}
