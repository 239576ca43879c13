package conn

import (
	"context"
	"database/sql/driver"
	"io"
	"strings"
)

// DryConnector hands out connections on which every statement succeeds at
// once with no rows and no changes: sysbench's --mysql-dry-run, the client
// measured alone, no server needed.
type DryConnector struct{}

// Raw runs f on a dry connection.
func (DryConnector) Raw(_ context.Context, f func(dc driver.Conn) error) error { return f(dryConn{}) }

type dryConn struct{}

func (dryConn) Prepare(q string) (driver.Stmt, error) { return dryStmt(strings.Count(q, "?")), nil }
func (dryConn) Close() error                          { return nil }
func (dryConn) Begin() (driver.Tx, error)             { return dryTx{}, nil }
func (dryConn) ExecContext(context.Context, string, []driver.NamedValue) (driver.Result, error) {
	return driver.RowsAffected(0), nil
}
func (dryConn) QueryContext(context.Context, string, []driver.NamedValue) (driver.Rows, error) {
	return dryRows{}, nil
}

type dryStmt int

func (dryStmt) Close() error                               { return nil }
func (s dryStmt) NumInput() int                            { return int(s) }
func (dryStmt) Exec([]driver.Value) (driver.Result, error) { return driver.RowsAffected(0), nil }
func (dryStmt) Query([]driver.Value) (driver.Rows, error)  { return dryRows{}, nil }

type dryTx struct{}

func (dryTx) Commit() error   { return nil }
func (dryTx) Rollback() error { return nil }

// dryRows is no result set at all (no columns), as the dry run's API calls
// return nothing.
type dryRows struct{}

func (dryRows) Columns() []string         { return nil }
func (dryRows) Close() error              { return nil }
func (dryRows) Next([]driver.Value) error { return io.EOF }

// Connect is a dry connection, for a workload that opens its own.
func (DryConnector) Connect(context.Context) (driver.Conn, Endpoint, error) {
	return dryConn{}, Endpoint{Net: "tcp", Addr: "dry-run"}, nil
}

// NoConnector hands its threads no connection: for workers that open
// their own through a Dialer.
type NoConnector struct{}

// Raw runs f with no connection.
func (NoConnector) Raw(_ context.Context, f func(dc driver.Conn) error) error { return f(nil) }
