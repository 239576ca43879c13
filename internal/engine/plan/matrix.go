package plan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/oltpbench/oltpbench/internal/command"
	"github.com/oltpbench/oltpbench/internal/deadline"
	"github.com/oltpbench/oltpbench/internal/engine/cells"
	"github.com/oltpbench/oltpbench/internal/result"
)

// VersionHooks are what a plan with [versions] needs beside its workload's
// hooks.
type VersionHooks struct {
	// Ready asks the server once for its version (VERSION()), within ctx.
	Ready func(ctx context.Context) (string, error)
	// Report compares the versions' folders (dirs, labelled in order) at
	// the plan's end: its text on out, its files in dir. An error fails the
	// plan run (a --fail-on gate).
	Report func(ctx context.Context, dir string, dirs, labels []string, out io.Writer) error
}

// readyPause is the wait between two questions to a version coming up.
const readyPause = 200 * time.Millisecond

// A Matrix runs a plan's cells on its versions: one version up at a time,
// deployed (and the one before torn down) when a visit needs another, its
// dataset restored, each version's results in its own folder.
type Matrix struct {
	p   *Plan
	dir string
	out io.Writer
	h   Hooks
	up  *result.Version // deployed by this process, nil for none
}

// NewMatrix runs p's visits into dir/<version>/.
func NewMatrix(p *Plan, dir string, out io.Writer, h Hooks) *Matrix {
	return &Matrix{p: p, dir: dir, out: out, h: h}
}

// Dir is version's result folder.
func (m *Matrix) Dir(version string) string { return filepath.Join(m.dir, version) }

// Pending are the visit's cells whose results are not in its version's
// folder, and the notes on those that run again.
func (m *Matrix) Pending(v Visit) ([]*cells.Cell, []string) {
	ex := &cells.Executor{Dir: m.Dir(v.Version), Plan: true}
	todo, _, notes := ex.Pending(v.Cells)
	return todo, notes
}

// Run runs the visit's cells that are not done: its version deployed when
// another (or none) is up, the dataset restored, then the cells.
func (m *Matrix) Run(ctx context.Context, v Visit) error {
	todo, notes := m.Pending(v)
	if len(todo) == 0 {
		return nil
	}
	vdir := m.Dir(v.Version)
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return fmt.Errorf("cannot create --result-dir: %w", err)
	}
	if err := m.p.WriteCopy(vdir); err != nil {
		return fmt.Errorf("cannot write to --result-dir: %w", err)
	}
	for _, n := range notes {
		fmt.Fprintf(m.out, "version %s: %s\n", v.Version, n)
	}
	if m.up == nil || m.up.Name != v.Version {
		if err := m.Close(ctx); err != nil {
			return err
		}
		up, err := m.deploy(ctx, v.Version)
		if err != nil {
			return err
		}
		m.up = up
		rs := &resets{p: m.p, h: m.h.Reset, warmup: m.h.Warmup, done: map[string]*result.Reset{}}
		if err := m.restore(ctx, rs, todo[0]); err != nil {
			m.up = nil // restored again by the next run
			return err
		}
	}
	rs := &resets{p: m.p, h: m.h.Reset, warmup: m.h.Warmup, done: map[string]*result.Reset{}}
	up := *m.up
	measure := rs.measure(func(ctx context.Context, c *cells.Cell, threads int, out io.Writer) (*result.Result, error) {
		r, err := m.h.Measure(ctx, c, threads, out)
		if r != nil {
			cp := up
			r.Version = &cp
		}
		return r, err
	})
	headroom := m.h.Headroom
	if headroom != nil {
		headroom = func(ctx context.Context, c *cells.Cell, dir string, out io.Writer) (*result.Result, error) {
			r, err := m.h.Headroom(ctx, c, dir, out)
			if r != nil {
				cp := up
				r.Version = &cp
			}
			return r, err
		}
	}
	ex := &cells.Executor{Dir: vdir, Plan: true, Out: m.out, Measure: measure, Capacity: m.h.Capacity, Headroom: headroom, Progress: m.h.Progress}
	return ex.Execute(ctx, todo)
}

// Close tears down the version up, if any and if the plan has a teardown.
func (m *Matrix) Close(ctx context.Context) error {
	if m.up == nil {
		return nil
	}
	name := m.up.Name
	m.up = nil
	vs := m.p.Versions
	if strings.TrimSpace(vs.Teardown) == "" {
		return nil
	}
	fmt.Fprintf(m.out, "\nTeardown of version %s\n", name)
	return m.hook(ctx, "teardown", vs.Teardown, name)
}

