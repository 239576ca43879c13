package pipeline

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/deadline"
	"github.com/oltpbench/oltpbench/internal/term"
	"github.com/oltpbench/oltpbench/internal/workload"
	"github.com/oltpbench/oltpbench/loader"
)

// preflight checks a run against its dataset and server before it starts:
// one line each that names the fix, a warning unless the run cannot be
// right (it asks for rows the dataset does not have: --skip-dataset-check
// overrules).
// It reads the server on a connection of its own, before the run's are
// opened: a run that opens more than max_connections hears why first.
func (p *Pipeline) preflight(ctx context.Context, r *Run) error {
	pool, err := conn.Dial(ctx, r.Conn, 1)
	if err != nil {
		return err
	}
	defer pool.Close()
	var warnings []string
	// A server that does not answer the checks refuses the run: it would
	// start on a server it could not check, and wait on it.
	if err := deadline.Do(ctx, deadline.Checks, func(ctx context.Context) error { warnings = p.checks(ctx, r, pool.DB(0)); return nil }); err != nil {
		return err
	}
	for _, w := range warnings {
		p.note("warning: " + w)
	}
	return nil
}

// checks are preflight's warnings.
func (p *Pipeline) checks(ctx context.Context, r *Run, db *sql.DB) []string {
	rec, _ := loader.ReadDataset(ctx, db)
	var warnings []string
	var version string
	db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version)
	srv := workload.Server{Version: version, TiDB: conn.IsTiDB(version), Variables: map[string]string{}}
	for _, v := range []string{"max_connections", "max_prepared_stmt_count"} {
		var val string
		if db.QueryRowContext(ctx, "SELECT @@"+v).Scan(&val) == nil {
			srv.Variables[v] = val
		}
	}
	conns := r.Threads + r.Extra.N
	if n, err := strconv.Atoi(srv.Variables["max_connections"]); err == nil && conns > n {
		warnings = append(warnings, fmt.Sprintf("the run opens %d connections and the server's max_connections is %d: raise it (SET GLOBAL max_connections = %d) or run fewer threads", conns, n, conns+10))
	}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil && uint64(conns)+64 > lim.Cur {
		warnings = append(warnings, fmt.Sprintf("the run opens %d connections and this process may open %d files: raise the limit (ulimit -n %d)", conns, lim.Cur, conns+1024))
	}
	if len(rec) > 0 && rec["state"] == "complete" && rec["analyzed"] == "" {
		warnings = append(warnings, "the dataset was not ANALYZEd since its load: the server plans from guesses; prepare with --analyze=on, or a plan's warmup analyze = true")
	}
	if f := p.w.Hooks().Preflight; f != nil {
		warnings = append(warnings, f(srv, r.Threads)...)
	}
	return warnings
}

// datasetCheck is the run against its dataset once connected: the
// workload's own check (Validate: its tables are there, its sizes fit: a
// run asking for more is refused there), then a warning when the run reads
// only part of the dataset; --skip-dataset-check skips both.
func (p *Pipeline) datasetCheck(ctx context.Context, r *Run, pool *conn.Pool, rec map[string]string) error {
	if p.f.skipDatasetCheck {
		return nil
	}
	if v := p.w.Hooks().Validate; v != nil {
		// A server that does not answer refuses the run, as one found wrong.
		if err := deadline.Do(ctx, deadline.Checks, func(ctx context.Context) error { return v(ctx, pool.DB(0), r.Conn.DB) }); err != nil {
			return err
		}
	}
	if err := p.restore(ctx, r.Conn, pool.DB(0)); err != nil {
		return err
	}
	meta := r.Workload.Dataset().Meta
	for _, k := range r.Spec.RangeKeys {
		run, err1 := strconv.ParseInt(meta[k], 10, 64)
		have, err2 := strconv.ParseInt(rec[k], 10, 64)
		if err1 == nil && err2 == nil && run < have {
			p.note(fmt.Sprintf("warning: --%s=%d reads part of the dataset in %s (%s=%d): its results compare only with runs on the same part",
				strings.ReplaceAll(k, "_", "-"), run, r.Conn.DB, k, have))
		}
	}
	return nil
}

// restore is the workload's Restore hook, when it has one: a long
// command, watched.
func (p *Pipeline) restore(ctx context.Context, co conn.Options, db *sql.DB) error {
	f := p.w.Hooks().Restore
	if f == nil {
		return nil
	}
	return p.watched(ctx, co, "putting the dataset back", func(ctx context.Context) error { return f(ctx, db, co.DB) })
}

// note is one line of oltpbench's own on stderr: to a person only when the
// workload's output is a peer tool's (sysbench's).
func (p *Pipeline) note(line string) {
	if p.spec.Peer.Output && !term.ForPerson(p.warn, p.f.notes) {
		return
	}
	fmt.Fprintln(p.warn, "oltpbench: "+line)
}
