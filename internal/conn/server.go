package conn

import (
	"context"
	"database/sql"
	"strings"

	"github.com/oltpbench/oltpbench/internal/result"
)

// IsTiDB says whether a server's VERSION() is TiDB's.
func IsTiDB(version string) bool { return strings.Contains(strings.ToLower(version), "tidb") }

// ServerInfo identifies the server a run measures, with its settings
// (secret values hidden): SHOW GLOBAL VARIABLES, and on TiDB its version,
// SHOW CONFIG and the cluster's topology. What a server does not answer (or
// the user may not read) stays empty rather than failing the run.
func ServerInfo(ctx context.Context, pool *Pool) result.Server {
	s := result.Server{}
	for _, ep := range pool.Endpoints() {
		s.Endpoints = append(s.Endpoints, ep.String())
	}
	db := pool.DB(0)
	_ = db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&s.Version)
	s.Variables = map[string]string{}
	_ = QueryStrings(ctx, db, "SHOW GLOBAL VARIABLES", func(v []sql.NullString) error {
		if len(v) >= 2 {
			s.Variables[v[0].String] = hideSecret(v[0].String, v[1].String)
		}
		return nil
	})
	if !IsTiDB(s.Version) {
		return s
	}
	_ = db.QueryRowContext(ctx, "SELECT tidb_version()").Scan(&s.TiDBVersion)
	_ = QueryStrings(ctx, db, "SHOW CONFIG", func(v []sql.NullString) error {
		if len(v) >= 4 {
			s.Config = append(s.Config, result.Setting{Type: v[0].String, Instance: v[1].String, Name: v[2].String, Value: hideSecret(v[2].String, v[3].String)})
		}
		return nil
	})
	_ = QueryStrings(ctx, db, "SELECT type, instance, version, git_hash, start_time FROM information_schema.cluster_info", func(v []sql.NullString) error {
		if len(v) >= 5 {
			s.Topology = append(s.Topology, result.Node{Type: v[0].String, Instance: v[1].String, Version: v[2].String, GitHash: v[3].String, Start: v[4].String})
		}
		return nil
	})
	return s
}

func hideSecret(name, value string) string {
	if value != "" && result.SecretSetting(name) {
		return result.Hidden
	}
	return value
}

// QueryStrings runs q and hands every row to row as strings (NULL is not
// Valid); the slice is reused between rows. It stops at row's first error
// and reports the rows' own error at the end.
func QueryStrings(ctx context.Context, db *sql.DB, q string, row func([]sql.NullString) error, args ...any) error {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := row(vals); err != nil {
			return err
		}
	}
	return rows.Err()
}

// MissingTables returns those of names (tables or views) that schema does
// not hold, in the order given.
func MissingTables(ctx context.Context, db *sql.DB, schema string, names []string) ([]string, error) {
	have := map[string]bool{}
	err := QueryStrings(ctx, db, "SELECT table_name FROM information_schema.tables WHERE table_schema = ?", func(v []sql.NullString) error {
		have[strings.ToLower(v[0].String)] = true
		return nil
	}, schema)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, n := range names {
		if !have[strings.ToLower(n)] {
			missing = append(missing, n)
		}
	}
	return missing, nil
}
