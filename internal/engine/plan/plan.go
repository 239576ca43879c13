// Package plan reads a qualification plan (TOML): one dataset, its warm-up,
// and steps of thread levels x repeats, and expands it into cells, each one
// run of one command line with one result file. It knows no workload: the
// caller says which exist and how many positional arguments each takes.
package plan

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/oltpbench/oltpbench/internal/engine/cells"
	"github.com/oltpbench/oltpbench/internal/engine/events"
	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// Plan is a whole qualification, as written.
type Plan struct {
	Name    string  `toml:"name"`
	Scale   float64 `toml:"scale"` // durations and Dataset.Scaled sizes are multiplied by it
	Dataset Dataset `toml:"dataset"`
	// More are the datasets of the other workloads the steps run, one
	// each, every one in a database of its own ([[datasets]]).
	More   []Dataset `toml:"datasets"`
	Warmup Warmup    `toml:"warmup"`
	Steps  []Step    `toml:"step"`
	// Versions, when set, runs every cell on each version (versions.go).
	Versions *Versions `toml:"versions"`

	path  string
	lines keyLines
}

// Dataset is what the steps run on: prepared when missing, verified when present.
type Dataset struct {
	Workload string         `toml:"workload"`
	Test     string         `toml:"test"` // the positional argument prepare takes, if the workload has one
	Options  map[string]any `toml:"options"`
	Scaled   []string       `toml:"scaled"` // integer options multiplied by the plan's scale
}

// Warmup runs before the first cell of every `plan run`.
type Warmup struct {
	Prewarm bool `toml:"prewarm"`
	Analyze bool `toml:"analyze"`
}

// Step is a thread sweep with repeats, or a p95-limit search.
type Step struct {
	Name     string `toml:"name"`
	Workload string `toml:"workload"`
	Test     string `toml:"test"`
	Threads  []int  `toml:"threads"`
	// ThreadSchedule runs each of the step's runs on a thread schedule
	// (16@60s,32@60s; --threads within one run) instead of Threads.
	ThreadSchedule string         `toml:"thread_schedule"`
	Time           string         `toml:"time"`
	Warmup         string         `toml:"warmup"`
	Cooldown       string         `toml:"cooldown"`
	Repeats        int            `toml:"repeats"`
	Options        map[string]any `toml:"options"`
	// P95Limit makes the step a search of Threads = [lo, hi] for the
	// highest throughput whose p95 stays within it, in at most SearchSteps runs.
	P95Limit    string `toml:"p95_limit"`
	SearchSteps int    `toml:"search_steps"`
	// Search makes the step a capacity search of its workload (TPC-C:
	// search = "warehouses", the most it sustains): one cell whose probes
	// the workload's search command runs.
	Search string `toml:"search"`
	// Headroom runs the step once below the limit: a share (0.7) of the
	// last search step's result before it, or a number of units (24).
	Headroom float64 `toml:"headroom"`
	// Reset restores the dataset before the step's runs (see reset.go).
	Reset        string `toml:"reset"`         // "" (none), reload, reimport or command
	ResetEvery   string `toml:"reset_every"`   // cell (the default: before every run) or step
	ResetCommand string `toml:"reset_command"` // command: run by sh -c in the plan's folder
	ResetFrom    string `toml:"reset_from"`    // reimport: the dataset's CSV files, a folder or s3://
	ResetTimeout string `toml:"reset_timeout"` // a reset that takes longer fails its cell
	// Events run during each of the step's runs (--event).
	Events []StepEvent `toml:"events"`
}

// StepEvent is an event of a step's runs: at a time after the measured
// start, sql or a command, with a timeout and on_error (internal/engine/events).
type StepEvent struct {
	Name    string `toml:"name"`
	At      string `toml:"at"`
	SQL     string `toml:"sql"`
	Command string `toml:"command"`
	Timeout string `toml:"timeout"`
	OnError string `toml:"on_error"`
}

