package plan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/oltpbench/oltpbench/internal/command"
	"github.com/oltpbench/oltpbench/internal/engine/cells"
	"github.com/oltpbench/oltpbench/internal/result"
)

// A step's reset restores the dataset before its runs, so that every cell
// (or every step) starts from the dataset as loaded, not one aged by the
// runs before it:
//
//   - reload drops the dataset and loads it again from the generator, with
//     the same seed, through the loader;
//   - reimport loads the dataset's CSV files (written once into reset_from,
//     a folder or s3://) with IMPORT INTO on TiDB, LOAD DATA elsewhere;
//   - command runs reset_command (a BR restore, a tiup or kubectl step) by
//     sh -c in the plan's folder, within reset_timeout.
//
// After it the dataset is verified (its record complete and the plan's, no
// run since its load, the exact counts as loaded) before anything is
// measured. A reset that fails fails its cell, and the same plan run
// command redoes it. reload and reimport are skipped when the dataset is
// already as loaded; a command always runs.
const (
	ResetReload   = "reload"
	ResetReimport = "reimport"
	ResetCommand  = "command"
)

// DefaultCommandTimeout bounds a reset command without reset_timeout.
const DefaultCommandTimeout = time.Hour

// checkStepReset checks a step's reset keys and fills in reset_every.
func (p *Plan) checkStepReset(i int, _ Workloads, _ map[string]int) error {
	s := &p.Steps[i]
	at := func(k string) string { return stepKey(i, k) }
	if s.Reset == "" {
		for _, k := range []struct{ key, v string }{{"reset_every", s.ResetEvery}, {"reset_command", s.ResetCommand},
			{"reset_from", s.ResetFrom}, {"reset_timeout", s.ResetTimeout}} {
			if k.v != "" {
				return p.errAt(at(k.key), "step %q: %s applies to a reset: add reset = \"reload\", \"reimport\" or \"command\"", s.Name, k.key)
			}
		}
		return nil
	}
	if s.Reset != ResetCommand && s.Workload != p.Dataset.Workload {
		return p.errAt(at("reset"), "step %q: reset = %q remakes [dataset] (%s), and the step runs %s: use reset = \"command\", or run it on [dataset]", s.Name, s.Reset, p.Dataset.Workload, s.Workload)
	}
	switch s.Reset {
	case ResetReload, ResetReimport, ResetCommand:
	default:
		return p.errAt(at("reset"), "step %q: reset = %q: use \"reload\", \"reimport\" or \"command\"", s.Name, s.Reset)
	}
	switch s.ResetEvery {
	case "":
		s.ResetEvery = "cell"
	case "cell", "step":
	default:
		return p.errAt(at("reset_every"), "step %q: reset_every = %q: use \"cell\" (before every run) or \"step\" (before the step's first)", s.Name, s.ResetEvery)
	}
	if err := p.checkResetKind(i); err != nil {
		return err
	}
	if s.ResetTimeout != "" {
		if v, err := time.ParseDuration(s.ResetTimeout); err != nil || v <= 0 {
			return p.errAt(at("reset_timeout"), "step %q: reset_timeout = %q: a duration like 30m", s.Name, s.ResetTimeout)
		}
	}
	return nil
}

// checkResetKind checks the keys that belong to the step's kind of reset.
func (p *Plan) checkResetKind(i int) error {
	s := &p.Steps[i]
	at := func(k string) string { return stepKey(i, k) }
	switch {
	case s.Reset == ResetCommand && strings.TrimSpace(s.ResetCommand) == "":
		return p.errAt(at("reset"), "step %q: reset = \"command\" needs reset_command = the command that restores the dataset", s.Name)
	case s.Reset != ResetCommand && s.ResetCommand != "":
		return p.errAt(at("reset_command"), "step %q: reset_command applies to reset = \"command\"", s.Name)
	case s.Reset == ResetReimport && s.ResetFrom == "":
		return p.errAt(at("reset"), "step %q: reset = \"reimport\" needs reset_from = the folder (or s3:// URL) for the dataset's CSV files", s.Name)
	case s.Reset != ResetReimport && s.ResetFrom != "":
		return p.errAt(at("reset_from"), "step %q: reset_from applies to reset = \"reimport\"", s.Name)
	}
	if l := strings.ToLower(s.ResetCommand); strings.Contains(l, "password") || strings.Contains(l, "secret") {
		return p.errAt(at("reset_command"), "step %q: keep secrets out of plans (results keep a copy): the command gets the password as MYSQL_PWD", s.Name)
	}
	if strings.Contains(strings.ToLower(s.ResetFrom), "secret") {
		return p.errAt(at("reset_from"), "step %q: keep secrets out of plans (results keep a copy): leave the keys out of reset_from, and give them as AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", s.Name)
	}
	if s.ResetFrom != "" && !strings.Contains(s.ResetFrom, "://") && !filepath.IsAbs(s.ResetFrom) {
		s.ResetFrom = filepath.Join(filepath.Dir(p.path), s.ResetFrom) // beside the plan, from any folder
	}
	return nil
}

// timeout is the step's reset_timeout; 0 is none.
func (s *Step) timeout() time.Duration {
	if s.ResetTimeout != "" {
		d, _ := time.ParseDuration(s.ResetTimeout)
		return d
	}
	if s.Reset == ResetCommand {
		return DefaultCommandTimeout
	}
	return 0
}

