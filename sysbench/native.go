package sysbench

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// native is a native OLTP test bound to the suite's options.
type native struct {
	*suite
	test *Test
}

func (n *native) setup(st *workload.Setup, name, command string) error {
	var err error
	if n.test, err = Lookup(name, command); err != nil {
		return err
	}
	st.Verbosity = n.level()
	if n.dbDriver != "mysql" {
		return &workload.Message{Text: fmt.Sprintf("FATAL: invalid database driver name: '%s'", n.dbDriver),
			Hint: "oltpbench: oltpbench speaks the MySQL protocol: --db-driver=mysql"}
	}
	if err := n.preparedStmts(); err != nil {
		return err
	}
	n.o.Threads = st.Threads
	if err := n.test.Validate(&n.o, command); err != nil {
		return err
	}
	if err := n.newDist(); err != nil {
		return err
	}
	if command != "run" {
		return nil
	}
	return n.setupRun()
}

func (n *native) name() string             { return n.test.Name }
func (n *native) dataset() dataset.Dataset { return n.nativeDataset(n.test) }
func (n *native) sizes() map[string]string { return n.tableSizes() }

func (n *native) hooks() workload.Hooks {
	return workload.Hooks{
		Validate: func(ctx context.Context, db *sql.DB, schema string) error {
			return n.test.Check(ctx, db, schema, &n.o)
		},
		Prewarm:   n.prewarm,
		Preflight: n.preflight,
		ExactRows: n.exactRows,
		Peer: workload.PeerHooks{
			// sysbench prepares in worker threads only with --threads > 1.
			BeforeLoad: func(w io.Writer) {
				if n.o.Threads > 1 {
					fmt.Fprintf(w, "Initializing worker threads...\n\n")
				}
			},
			TableMessages: true,
			Dropping: func(w io.Writer, table string) {
				if strings.HasPrefix(table, "sbtest") {
					fmt.Fprintf(w, "Dropping table '%s'...\n", table)
				}
			},
		},
	}
}

func (n *native) newRun(sr *suiteRun, c workload.RunConfig) (workload.Run, error) {
	o := n.o
	o.Threads = c.Threads
	sr.events = n.test.NewRun(o, n.dist, c.Seed)
	return sr, nil
}

// prewarm reads every table into the server's caches, as sysbench's prewarm.
func (n *native) prewarm(ctx context.Context, pool *conn.Pool, threads int, out io.Writer) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(threads)
	for i := 1; i <= n.o.Tables; i++ {
		fmt.Fprintf(out, "Prewarming table %s\n", TableName(i))
		g.Go(func() error {
			c, err := pool.Conn(gctx)
			if err != nil {
				return err
			}
			defer c.Close()
			for _, q := range append([]string{"SET tmp_table_size=2*1024*1024*1024", "SET max_heap_table_size=2*1024*1024*1024",
				"ANALYZE TABLE " + TableName(i)}, PrewarmSQL(&n.o, i)...) {
				rows, err := c.QueryContext(gctx, q)
				if err == nil {
					for rows.Next() {
					}
					err = rows.Err()
					rows.Close()
				}
				if err != nil {
					return fmt.Errorf("prewarm %s: %w", TableName(i), err)
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// front answers a native test's help and its command checks in sysbench's
// words.
func (n *native) front(args []string, out io.Writer) (bool, error) {
	t, err := Lookup(args[0], "")
	if err != nil {
		return false, &workload.Message{Text: fmt.Sprintf("FATAL: Cannot find benchmark '%s': no such built-in test, file or module", args[0]),
			Hint: "oltpbench: the tests are " + strings.Join(Names(), ", ") + " (oltp_common for prepare and cleanup)"}
	}
	if len(args) == 1 {
		return false, &workload.Message{Text: "FATAL: Command is required. Supported commands: prepare, prewarm, run, cleanup, help"}
	}
	switch args[1] {
	case "prepare", "prewarm", "warmup", "run", "cleanup":
		return false, nil
	case "help":
		if t.custom == bulkInsertEvent {
			return false, &workload.Message{Text: "'bulk_insert' test does not implement the 'help' command."}
		}
		printTestHelp(out, t, strings.TrimSuffix(args[0], "/"))
		return true, nil
	}
	return false, &workload.Message{Text: "Unknown command: " + args[1]}
}

// preparedPerThread is how many statements a thread of the test prepares
// (its worker's prepare, counted the same way).
func (t *Test) preparedPerThread(o *Options) int {
	switch t.custom {
	case randomPointsEvent, randomRangesEvent:
		return 1
	case insertEvent, bulkInsertEvent:
		return 0
	}
	n := 0
	if t.trx && !o.SkipTrx {
		n = 2
	}
	kinds := map[stmtKind]bool{}
	for _, s := range t.steps(o) {
		kinds[s.kind] = true
		if s.kind == deleteRow && !t.deleteOnly() {
			kinds[insertRow] = true
		}
	}
	return n + len(kinds)*o.Tables
}

// preflight warns of what makes a run measure something else than asked:
// prepared statements beyond the server's max_prepared_stmt_count run as
// text or fail (sysbench#217), and --rand-type=special (sysbench's default)
// on TiDB puts most accesses on a few rows, where TiDB's own reports run
// uniform.
func (n *native) preflight(srv workload.Server, threads int) []string {
	var out []string
	if max, err := strconv.Atoi(srv.Variables["max_prepared_stmt_count"]); err == nil && n.o.PreparedStmts {
		if need := threads * n.test.preparedPerThread(&n.o); need > max {
			out = append(out, fmt.Sprintf("%d threads prepare %d statements and the server's max_prepared_stmt_count is %d: the rest run as text or fail; raise it (SET GLOBAL max_prepared_stmt_count = %d) or run fewer threads",
				threads, need, max, need+100))
		}
	}
	if srv.TiDB && n.randType == "special" {
		out = append(out, "--rand-type=special (sysbench's default) puts most accesses on a few rows, which on TiDB makes hot regions; TiDB's own reports run --rand-type=uniform")
	}
	return out
}

// exactRows counts the tables' rows when that is cheap (a million rows or
// fewer each); larger tables are left to the server's estimate.
func (n *native) exactRows(ctx context.Context, db *sql.DB) map[string]int64 {
	out := map[string]int64{}
	if n.o.TableSize > 1_000_000 {
		return out
	}
	for i := 1; i <= n.o.Tables; i++ {
		var c int64
		if db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+TableName(i)).Scan(&c) == nil {
			out[TableName(i)] = c
		}
	}
	return out
}