// spec is the event as --event takes it.
func (e StepEvent) spec() string {
	var parts []string
	for _, kv := range [][2]string{{"name", e.Name}, {"at", e.At}, {"timeout", e.Timeout}, {"on_error", e.OnError}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"="+kv[1])
		}
	}
	if e.SQL != "" {
		parts = append(parts, "sql="+e.SQL)
	}
	if e.Command != "" {
		parts = append(parts, "command="+e.Command)
	}
	return strings.Join(parts, ";")
}

// Workloads says which workloads exist and how many positional arguments
// (a test name) each takes.
type Workloads map[string]int

// Error is a bad plan: the file, the line and what is wrong.
type Error struct {
	Path string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Check checks a workload command line (workload [test] options) for a
// command (run, prepare, prewarm) as the workload would, without a server;
// "reimport" asks whether the dataset is the loader's (it has CSV files),
// "search:KIND" whether the workload searches KIND (a step's search).
type Check func(args []string, command string) error

// Load reads a plan and checks every step's command line with check, so
// that a bad option is named, with its line, before hours of running; it
// returns the plan's cells.
func Load(path string, scale float64, known Workloads, timing Timing, check Check) (*Plan, []*cells.Cell, error) {
	p, err := Read(path, scale, known)
	if err != nil {
		return nil, nil, err
	}
	// A step's own options, then the dataset's, then both together, so
	// that an error names the right part of the plan.
	for i, st := range p.Steps {
		if err := check(p.StepArgs(i), "run"); err != nil {
			return nil, nil, p.ErrAt(fmt.Sprintf("step.%d.options", i), fmt.Errorf("step %q: %w", st.Name, err))
		}
	}
	for i, ds := range p.Datasets() {
		key, what := datasetKey(i)
		if err := check(p.ArgsOf(ds), "prepare"); err != nil {
			return nil, nil, p.ErrAt(key+".options", fmt.Errorf("%s: %w", what, err))
		}
		if p.Warmup.Prewarm && check(p.ArgsOf(ds), "prewarm") != nil {
			return nil, nil, p.ErrAt("warmup.prewarm", fmt.Errorf("%s has no prewarm: remove prewarm", ds.Workload))
		}
	}
	for i, st := range p.Steps {
		if st.Reset == ResetReimport && check(p.DatasetArgs(true), "reimport") != nil {
			return nil, nil, p.errAt(stepKey(i, "reset"), "step %q: reset = \"reimport\" loads the CSV files of a dataset the loader makes, and this one is made by its workload's own prepare: use reset = \"reload\" or \"command\"", st.Name)
		}
	}
	series := p.Series(timing)
	for i, s := range series {
		command := "run"
		if s.Capacity != "" {
			command = "search:" + p.Steps[i].Search // the workload says what it searches
		}
		if err := check(cells.Expand(series[i : i+1])[0].Args(), command); err != nil {
			return nil, nil, p.ErrAt(fmt.Sprintf("step.%d.options", i), fmt.Errorf("step %q with the dataset's options: %w", s.Step, err))
		}
	}
	return p, cells.Expand(series), nil
}

// Read parses and checks a plan file; scale, when not 0, replaces the plan's.
func Read(path string, scale float64, known Workloads) (*Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the plan: %w", err)
	}
	return Parse(path, b, scale, known)
}

// Parse is Read on the file's bytes.
func Parse(path string, b []byte, scale float64, known Workloads) (*Plan, error) {
	p := &Plan{path: path}
	d := toml.NewDecoder(bytes.NewReader(b)).DisallowUnknownFields()
	if err := d.Decode(p); err != nil {
		var sm *toml.StrictMissingError
		if errors.As(err, &sm) && len(sm.Errors) > 0 {
			e := sm.Errors[0]
			line, _ := e.Position()
			return nil, &Error{path, line, fmt.Sprintf("unknown key %q: see the example plans in deploy/plans/", strings.Join(e.Key(), "."))}
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ := de.Position()
			return nil, &Error{path, line, strings.TrimPrefix(de.Error(), "toml: ")}
		}
		return nil, &Error{path, 0, err.Error()}
	}
	p.lines = scanKeyLines(b)
	if scale != 0 {
		p.Scale = scale
	}
	if _, set := p.lines["scale"]; p.Scale == 0 && !set {
		p.Scale = 1
	}
	if err := p.check(known); err != nil {
		return nil, err
	}
	return p, nil
}