// describeReset is the step's reset for plan show.
func (s *Step) describeReset() string {
	var what string
	switch s.Reset {
	case ResetReload:
		what = "drop the dataset and load it again from the generator (same seed)"
	case ResetReimport:
		what = "drop the dataset and load its CSV files from " + s.ResetFrom + " (written there once)"
	case ResetCommand:
		what = "run reset_command"
	}
	when := "before every run"
	if s.ResetEvery == "step" {
		when = "before the step's first run"
	}
	if t := s.timeout(); t > 0 {
		what += fmt.Sprintf(", within %s", t)
	}
	return fmt.Sprintf("Reset of step %s, %s: %s; then the dataset is verified", s.Name, when, what)
}

// ResetHooks are a reset's workload parts.
type ResetHooks struct {
	// Remake reloads (kind reload) or reimports (from: reset_from) the
	// dataset, its lines on out.
	Remake func(ctx context.Context, kind, from string, out io.Writer) error
	// Fresh says whether the dataset is as its load left it, with what it
	// checked, or why not.
	Fresh func(ctx context.Context) (string, error)
	// Env is what a reset command gets beside the process's environment:
	// the connection (the password as MYSQL_PWD).
	Env []string
}

// resets does the plan's resets before its runs.
type resets struct {
	p      *Plan
	h      ResetHooks
	warmup func(ctx context.Context, out io.Writer) error
	done   map[string]*result.Reset // reset_every "step": the step's reset
}

// step is the plan's step named name.
func (p *Plan) step(name string) *Step {
	for i := range p.Steps {
		if p.Steps[i].Name == name {
			return &p.Steps[i]
		}
	}
	return nil
}

// resetsBefore says whether the cell's run starts with a reset (in this
// plan run: a step's first cell always does).
func (rs *resets) resetsBefore(c *cells.Cell) bool {
	s := rs.p.step(c.Series.Step)
	return s != nil && s.Reset != "" && (s.ResetEvery == "cell" || rs.done[s.Name] == nil)
}

// measure is m with the step's reset before each run.
func (rs *resets) measure(m cells.Measure) cells.Measure {
	return func(ctx context.Context, c *cells.Cell, threads int, out io.Writer) (*result.Result, error) {
		rec, err := rs.before(ctx, c, threads, out)
		if err != nil {
			return nil, err
		}
		r, err := m(ctx, c, threads, out)
		if r != nil && rec != nil {
			cp := *rec
			r.Reset = &cp
		}
		return r, err
	}
}

// before resets the dataset before a run of c at threads, when its step
// says so, and runs the plan's warm-up again after it.
func (rs *resets) before(ctx context.Context, c *cells.Cell, threads int, out io.Writer) (*result.Reset, error) {
	s := rs.p.step(c.Series.Step)
	if s == nil || s.Reset == "" {
		return nil, nil
	}
	if !rs.resetsBefore(c) {
		return rs.done[s.Name], nil
	}
	rec := &result.Reset{Kind: s.Reset, Every: s.ResetEvery, Cell: c.Index, Threads: threads}
	fmt.Fprintf(out, "Reset (%s) before cell %d/%d\n", s.Reset, c.Index, c.Of)
	start := time.Now()
	if err := rs.reset(ctx, s, rec, out); err != nil {
		return nil, fmt.Errorf("reset (%s) before it: %w", s.Reset, err)
	}
	rec.Seconds = time.Since(start).Seconds()
	if rec.Skipped != "" {
		fmt.Fprintf(out, "Reset (%s): skipped, %s (%s)\n", s.Reset, rec.Skipped, rec.Verified)
	} else {
		fmt.Fprintf(out, "Reset (%s) done in %s; verified: %s\n", s.Reset, time.Since(start).Round(time.Millisecond), rec.Verified)
	}
	start = time.Now()
	if err := rs.warmup(ctx, out); err != nil {
		return nil, fmt.Errorf("the warm-up after the reset: %w", err)
	}
	rec.WarmupSeconds = time.Since(start).Seconds()
	rs.done[s.Name] = rec
	return rec, nil
}

// reset restores the dataset and verifies it, within the step's timeout.
func (rs *resets) reset(ctx context.Context, s *Step, rec *result.Reset, out io.Writer) error {
	if t := s.timeout(); t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, t, errResetTimeout)
		defer cancel()
	}
	err := rs.restore(ctx, s, rec, out)
	if errors.Is(context.Cause(ctx), errResetTimeout) {
		return fmt.Errorf("it took longer than reset_timeout = %s: raise reset_timeout in step %q", s.timeout(), s.Name)
	}
	return err
}

var errResetTimeout = errors.New("reset_timeout")

// restore is the reset itself, then the verification.
func (rs *resets) restore(ctx context.Context, s *Step, rec *result.Reset, out io.Writer) error {
	if s.Reset != ResetCommand {
		if what, err := rs.h.Fresh(ctx); err == nil {
			rec.Skipped, rec.Verified = "the dataset is as its load left it", what
			return nil
		}
	}
	var err error
	if s.Reset == ResetCommand {
		err = RunCommand(ctx, s.ResetCommand, filepath.Dir(rs.p.path), rs.h.Env, out)
	} else {
		err = rs.h.Remake(ctx, s.Reset, s.ResetFrom, out)
	}
	if err != nil {
		return err
	}
	what, err := rs.h.Fresh(ctx)
	if err != nil {
		return fmt.Errorf("the dataset is not as loaded after it: %w", err)
	}
	rec.Verified = what
	return nil
}

// RunCommand runs a reset_command (command.Exec) and words its failure.
func RunCommand(ctx context.Context, cmd, dir string, env []string, out io.Writer) error {
	err := command.Exec(ctx, cmd, dir, env, out)
	var ee *command.ExitError
	switch {
	case err == nil || ctx.Err() != nil:
		return err
	case errors.As(err, &ee):
		return fmt.Errorf("reset_command failed (%s): its output is in the cell's log", ee.Status)
	}
	return fmt.Errorf("reset_command: %w", err)
}