// deploy brings version up and waits until the server answers with a
// version that expect_version accepts.
func (m *Matrix) deploy(ctx context.Context, version string) (*result.Version, error) {
	vs := m.p.Versions
	rec := &result.Version{Name: version, Deployed: time.Now().UTC(), Restore: vs.Restore}
	fmt.Fprintf(m.out, "\nDeploy of version %s\n", version)
	start := time.Now()
	if err := m.hook(ctx, "deploy", vs.Deploy, version); err != nil {
		return nil, err
	}
	rec.DeploySecs = time.Since(start).Seconds()
	start = time.Now()
	reported, err := m.ready(ctx, version)
	if err != nil {
		return nil, err
	}
	rec.ReadySecs = time.Since(start).Seconds()
	rec.Reported = reported
	if !vs.Matches(version, reported) {
		return nil, fmt.Errorf("version %s: the server reports %q, which expect_version = %q does not match: the deploy brought up another version (its output is in %s); fix the deploy or expect_version, then run the same command again",
			version, reported, vs.expected(version), m.log(version))
	}
	fmt.Fprintf(m.out, "Version %s is up in %s (deploy %s), the server reports %s\n", version,
		time.Duration((rec.DeploySecs+rec.ReadySecs)*float64(time.Second)).Round(time.Millisecond),
		time.Duration(rec.DeploySecs*float64(time.Second)).Round(time.Millisecond), reported)
	return rec, nil
}