// errAt is a plan error at the line of key (a dotted path; "step.2.threads").
func (p *Plan) errAt(key string, format string, args ...any) error {
	return &Error{p.path, p.lines.line(key), fmt.Sprintf(format, args...)}
}

// ErrAt is errAt for callers that check the plan further (a step's options
// against its workload).
func (p *Plan) ErrAt(key string, err error) error { return p.errAt(key, "%v", err) }

// Path is the plan file's path.
func (p *Plan) Path() string { return p.path }

// resolve makes a test that names a file beside the plan (a script path
// such as "scripts/my_test.lua") absolute, so the plan runs the same file
// from any folder; any other test stays as written.
func (p *Plan) resolve(test string) string {
	if test == "" || filepath.IsAbs(test) || !strings.ContainsAny(test, "/.") {
		return test
	}
	f := filepath.Join(filepath.Dir(p.path), test)
	if st, err := os.Stat(f); err != nil || !st.Mode().IsRegular() {
		return test
	}
	if abs, err := filepath.Abs(f); err == nil {
		return abs
	}
	return f
}

var stepName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// check checks the plan and fills in what a step leaves to the plan
// (workload, name, repeats, search steps): the dataset, then each step.
func (p *Plan) check(known Workloads) error {
	if p.Scale <= 0 || math.IsNaN(p.Scale) || math.IsInf(p.Scale, 0) {
		return p.errAt("scale", "scale must be above 0 (1 runs the plan as written, 0.01 a hundredth of its sizes and times)")
	}
	if err := p.checkDataset(known); err != nil {
		return err
	}
	if len(p.Steps) == 0 {
		return p.errAt("", "the plan has no [[step]]")
	}
	if err := p.checkVersions(); err != nil {
		return err
	}
	seen := map[string]int{}
	for i := range p.Steps {
		for _, check := range []func(int, Workloads, map[string]int) error{p.checkStepName, p.checkStepTiming, p.checkStepSearch, p.checkStepReset, p.checkStepEvents} {
			if err := check(i, known, seen); err != nil {
				return err
			}
		}
		if err := p.checkOptions(stepKey(i, "options"), p.Steps[i].Options); err != nil {
			return err
		}
	}
	return nil
}

func stepKey(i int, k string) string { return fmt.Sprintf("step.%d.%s", i, k) }

// checkDataset checks [dataset] and [[datasets]]: known workloads, one
// dataset each, scaled options that are integers; several datasets name
// their databases (mysql-db), each its own.
func (p *Plan) checkDataset(known Workloads) error {
	if p.Dataset.Workload == "" {
		return p.errAt("dataset", "the plan needs [dataset] with workload = one of %s", names(known))
	}
	seen, dbs := map[string]bool{}, map[string]bool{}
	for i, ds := range p.Datasets() {
		key, what := datasetKey(i)
		if ds.Workload == "" {
			return p.errAt(key, "%s needs workload = one of %s", what, names(known))
		}
		if _, ok := known[ds.Workload]; !ok {
			return p.errAt(key+".workload", "unknown workload %q in %s: use one of %s", ds.Workload, what, names(known))
		}
		if seen[ds.Workload] {
			return p.errAt(key+".workload", "a second dataset of %s in %s: a plan has one dataset a workload", ds.Workload, what)
		}
		seen[ds.Workload] = true
	}
	for i, ds := range p.Datasets() {
		key, what := datasetKey(i)
		for _, k := range ds.Scaled {
			v, ok := ds.Options[k]
			if !ok {
				return p.errAt(key+".scaled", "scaled names %q, which is not in %s options", k, what)
			}
			if _, ok := v.(int64); !ok {
				return p.errAt(key+".options."+k, "%s is scaled, so it must be an integer", k)
			}
		}
		if err := p.checkOptions(key+".options", ds.Options); err != nil {
			return err
		}
		if len(p.More) > 0 {
			db, _ := ds.Options["mysql-db"].(string)
			if db == "" {
				return p.errAt(key, "%s: a plan of several datasets keeps each in a database of its own: give options = { mysql-db = \"...\" }", what)
			}
			if dbs[db] {
				return p.errAt(key+".options.mysql-db", "%s: database %q is another dataset's: give each its own", what, db)
			}
			dbs[db] = true
		}
		ds.Test = p.resolve(ds.Test)
	}
	return nil
}

