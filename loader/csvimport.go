package loader

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/dataset"
)

// ImportDir loads a folder made by WriteCSV: IMPORT INTO on TiDB, LOAD DATA
// LOCAL from the files elsewhere, with the same resume and index handling as
// a load from the generator.
func ImportDir(ctx context.Context, co conn.Options, dir string, o Options) (*Report, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	st, err := OpenStore(dir, 0)
	if err != nil {
		return nil, err
	}
	if err := st.Check(false); err != nil {
		return nil, err
	}
	m, err := ReadManifest(st, co.DB)
	if err != nil {
		return nil, err
	}
	if co.DB == "" {
		co.DB = m.DB
	}
	o.Seed = m.Seed
	return importManifest(ctx, co, m, o)
}

func importManifest(ctx context.Context, co conn.Options, m *Manifest, o Options) (*Report, error) {
	pool, srv, err := connect(ctx, co, o.Threads)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	ds := Dataset{Workload: m.Workload, Meta: m.Meta, Extends: m.Extends}
	for _, v := range m.Views {
		ddl, err := m.store.ReadFile(v.SchemaFile)
		if err != nil {
			return nil, fmt.Errorf("schema of view %s: %w", v.Name, err)
		}
		ds.Views = append(ds.Views, dataset.View{Name: v.Name, DDL: strings.TrimSuffix(strings.TrimSpace(string(ddl)), ";")})
	}
	var units [][]unit
	var kinds []string
	for ti, mt := range m.Tables {
		ddl, err := m.store.ReadFile(mt.SchemaFile)
		if err != nil {
			return nil, fmt.Errorf("schema of %s: %w", mt.Name, err)
		}
		ds.Tables = append(ds.Tables, dataset.Table{Name: mt.Name, DDL: string(ddl), Columns: mt.Columns, Rows: mt.Rows, KeyColumn: mt.KeyColumn})
		var us []unit
		for _, f := range mt.Files {
			us = append(us, unit{ti: ti, idx: f.Unit, first: f.FirstRow, n: f.Rows, file: f.Name, sha256: f.SHA256,
				lo: f.FirstKey, hi: f.LastKey, keyed: mt.KeyColumn != ""})
		}
		units = append(units, us)
		kinds = append(kinds, strconv.FormatInt(mt.ChunksPerFile, 10))
	}
	if srv.tidb {
		return importTiDB(ctx, pool, m, ds, o)
	}
	if !srv.localInfile {
		return nil, errors.New("the server has local_infile off, and import loads the files with LOAD DATA LOCAL: " + enableLocal)
	}
	rep := &Report{Mode: "import", ModeReason: "LOAD DATA LOCAL from the CSV files (IMPORT INTO is TiDB's)"}
	j := &job{pool: pool, schema: co.DB, srv: srv, ds: ds, units: units, kind: "file:" + strings.Join(kinds, ","), files: m.store, o: o, rep: rep}
	return j.run(ctx)
}

// importTiDB creates the tables with their indexes and runs IMPORT INTO, which
// builds indexes itself and needs empty tables.
func importTiDB(ctx context.Context, pool *conn.Pool, m *Manifest, ds Dataset, o Options) (*Report, error) {
	rep := &Report{Mode: "import", ModeReason: "TiDB IMPORT INTO", IndexTiming: "import", IxReason: "IMPORT INTO builds indexes"}
	db := pool.DB(0)
	start := time.Now()
	m, err := extendedManifest(ctx, db, m)
	if err != nil {
		return nil, err
	}
	for _, mt := range m.Tables {
		t := ds.Tables[slices.IndexFunc(ds.Tables, func(t dataset.Table) bool { return t.Name == mt.Name })]
		if _, err := db.ExecContext(ctx, ifNotExists(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t.DDL), ";")))); err != nil {
			return nil, fmt.Errorf("creating %s: %w", t.Name, err)
		}
	}
	rep.Create = time.Since(start)
	t0 := time.Now()
	// Credentials go into the statements only now, never into a file.
	loc, redact := m.store.Location(), RedactURL
	if s, ok := m.store.(*s3Store); ok {
		var err error
		if loc, err = s.importLocation(ctx); err != nil {
			return nil, err
		}
		redact = s.redact
	}
	for _, q := range importStatements(m, loc, o.Threads) {
		if err := drain(db.QueryContext(ctx, q)); err != nil {
			where := "the files must be on the TiDB node at " + m.store.Location() + ", or in object storage"
			if strings.Contains(loc, "://") {
				where = "TiDB must reach " + m.store.Location() + " with the credentials given"
			}
			return nil, fmt.Errorf("IMPORT INTO failed: %s (%s)", redact(err.Error()), where)
		}
	}
	rep.Load = time.Since(t0)
	if err := createViews(ctx, db, ds.Views); err != nil {
		return nil, err
	}
	for _, t := range m.Tables {
		rep.Rows += t.Rows
	}
	rep.Total = time.Since(start)
	return rep, nil
}

// extendedManifest leaves out of m the tables of the complete dataset it
// extends (IMPORT INTO needs empty tables, and they are complete).
func extendedManifest(ctx context.Context, db *sql.DB, m *Manifest) (*Manifest, error) {
	if m.Extends == "" {
		return m, nil
	}
	have, err := ReadDataset(ctx, db)
	if err != nil || have["workload"] != m.Extends || have["state"] != "complete" {
		return m, err
	}
	var names []string
	for _, t := range m.Tables {
		names = append(names, t.Name)
	}
	var schema string
	if err := db.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&schema); err != nil {
		return nil, err
	}
	there, err := existingTables(ctx, db, schema, names)
	if err != nil {
		return nil, err
	}
	skip := map[string]bool{}
	for _, n := range there {
		skip[strings.ToLower(n)] = true
	}
	out := *m
	out.Tables = nil
	for _, t := range m.Tables {
		if !skip[strings.ToLower(t.Name)] {
			out.Tables = append(out.Tables, t)
		}
	}
	return &out, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// EnsureCSV makes the folder o.Dir hold ds's CSV files for database db,
// written once: files found there are checked to be ds's (workload, seed,
// options), a write found cut is finished, and an empty folder is written.
// It says on out which it did.
func EnsureCSV(ctx context.Context, db string, ds Dataset, o Options, out io.Writer) error {
	st, err := OpenStore(o.Dir, o.FileSize)
	if err != nil {
		return err
	}
	if st.Size(manifestFile(db)) >= 0 {
		m, err := readManifestFile(st, manifestFile(db))
		if err != nil {
			return err
		}
		want := Manifest{Workload: ds.Workload, Seed: o.Seed, Meta: ds.Meta}
		if m.Workload != want.Workload || m.Seed != want.Seed || !maps.Equal(m.Meta, want.Meta) {
			return fmt.Errorf("the CSV files in %s are of another dataset (%s, seed %d, %v; this one: %s, seed %d, %v): remove them, or give another folder",
				st.Location(), m.Workload, m.Seed, m.Meta, want.Workload, want.Seed, want.Meta)
		}
		fmt.Fprintf(out, "CSV files: %s holds this dataset's\n", st.Location())
		return nil
	}
	fmt.Fprintf(out, "CSV files: writing this dataset's to %s (once)\n", st.Location())
	o.Resume, o.Shard, o.Shards = true, 0, 0 // finish a cut write, or start one
	m, err := WriteCSV(ctx, db, ds, o)
	if err != nil {
		return err
	}
	m.Summary(out)
	return nil
}