// ready asks the server for its version until it answers, within
// ready_timeout (each question within deadline.Ping's bound).
func (m *Matrix) ready(ctx context.Context, version string) (string, error) {
	limit := m.p.Versions.readyTimeout()
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var reported string
	err := deadline.Await(rctx, deadline.Ping, readyPause, func(actx context.Context) error {
		v, err := m.h.Versions.Ready(actx)
		reported = v
		return err
	})
	switch {
	case err == nil:
		return reported, nil
	case ctx.Err() != nil:
		return "", ctx.Err()
	}
	return "", fmt.Errorf("version %s: the server did not answer within ready_timeout = %s after its deploy (%v): check the deploy (its output is in %s) or raise ready_timeout, then run the same command again",
		version, limit, firstLine(err), m.log(version))
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// log is version's log of its deploys and teardowns.
func (m *Matrix) log(version string) string { return filepath.Join(m.Dir(version), "deploy.log") }

var errHookTimeout = errors.New("[versions] timeout")

// hook runs deploy or teardown for version, its output appended to the
// version's deploy.log, within [versions] timeout (its process group
// killed past it).
func (m *Matrix) hook(ctx context.Context, what, cmd, version string) error {
	vs := m.p.Versions
	path := m.log(version)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cannot create --result-dir: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	defer f.Close()
	line := vs.command(cmd, version)
	fmt.Fprintf(f, "== %s %s of version %s: %s\n", time.Now().UTC().Format(time.RFC3339), what, version, line)
	hctx, cancel := context.WithTimeoutCause(ctx, vs.timeout(), errHookTimeout)
	defer cancel()
	env := append([]string{"OLTPBENCH_VERSION=" + version}, m.h.Reset.Env...)
	// A plan run killed during a hook leaves it running: the next run
	// ends it before its own, so that two deploys never overlap.
	pidFile := filepath.Join(m.dir, ".hook.pid")
	if b, err := os.ReadFile(pidFile); err == nil {
		if pgid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && command.KillGroup(pgid, 10*time.Second) {
			fmt.Fprintf(m.out, "A deploy or teardown left running by a plan run that was killed (process group %d): killed\n", pgid)
		}
	}
	err = command.ExecGroup(hctx, line, filepath.Dir(m.p.path), env, f, func(pgid int) {
		_ = os.WriteFile(pidFile, []byte(strconv.Itoa(pgid)), 0o644)
	})
	_ = os.Remove(pidFile)
	var ee *command.ExitError
	switch {
	case err == nil:
		fmt.Fprintf(f, "== %s %s done\n", time.Now().UTC().Format(time.RFC3339), what)
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(context.Cause(hctx), errHookTimeout):
		fmt.Fprintf(f, "== killed: longer than [versions] timeout = %s\n", vs.timeout())
		return fmt.Errorf("%s of version %s took longer than [versions] timeout = %s and was killed (its output is in %s): fix it or raise timeout, then run the same command again",
			what, version, vs.timeout(), path)
	case errors.As(err, &ee):
		fmt.Fprintf(f, "== failed: %s\n", ee.Status)
		return fmt.Errorf("%s of version %s failed (%s; its output is in %s): fix it, then run the same command again to resume",
			what, version, ee.Status, path)
	}
	return fmt.Errorf("%s of version %s: %w", what, version, err)
}

// restore makes the dataset ready on the version just deployed: restore
// none ensures it (made when missing, verified when present), the others
// are the step resets of that kind; then the plan's warm-up. When the
// first cell's own step resets before it, that reset makes the dataset.
func (m *Matrix) restore(ctx context.Context, rs *resets, first *cells.Cell) error {
	vs := m.p.Versions
	start := time.Now()
	if vs.Restore == RestoreNone {
		if rs.resetsBefore(first) {
			fmt.Fprintf(m.out, "Dataset: made by the reset before cell %d/%d\n", first.Index, first.Of)
			return nil
		}
		if err := m.h.Dataset(ctx); err != nil {
			return err
		}
	} else {
		rec := &result.Reset{}
		fmt.Fprintf(m.out, "Restore (%s) of the dataset on version %s\n", vs.Restore, m.up.Name)
		if err := rs.reset(ctx, vs.restoreStep(), rec, m.out); err != nil {
			return fmt.Errorf("restore (%s) on version %s: %w", vs.Restore, m.up.Name, err)
		}
		m.up.Verified = rec.Verified
		if rec.Skipped != "" {
			fmt.Fprintf(m.out, "Restore (%s): skipped, %s (%s)\n", vs.Restore, rec.Skipped, rec.Verified)
		} else {
			fmt.Fprintf(m.out, "Restore (%s) done in %s; verified: %s\n", vs.Restore, time.Since(start).Round(time.Millisecond), rec.Verified)
		}
	}
	m.up.RestoreSecs = time.Since(start).Seconds()
	return m.h.Warmup(ctx, m.out)
}

// ExecuteVersions runs a plan with [versions]: its cells on every version
// in the plan's order, each version's results in dir/<version>/, resumed
// at the first cell not done (its version deployed again), then the
// report of all versions.
func ExecuteVersions(ctx context.Context, p *Plan, cs []*cells.Cell, dir string, out io.Writer, h Hooks) error {
	lock, err := claim(p, dir)
	if err != nil {
		return err
	}
	defer lock.Close()
	vs := p.Versions
	fmt.Fprintln(out, DescribeVersions(p, cs))
	m := NewMatrix(p, dir, out, h)
	visits := Schedule(vs.List, cs, vs.Order)
	var status []string
	total, left := 0, 0
	for _, v := range vs.List {
		todo, _ := m.Pending(Visit{Version: v, Cells: cs})
		status = append(status, fmt.Sprintf("%s %d/%d", v, len(cs)-len(todo), len(cs)))
		total += len(cs)
		left += len(todo)
	}
	switch {
	case left == 0:
		fmt.Fprintf(out, "All %d cells of the %d versions are done in %s: nothing to run (a new --result-dir runs it again)\n", total, len(vs.List), dir)
	case left < total:
		fmt.Fprintf(out, "Resuming: %d of %d cells are done in %s (%s); running the other %d\n", total-left, total, dir, strings.Join(status, ", "), left)
	default:
		fmt.Fprintf(out, "Running %d cells on %d versions into %s\n", total, len(vs.List), dir)
	}
	for i, v := range visits {
		todo, _ := m.Pending(v)
		if len(todo) == 0 {
			continue
		}
		fmt.Fprintf(out, "\n=== visit %d/%d: version %s, %d cells\n", i+1, len(visits), v.Version, len(todo))
		if err := m.Run(ctx, v); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if err := m.Close(ctx); err != nil {
		return err
	}
	if left > 0 {
		fmt.Fprintf(out, "\nPlan done: %d cells on %d versions in %s (%d run now, %d done before)\n", total, len(vs.List), dir, left, total-left)
	}
	if h.Versions.Report == nil {
		return nil
	}
	dirs := make([]string, len(vs.List))
	for i, v := range vs.List {
		dirs[i] = m.Dir(v)
	}
	return h.Versions.Report(ctx, dir, dirs, vs.List, out)
}