// Datasets are [dataset], then [[datasets]].
func (p *Plan) Datasets() []*Dataset {
	out := []*Dataset{&p.Dataset}
	for i := range p.More {
		out = append(out, &p.More[i])
	}
	return out
}

// datasetKey is dataset i's key in the plan file and its name in messages.
func datasetKey(i int) (key, what string) {
	if i == 0 {
		return "dataset", "[dataset]"
	}
	return fmt.Sprintf("datasets.%d", i-1), fmt.Sprintf("[[datasets]] %d", i)
}

// datasetOf is the dataset a workload's steps run on (nil: none).
func (p *Plan) datasetOf(workload string) *Dataset {
	for _, ds := range p.Datasets() {
		if ds.Workload == workload {
			return ds
		}
	}
	return nil
}

// checkStepEvents checks a step's events as --event reads them: a time, sql
// or a command (not both), and what they take.
func (p *Plan) checkStepEvents(i int, _ Workloads, _ map[string]int) error {
	for j, e := range p.Steps[i].Events {
		at := fmt.Sprintf("step.%d.events.%d", i, j)
		if e.SQL != "" && e.Command != "" {
			return p.errAt(at, "event %d of step %d has both sql and command: one of them", j+1, i+1)
		}
		if strings.Contains(e.Name, ";") {
			return p.errAt(at+".name", "event name %q: no ';' in it", e.Name)
		}
		if _, err := events.Parse(e.spec()); err != nil {
			return p.errAt(at, "event %d of step %d: %s", j+1, i+1, strings.TrimPrefix(err.Error(), "invalid --event="+e.spec()+": "))
		}
	}
	return nil
}

// checkStepName checks a step's workload and test, and names it (the
// result files' names): unique, from its test or workload when not given.
func (p *Plan) checkStepName(i int, known Workloads, seen map[string]int) error {
	s, ds := &p.Steps[i], &p.Dataset
	at := func(k string) string { return stepKey(i, k) }
	if s.Workload == "" {
		s.Workload = ds.Workload
	}
	if _, ok := known[s.Workload]; !ok {
		return p.errAt(at("workload"), "unknown workload %q: use one of %s", s.Workload, names(known))
	}
	if p.datasetOf(s.Workload) == nil {
		return p.errAt(at("workload"), "step %d runs %s, and the plan has no dataset of %s: add [[datasets]] with workload = %q (and mysql-db = a database of its own)", i+1, s.Workload, s.Workload, s.Workload)
	}
	nargs := known[s.Workload]
	if nargs > 0 && s.Test == "" {
		return p.errAt(fmt.Sprintf("step.%d", i), "step %d needs test = the %s test to run", i+1, s.Workload)
	}
	if nargs == 0 && s.Test != "" {
		return p.errAt(at("test"), "%s takes no test name: remove test", s.Workload)
	}
	if f := p.resolve(s.Test); f != s.Test || filepath.IsAbs(f) {
		s.Test = f
		if s.Name == "" { // a file's step is named by the file
			s.Name = strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		}
	}
	if s.Name == "" {
		s.Name = s.Test
		if s.Name == "" {
			s.Name = s.Workload
		}
	}
	if !stepName.MatchString(s.Name) {
		return p.errAt(at("name"), "step name %q: use letters, digits, '.', '_' and '-' (it names the result files)", s.Name)
	}
	if j, dup := seen[s.Name]; dup {
		return p.errAt(at("name"), "steps %d and %d are both named %q: give one a name = ...", j+1, i+1, s.Name)
	}
	seen[s.Name] = i
	return nil
}

// checkStepTiming checks a step's threads, durations and repeats.
func (p *Plan) checkStepTiming(i int, _ Workloads, _ map[string]int) error {
	s := &p.Steps[i]
	at := func(k string) string { return stepKey(i, k) }
	if err := p.checkThreadSchedule(i); err != nil {
		return err
	}
	if s.Headroom != 0 {
		switch {
		case s.Search != "" || len(s.Threads) > 0 || s.P95Limit != "":
			return p.errAt(at("headroom"), "step %q: headroom sets the run's level: remove threads, p95_limit and search", s.Name)
		case s.Headroom < 0 || s.Headroom >= 1 && s.Headroom != math.Trunc(s.Headroom):
			return p.errAt(at("headroom"), "step %q: headroom = %g: a share of the last search's result (0.7) or a whole number of units (24)", s.Name, s.Headroom)
		case s.Headroom < 1 && p.searchBefore(i) == "":
			return p.errAt(at("headroom"), "step %q: headroom = %g is a share of a search's result: put a step with search = ... before it, or give a number of units", s.Name, s.Headroom)
		case s.Repeats > 1:
			return p.errAt(at("repeats"), "step %q: a headroom step is one run: remove repeats", s.Name)
		}
		s.Threads = []int{1} // the headroom's own: Series leaves them out
	}
	if s.Search != "" {
		if len(s.Threads) > 0 || s.P95Limit != "" {
			return p.errAt(at("search"), "step %q: a search sets each probe's threads: remove threads and p95_limit", s.Name)
		}
		s.Threads = []int{1} // the search's own: Series leaves them out
	}
	if len(s.Threads) == 0 {
		return p.errAt(fmt.Sprintf("step.%d", i), "step %q needs threads = [...] or thread_schedule = \"16@60s,32@60s\"", s.Name)
	}
	for _, t := range s.Threads {
		if t < 1 {
			return p.errAt(at("threads"), "step %q: threads %d: every level must be at least 1", s.Name, t)
		}
	}
	for _, d := range []struct {
		key string
		v   string
	}{{"time", s.Time}, {"warmup", s.Warmup}, {"cooldown", s.Cooldown}} {
		if d.v == "" {
			continue
		}
		v, err := time.ParseDuration(d.v)
		if err != nil || v < 0 {
			return p.errAt(at(d.key), "step %q: %s = %q: a duration like 5m or 30s", s.Name, d.key, d.v)
		}
		if v%time.Second != 0 {
			// The cells' --time and --warmup-time are whole seconds.
			return p.errAt(at(d.key), "step %q: %s = %q: whole seconds, like %s", s.Name, d.key, d.v, max(v.Round(time.Second), time.Second))
		}
	}
	if s.Time == "" {
		return p.errAt(fmt.Sprintf("step.%d", i), "step %q needs time = a duration like 5m", s.Name)
	}
	if _, set := p.lines[at("repeats")]; s.Repeats == 0 && !set {
		s.Repeats = 1
	}
	if s.Repeats < 1 {
		return p.errAt(at("repeats"), "step %q: repeats must be at least 1", s.Name)
	}
	return nil
}

// checkThreadSchedule reads a step's thread_schedule into its one level,
// the schedule's most threads; its time is at least the schedule's length
// (the schedule's length when not given).
func (p *Plan) checkThreadSchedule(i int) error {
	s := &p.Steps[i]
	at := func(k string) string { return stepKey(i, k) }
	if s.ThreadSchedule == "" {
		return nil
	}
	if len(s.Threads) > 0 {
		return p.errAt(at("thread_schedule"), "step %q: threads or thread_schedule, not both", s.Name)
	}
	if s.P95Limit != "" {
		return p.errAt(at("thread_schedule"), "step %q: a p95_limit search needs threads = [lo, hi], not a thread_schedule", s.Name)
	}
	segs, err := cells.ThreadSegments(s.ThreadSchedule)
	if err != nil {
		return p.errAt(at("thread_schedule"), "step %q: thread_schedule = %s: %v (16@60s,32@60s or a ramp 8-64@5m)", s.Name, options.Shown(s.ThreadSchedule), err)
	}
	s.Threads = []int{cells.MostThreads(segs)}
	length := workload.ScheduleLength(segs)
	if s.Time == "" {
		s.Time = length.String()
	} else if d, err := time.ParseDuration(s.Time); err == nil && d < length {
		return p.errAt(at("time"), "step %q: time = %q ends before its thread_schedule (%s): give at least that, or leave time out", s.Name, s.Time, length)
	}
	return nil
}

// checkStepSearch checks a p95 search's limit, range and steps.
func (p *Plan) checkStepSearch(i int, _ Workloads, _ map[string]int) error {
	s := &p.Steps[i]
	at := func(k string) string { return stepKey(i, k) }
	if s.P95Limit == "" {
		if s.SearchSteps != 0 {
			return p.errAt(at("search_steps"), "step %q: search_steps applies to a p95_limit search", s.Name)
		}
		return nil
	}
	if v, err := time.ParseDuration(s.P95Limit); err != nil || v <= 0 {
		return p.errAt(at("p95_limit"), "step %q: p95_limit = %q: a duration like 105ms", s.Name, s.P95Limit)
	}
	if len(s.Threads) != 2 || s.Threads[0] > s.Threads[1] {
		return p.errAt(at("threads"), "step %q searches a range: threads = [lo, hi] with lo <= hi", s.Name)
	}
	if s.Repeats != 1 {
		return p.errAt(at("repeats"), "step %q: a p95 search runs each level once: remove repeats", s.Name)
	}
	if s.SearchSteps == 0 {
		s.SearchSteps = 10
	}
	if s.SearchSteps < 1 {
		return p.errAt(at("search_steps"), "step %q: search_steps must be at least 1", s.Name)
	}
	return nil
}

// reserved options are the plan's own: set by its keys, not by options.
var reserved = map[string]string{result.FlagThreads: "threads", result.FlagTime: "time", result.FlagResultFile: "",
	result.FlagResultDir: "", result.FlagRepeat: "repeats", result.FlagP95SLO: "p95_limit", result.FlagSLOSteps: "search_steps",
	result.FlagCooldown: "cooldown", result.FlagStartAt: "",
	result.FlagMetrics: "", result.FlagClientID: "", result.FlagEvent: "events"} // plan run's own: one endpoint for the whole plan

// Reserved says whether an option (its name without dashes) is the plan's
// to set, so neither a step's options nor the options for every command may.
func Reserved(name string) bool {
	_, ok := reserved[result.CanonicalFlag(name)]
	return ok
}

// ReservedArg is Reserved for a command-line argument (--name=value).
func ReservedArg(a string) bool {
	a = strings.TrimLeft(a, "-")
	if i := strings.IndexByte(a, '='); i >= 0 {
		a = a[:i]
	}
	return Reserved(a)
}

func (p *Plan) checkOptions(key string, opts map[string]any) error {
	for k, v := range opts {
		n := strings.ReplaceAll(k, "_", "-")
		if n == "mysql-password" || strings.Contains(n, "secret") {
			return p.errAt(key+"."+k, "option %s: keep secrets out of plans (results record the plan's options): use MYSQL_PWD or --mysql-password-file after --", k)
		}
		if use, ok := reserved[n]; ok {
			if use == "" {
				return p.errAt(key+"."+k, "option %s is the plan's to set: remove it", k)
			}
			return p.errAt(key+"."+k, "option %s: set it with the step's %s key", k, use)
		}
		switch v.(type) {
		case string, int64, float64, bool:
		case []any:
			for _, e := range v.([]any) {
				switch e.(type) {
				case string, int64, float64:
				default:
					return p.errAt(key+"."+k, "option %s: a list of numbers or strings", k)
				}
			}
		default:
			return p.errAt(key+"."+k, "option %s: a string, number, boolean or list", k)
		}
	}
	return nil
}

func names(known Workloads) string {
	var n []string
	for k := range known {
		n = append(n, k)
	}
	sort.Strings(n)
	return strings.Join(n, ", ")
}

// StepArgs are a step's workload, test and own options, without the
// dataset's: for checking the step apart from its dataset.
func (p *Plan) StepArgs(i int) []string {
	s := p.Steps[i]
	args := []string{s.Workload}
	if s.Test != "" {
		args = append(args, s.Test)
	}
	return append(args, optionArgs(s.Options, nil)...)
}

// DatasetArgs are [dataset]'s workload, its test (the first step's when
// it names none) and its options (scaled).
func (p *Plan) DatasetArgs(firstTest bool) []string {
	if !firstTest {
		return p.argsOf(&p.Dataset, false)
	}
	return p.ArgsOf(&p.Dataset)
}

// ArgsOf are a dataset's workload, its test (the first of its steps' when
// it names none) and its options (scaled): its prepare's command line.
func (p *Plan) ArgsOf(ds *Dataset) []string { return p.argsOf(ds, true) }

func (p *Plan) argsOf(ds *Dataset, firstTest bool) []string {
	args := []string{ds.Workload}
	test := ds.Test
	if test == "" && firstTest {
		for _, s := range p.Steps {
			if s.Workload == ds.Workload || s.Workload == "" && ds == &p.Dataset {
				test = s.Test
				break
			}
		}
	}
	if test != "" {
		args = append(args, test)
	}
	return append(args, p.datasetOptions(ds)...)
}

func (p *Plan) datasetOptions(ds *Dataset) []string {
	scaled := map[string]bool{}
	for _, k := range ds.Scaled {
		scaled[k] = true
	}
	return optionArgs(ds.Options, func(k string, v any) any {
		if n, ok := v.(int64); ok && scaled[k] {
			s := int64(math.Round(float64(n) * p.Scale))
			return max(s, 1)
		}
		return v
	})
}

func optionArgs(opts map[string]any, conv func(string, any) any) []string {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		v := opts[k]
		if conv != nil {
			v = conv(k, v)
		}
		out = append(out, "--"+k+"="+optionValue(v))
	}
	return out
}

func optionValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		s := make([]string, len(x))
		for i, e := range x {
			s[i] = optionValue(e)
		}
		return strings.Join(s, ",")
	}
	return fmt.Sprint(v)
}

// scaled multiplies a duration by the plan's scale, to whole seconds (at
// least 1 when the duration is not 0).
func (p *Plan) scaled(d string) time.Duration {
	if d == "" {
		return 0
	}
	v, _ := time.ParseDuration(d)
	return p.scale(v)
}

// scale is a duration times the plan's scale, in whole seconds, at least
// one (0 stays 0).
func (p *Plan) scale(v time.Duration) time.Duration {
	if v == 0 {
		return 0
	}
	s := time.Duration(math.Round(v.Seconds()*p.Scale)) * time.Second
	return max(s, time.Second)
}

// scaledAt is an event's at= under the plan's scale: as written at scale 1,
// so that the cells' keys keep the plan's own spelling.
func (p *Plan) scaledAt(at string) string {
	d, err := workload.ParseSeconds(at)
	if p.Scale == 1 || err != nil {
		return at
	}
	return p.scale(d).String()
}

// scaledRate is a step's option under the plan's scale: a rate schedule's
// durations scaled (rateFlag is the workload's rate option), anything else
// as written; at scale 1 the plan's own spelling.
func (p *Plan) scaledRate(rateFlag, k string, v any) any {
	x, ok := v.(string)
	if !ok || p.Scale == 1 || rateFlag == "" || result.CanonicalFlag(k) != rateFlag || !strings.Contains(x, "@") {
		return v
	}
	segs, err := workload.ParseSchedule(x)
	if err != nil {
		return v // the workload's own parser names it
	}
	return workload.FormatSchedule(p.scaleSegments(segs))
}

// scaleSegments scales a schedule's durations as the plan's (in place).
func (p *Plan) scaleSegments(segs []workload.Segment) []workload.Segment {
	for i := range segs {
		segs[i].Dur = p.scale(segs[i].Dur)
	}
	return segs
}

// schedule is a step's thread schedule with its durations scaled as the
// plan's ("" for none), and the run's time, which covers it.
func (p *Plan) schedule(s Step, run time.Duration) (string, time.Duration) {
	if s.ThreadSchedule == "" {
		return "", run
	}
	segs, _ := cells.ThreadSegments(s.ThreadSchedule) // checked as the plan was read
	segs = p.scaleSegments(segs)
	return workload.FormatSchedule(segs), max(run, workload.ScheduleLength(segs))
}

// Timing names the flags a workload binds to the run's time, warm-up and
// rate ("" for none).
type Timing func(workload string) (timeFlag, warmupFlag, rateFlag string)

// Series are the plan's steps as the executor runs them: each a thread
// sweep with repeats or a p95 search, whose runs are the workload's command
// line with the dataset's and the step's options, time and warm-up.
func (p *Plan) Series(timing Timing) []*cells.Series {
	var out []*cells.Series
	for _, s := range p.Steps {
		tf, wf, rf := timing(s.Workload)
		args := []string{s.Workload}
		if s.Test != "" {
			args = append(args, s.Test)
		}
		args = append(args, p.datasetOptions(p.datasetOf(s.Workload))...)
		args = append(args, optionArgs(s.Options, func(k string, v any) any { return p.scaledRate(rf, k, v) })...)
		for _, e := range s.Events {
			e.At = p.scaledAt(e.At)
			args = append(args, "--"+result.FlagEvent+"="+e.spec())
		}
		run, warm, cool := p.scaled(s.Time), p.scaled(s.Warmup), p.scaled(s.Cooldown)
		sched, run := p.schedule(s, run)
		args = append(args, fmt.Sprintf("--%s=%d", tf, int64(run.Seconds())))
		if warm > 0 {
			args = append(args, fmt.Sprintf("--%s=%d", wf, int64(warm.Seconds())))
		}
		se := &cells.Series{Plan: p.Name, Step: s.Name, Prefix: s.Name, Numbered: true, Threads: s.Threads, Schedule: sched,
			Repeats: s.Repeats, Run: run + warm, Cooldown: cool, Args: args, TimeFlag: tf, WarmupFlag: wf}
		if s.P95Limit != "" {
			se.Search = &cells.Search{Limit: s.P95Limit, Steps: s.SearchSteps, Folder: s.Name + "-p95search"}
		}
		if s.Search != "" {
			se.Capacity, se.Threads = s.Name+"-search", nil
		}
		if s.Headroom != 0 {
			h := &cells.Headroom{Share: s.Headroom}
			if s.Headroom >= 1 {
				h.Share, h.Units = 0, int(s.Headroom)
			} else {
				h.From = p.searchBefore(p.stepIndex(s.Name)) + "-search"
			}
			se.Headroom, se.Threads = h, nil
		}
		out = append(out, se)
	}
	return out
}

// searchBefore is the name of the last search step before step i ("" for none).
func (p *Plan) searchBefore(i int) string {
	for j := i - 1; j >= 0; j-- {
		if p.Steps[j].Search != "" {
			return p.Steps[j].Name
		}
	}
	return ""
}

func (p *Plan) stepIndex(name string) int {
	for i, s := range p.Steps {
		if s.Name == name {
			return i
		}
	}
	return len(p.Steps)
}

// WriteCopy keeps the plan beside its results, for the record.
func (p *Plan) WriteCopy(dir string) error {
	b, err := os.ReadFile(p.path)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "plan.toml"), b, 0o644)
}
