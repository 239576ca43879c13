package loader

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/oltpbench/oltpbench/csvgen"
	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
)

// ManifestFormat identifies the manifest layout.
const ManifestFormat = "oltpbench-csv/1"

// Manifest lists a directory's CSV files: what TiDB Lightning, IMPORT INTO
// and `oltpbench import` read, with row counts and SHA-256 digests.
type Manifest struct {
	Format   string            `json:"format"`
	DB       string            `json:"db"`
	Workload string            `json:"workload"`
	Seed     uint64            `json:"seed"`
	Meta     map[string]string `json:"meta,omitempty"`
	// Shard and Shards mark a manifest part: the files of the Shard-th of
	// Shards machines that wrote one dataset together (0: the whole set).
	Shard  int             `json:"shard,omitempty"`
	Shards int             `json:"shards,omitempty"`
	Tables []ManifestTable `json:"tables"`
	store  Store
}

// Location is where the files are, without credentials.
func (m *Manifest) Location() string {
	if m.store == nil {
		return ""
	}
	return m.store.Location()
}

// ManifestTable is one table's schema file and data files.
type ManifestTable struct {
	Name          string         `json:"name"`
	Columns       []string       `json:"columns"`
	Rows          int64          `json:"rows"`
	KeyColumn     string         `json:"key_column,omitempty"`
	ChunksPerFile int64          `json:"chunks_per_file"`
	TotalFiles    int64          `json:"total_files"` // in the whole set, all shards
	SchemaFile    string         `json:"schema_file"`
	Files         []ManifestFile `json:"files"`
}

// ManifestFile is one data file.
type ManifestFile struct {
	Name     string `json:"name"`
	Unit     int64  `json:"unit"`
	FirstRow int64  `json:"first_row"`
	Rows     int64  `json:"rows"`
	FirstKey int64  `json:"first_key"`
	LastKey  int64  `json:"last_key"`
	Bytes    int64  `json:"bytes"`
	SHA256   string `json:"sha256"`
	table    string
}

// Names of the files, as TiDB Lightning expects them.
func schemaCreateFile(db string) string  { return db + "-schema-create.sql" }
func schemaFile(db, table string) string { return db + "." + table + "-schema.sql" }
func dataFile(db, table string, n int64) string {
	return fmt.Sprintf("%s.%s.%06d.csv", db, table, n+1)
}
func manifestFile(db string) string { return db + "-manifest.json" }
func importFile(db string) string   { return db + "-import.sql" }

// manifestPart names shard i's part of n; it is written when the shard is complete.
func manifestPart(db string, i, n int) string {
	return fmt.Sprintf("%s-manifest.%d-of-%d.json", db, i, n)
}

var partName = regexp.MustCompile(`^(.+)-manifest\.(\d+)-of-(\d+)\.json$`)

// progressFile is the log of completed files, one per shard so that shards
// writing into one place never share a file.
func progressFile(db string, shard, shards int) string {
	if shards > 0 {
		return fmt.Sprintf(".%s-progress.%d-of-%d.jsonl", db, shard, shards)
	}
	return "." + db + "-progress.jsonl"
}

// WriteCSV writes the dataset as CSV files in o.Dir, split near o.FileSize,
// with schema files, a manifest and IMPORT INTO statements. Files are the same
// byte for byte at any thread count. Each file is written under a temporary
// name and renamed when complete; o.Resume keeps the files an interrupted run
// completed.
func WriteCSV(ctx context.Context, db string, ds Dataset, o Options) (*Manifest, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	st, err := OpenStore(o.Dir, o.FileSize)
	if err != nil {
		return nil, err
	}
	if db == "" {
		return nil, errors.New("no database name for the files: set --mysql-db")
	}
	if err := st.Check(true); err != nil {
		return nil, err
	}
	m := &Manifest{Format: ManifestFormat, DB: db, Workload: ds.Workload, Seed: o.Seed, Meta: ds.Meta, Shard: o.Shard, Shards: o.Shards, store: st}
	done, err := readProgress(st, progressFile(db, o.Shard, o.Shards))
	if err != nil {
		return nil, err
	}
	mine := manifestFile(db)
	if o.Shards > 0 {
		mine = manifestPart(db, o.Shard, o.Shards)
		if st.Size(manifestFile(db)) >= 0 {
			return nil, fmt.Errorf("%s already holds the whole set of database %q: shards go to another --dir", st.Location(), db)
		}
	}
	if !o.Resume {
		if len(done) > 0 || st.Size(mine) >= 0 {
			return nil, fmt.Errorf("%s already holds files of database %q: use --resume to finish them, another --dir, or remove them", st.Location(), db)
		}
	}
	type job struct {
		t  *dataset.Table
		mt *ManifestTable
		f  ManifestFile
		c0 int64 // first chunk
		c1 int64 // past the last chunk
	}
	var jobs []job
	var total int64
	for i := range ds.Tables {
		t := &ds.Tables[i]
		split, err := SplitDDL(t.DDL)
		if err != nil {
			return nil, fmt.Errorf("table %s: %v", t.Name, err)
		}
		if err := writeObject(st, schemaFile(db, t.Name), []byte(split.Combined+";\n")); err != nil {
			return nil, err
		}
		mt := ManifestTable{Name: t.Name, Columns: t.Columns, Rows: t.Rows, KeyColumn: t.KeyColumn, SchemaFile: schemaFile(db, t.Name)}
		mt.ChunksPerFile = chunksPerFile(t, o)
		m.Tables = append(m.Tables, mt)
	}
	if err := writeObject(st, schemaCreateFile(db), []byte("CREATE DATABASE IF NOT EXISTS "+quoteIdent(db)+";\n")); err != nil {
		return nil, err
	}
	// With shards, file n of every table goes to shard n mod shards (in
	// table order within a number): names and bytes are those of a
	// one-machine generation, each written by one shard.
	for i := range ds.Tables {
		t, mt := &ds.Tables[i], &m.Tables[i]
		mt.TotalFiles = (t.Chunks() + mt.ChunksPerFile - 1) / mt.ChunksPerFile
	}
	for i := range ds.Tables {
		t, mt := &ds.Tables[i], &m.Tables[i]
		for c0, n := int64(0), int64(0); c0 < t.Chunks(); c0, n = c0+mt.ChunksPerFile, n+1 {
			if o.Shards > 0 {
				if (int(n)*len(ds.Tables)+i)%o.Shards != o.Shard-1 {
					continue
				}
			}
			c1 := min(c0+mt.ChunksPerFile, t.Chunks())
			first, _ := t.ChunkRange(c0)
			lf, ln := t.ChunkRange(c1 - 1)
			f := ManifestFile{Name: dataFile(db, t.Name, n), Unit: n, FirstRow: first, Rows: lf + ln - first, table: t.Name}
			est := t.EstimatedRowsOf(f.Rows)
			if t.KeyOf != nil {
				f.FirstKey, f.LastKey = t.KeyOf(first), t.KeyOf(lf+ln-1)
			}
			if d, ok := done[f.Name]; ok && st.Size(f.Name) == d.Bytes {
				mt.Files = append(mt.Files, d)
				continue
			}
			jobs = append(jobs, job{t, mt, f, c0, c1})
			total += est
		}
	}
	// Uploads or temporary files a killed run left for the files still to
	// write go first; other shards' (perhaps running now) are not touched.
	var todo []string
	for _, jb := range jobs {
		todo = append(todo, jb.f.Name)
	}
	if n, err := st.Sweep(todo); err != nil {
		return nil, err
	} else if n > 0 {
		fmt.Fprintf(o.Info, "Removed %d incomplete file(s) an interrupted run left\n", n)
	}
	plog, err := st.Log(progressFile(db, o.Shard, o.Shards))
	if err != nil {
		return nil, err
	}
	defer plog.Close()
	var mu sync.Mutex
	meter := startMeter(o.Info, "csv", total, o.Progress, 10*time.Second)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Threads)
	for _, jb := range jobs {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			f := jb.f
			if err := writeDataFile(gctx, st, jb.t, &f, jb.c0, jb.c1, o.Seed, meter); err != nil {
				return err
			}
			line, _ := json.Marshal(f)
			mu.Lock()
			defer mu.Unlock()
			jb.mt.Files = append(jb.mt.Files, f)
			if err := plog.Add(f.Name+".json", line); err != nil {
				return fmt.Errorf("writing %s: %v", progressFile(db, o.Shard, o.Shards), err)
			}
			return nil
		})
	}
	err = g.Wait()
	meter.finish()
	if err != nil {
		return nil, err
	}
	for i := range m.Tables {
		m.Tables[i].Rows = 0
		for _, f := range m.Tables[i].Files {
			m.Tables[i].Rows += f.Rows
		}
		sort.Slice(m.Tables[i].Files, func(a, b int) bool { return m.Tables[i].Files[a].Unit < m.Tables[i].Files[b].Unit })
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := writeObject(st, mine, append(b, '\n')); err != nil {
		return nil, err
	}
	if err := writeObject(st, importFile(db), []byte(ImportSQL(m, st.Location(), o.Threads))); err != nil {
		return nil, err
	}
	return m, nil
}

// chunksPerFile sizes files from the first chunk's encoded size: a function
// of the data alone, so file boundaries do not depend on --threads.
func chunksPerFile(t *dataset.Table, o Options) int64 {
	if t.Chunks() == 0 {
		return 1
	}
	first, n := t.ChunkRange(0)
	var size int64
	enc := csvgen.NewEncoder(64 << 10)
	enc.OnRow = func(e *csvgen.Encoder) error {
		size += int64(len(e.Buf))
		e.Buf = e.Buf[:0]
		return nil
	}
	if err := t.Gen(random.NewRand(o.Seed, hashName(t.Name), 0), first, n, enc); err != nil || size == 0 {
		return 1
	}
	return max(1, o.FileSize/size)
}

// writeDataFile writes one data file and fills in its size and SHA-256,
// hashed as it is written.
func writeDataFile(ctx context.Context, st Store, t *dataset.Table, f *ManifestFile, c0, c1 int64, seed uint64, meter *meter) (err error) {
	obj, err := st.Create(f.Name)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			obj.Abort()
		}
	}()
	h := sha256.New()
	out := io.MultiWriter(h, obj)
	var size int64
	enc := csvgen.NewEncoder(256 << 10)
	enc.OnRow = func(e *csvgen.Encoder) error {
		if len(e.Buf) < 128<<10 {
			return nil
		}
		return flushEnc(e, out, &size, meter)
	}
	// A header row: Lightning reads it by default (header = true); IMPORT INTO
	// and LOAD DATA skip it (SKIP_ROWS=1, IGNORE 1 LINES).
	for i, c := range t.Columns {
		if i > 0 {
			enc.Buf = append(enc.Buf, ',')
		}
		enc.Buf = append(enc.Buf, c...)
	}
	enc.Buf = append(enc.Buf, '\n')
	for c := c0; c < c1; c++ {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		first, n := t.ChunkRange(c)
		before := enc.Rows
		if err := t.Gen(random.NewRand(seed, hashName(t.Name), uint64(c)), first, n, enc); err != nil {
			return describeWrite(f.Name, err)
		}
		meter.add(enc.Rows-before, 0)
	}
	f.Rows = enc.Rows // rows written (order lines per order vary)
	if err := flushEnc(enc, out, &size, meter); err != nil {
		return describeWrite(f.Name, err)
	}
	if err := obj.Commit(); err != nil {
		return describeWrite(f.Name, err)
	}
	f.Bytes, f.SHA256 = size, hex.EncodeToString(h.Sum(nil))
	return nil
}

func flushEnc(e *csvgen.Encoder, w io.Writer, size *int64, meter *meter) error {
	n, err := w.Write(e.Buf)
	*size += int64(n)
	meter.add(0, int64(n))
	e.Buf = e.Buf[:0]
	return err
}

func describeWrite(path string, err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("writing %s: disk full; free space or choose another --dir (no partial file was left under that name)", path)
	}
	return fmt.Errorf("writing %s: %v", path, err)
}

// writeObject stores a small file whole.
func writeObject(st Store, name string, b []byte) error {
	obj, err := st.Create(name)
	if err != nil {
		return err
	}
	if _, err := obj.Write(b); err != nil {
		obj.Abort()
		return describeWrite(name, err)
	}
	if err := obj.Commit(); err != nil {
		return describeWrite(name, err)
	}
	return nil
}

func readProgress(st Store, name string) (map[string]ManifestFile, error) {
	entries, err := st.ReadLog(name)
	if err != nil {
		return nil, err
	}
	m := map[string]ManifestFile{}
	for _, l := range entries {
		var f ManifestFile
		if json.Unmarshal(l, &f) != nil {
			continue // a line cut by a crash: the file is redone
		}
		m[f.Name] = f
	}
	return m, nil
}

// ImportSQL returns one IMPORT INTO per table, every option spelled out (TiDB
// defaults differ between versions). location is where the TiDB node sees the
// files: a local folder on that node, or s3://... / gs://....
func ImportSQL(m *Manifest, location string, threads int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "-- IMPORT INTO statements for TiDB >= 7.2, made by oltpbench. The files must be readable by the TiDB\n")
	fmt.Fprintf(&b, "-- node the session is connected to (or on S3/GCS); tables must exist and be empty; run %s and the\n", schemaCreateFile(m.DB))
	fmt.Fprintf(&b, "-- %s files first. IMPORT INTO builds the secondary indexes itself.\n", schemaFile(m.DB, "<table>"))
	if strings.HasPrefix(location, "s3://") && !secretInURL.MatchString(location) {
		fmt.Fprintf(&b, "-- The URLs hold no credentials: add &access-key=...&secret-access-key=... (or &role-arn=...) to each\n")
		fmt.Fprintf(&b, "-- FROM, or run `oltpbench import --dir URL-with-keys`, which adds them when the statements run.\n")
	}
	for _, t := range m.Tables {
		if t.TotalFiles == 0 && len(t.Files) == 0 {
			continue // manifests before total_files have only their files
		}
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = quoteIdent(c)
		}
		// The pattern goes in the path, before a URL's parameters.
		base, query, _ := strings.Cut(location, "?")
		loc := strings.TrimRight(base, "/") + "/" + m.DB + "." + t.Name + ".*.csv"
		if query != "" {
			loc += "?" + query
		}
		fmt.Fprintf(&b, "IMPORT INTO %s.%s (%s) FROM '%s' FORMAT 'csv' WITH CHARACTER_SET='utf8mb4', FIELDS_TERMINATED_BY=',', FIELDS_ENCLOSED_BY='\"', FIELDS_ESCAPED_BY='\\\\', FIELDS_DEFINED_NULL_BY='\\\\N', LINES_TERMINATED_BY='\\n', SKIP_ROWS=1, SPLIT_FILE=FALSE, THREAD=%d, CHECKSUM_TABLE='required', DISABLE_TIKV_IMPORT_MODE=FALSE;\n",
			quoteIdent(m.DB), quoteIdent(t.Name), strings.Join(cols, ","), strings.ReplaceAll(loc, "'", "''"), max(threads, 1))
	}
	return b.String()
}

// ReadManifest loads the store's manifest for db ("" when it holds one):
// the whole set, or the parts of all its shards merged into one. A set with
// a shard missing or incomplete (its part is written last) is refused, by
// shard.
func ReadManifest(st Store, db string) (*Manifest, error) {
	whole, err := st.List("-manifest.json")
	if err != nil {
		return nil, err
	}
	json1, err := st.List(".json")
	if err != nil {
		return nil, err
	}
	parts := map[string][]string{}
	for _, n := range json1 {
		if m := partName.FindStringSubmatch(n); m != nil {
			parts[m[1]] = append(parts[m[1]], n)
		}
	}
	if db == "" {
		dbs := map[string]bool{}
		for _, n := range whole {
			dbs[strings.TrimSuffix(n, "-manifest.json")] = true
		}
		for d := range parts {
			dbs[d] = true
		}
		switch len(dbs) {
		case 0:
			return nil, fmt.Errorf("no *-manifest.json in %s: make the files with oltpbench csv (or --load-mode=csv) first", st.Location())
		case 1:
			for d := range dbs {
				db = d
			}
		default:
			return nil, fmt.Errorf("%s holds manifests of several databases: name one with --mysql-db", st.Location())
		}
	}
	if st.Size(manifestFile(db)) >= 0 {
		return readManifestFile(st, manifestFile(db))
	}
	if len(parts[db]) == 0 {
		return nil, fmt.Errorf("no %s in %s: make the files with oltpbench csv (or --load-mode=csv) first", manifestFile(db), st.Location())
	}
	var ms []*Manifest
	for _, n := range parts[db] {
		m, err := readManifestFile(st, n)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return mergeParts(st, db, ms)
}

func readManifestFile(st Store, name string) (*Manifest, error) {
	b, err := st.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("cannot read the manifest: %v", err)
	}
	m := &Manifest{store: st}
	if err := json.Unmarshal(b, m); err != nil || m.Format != ManifestFormat {
		return nil, fmt.Errorf("%s is not an oltpbench %s manifest", name, ManifestFormat)
	}
	return m, nil
}

// mergeParts makes one manifest of the shards' parts, refusing sets with a
// shard missing, parts of other generations, or files missing.
func mergeParts(st Store, db string, ms []*Manifest) (*Manifest, error) {
	n := ms[0].Shards
	have := map[int]*Manifest{}
	for _, m := range ms {
		if m.Shards != n || m.Seed != ms[0].Seed || m.Workload != ms[0].Workload || len(m.Tables) != len(ms[0].Tables) {
			return nil, fmt.Errorf("%s holds manifest parts of different generations of database %q (shards, seed or tables differ): keep one set", st.Location(), db)
		}
		have[m.Shard] = m
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if have[i] == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("shard(s) %s of database %q are missing or incomplete in %s: run (or --resume) oltpbench csv with --shard=%s there",
			strings.Join(missing, ", "), db, st.Location(), missing[0])
	}
	out := *have[1]
	out.Shard, out.Shards = 0, 0
	out.Tables = make([]ManifestTable, len(have[1].Tables))
	for ti := range out.Tables {
		t := have[1].Tables[ti]
		t.Files, t.Rows = nil, 0
		for i := 1; i <= n; i++ {
			pt := have[i].Tables[ti]
			t.Files = append(t.Files, pt.Files...)
			t.Rows += pt.Rows
		}
		sort.Slice(t.Files, func(a, b int) bool { return t.Files[a].Unit < t.Files[b].Unit })
		if int64(len(t.Files)) != t.TotalFiles {
			return nil, fmt.Errorf("table %s of database %q has %d of its %d files in the shards' parts: make the set again", t.Name, db, len(t.Files), t.TotalFiles)
		}
		out.Tables[ti] = t
	}
	return &out, nil
}

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
	o.store = m.store
	pool, srv, err := connect(ctx, co, o.Threads)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	ds := Dataset{Workload: m.Workload, Meta: m.Meta}
	var units [][]unit
	var kinds []string
	for ti, mt := range m.Tables {
		ddl, err := m.store.ReadFile(mt.SchemaFile)
		if err != nil {
			return nil, fmt.Errorf("schema of %s: %v", mt.Name, err)
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
	return run(ctx, pool, co.DB, srv, ds, units, "file:"+strings.Join(kinds, ","), rep, o)
}

// importTiDB creates the tables with their indexes and runs IMPORT INTO, which
// builds indexes itself and needs empty tables.
func importTiDB(ctx context.Context, pool *conn.Pool, m *Manifest, ds Dataset, o Options) (*Report, error) {
	rep := &Report{Mode: "import", ModeReason: "TiDB IMPORT INTO", IndexTiming: "import", IxReason: "IMPORT INTO builds indexes"}
	db := pool.DB(0)
	start := time.Now()
	for _, t := range ds.Tables {
		if _, err := db.ExecContext(ctx, strings.Replace(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t.DDL), ";")), "CREATE TABLE ", "CREATE TABLE IF NOT EXISTS ", 1)); err != nil {
			return nil, fmt.Errorf("creating %s: %v", t.Name, err)
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
	for _, q := range strings.Split(ImportSQL(m, loc, o.Threads), "\n") {
		if !strings.HasPrefix(q, "IMPORT INTO") {
			continue
		}
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			where := "the files must be on the TiDB node at " + m.store.Location() + ", or in object storage"
			if strings.Contains(loc, "://") {
				where = "TiDB must reach " + m.store.Location() + " with the credentials given"
			}
			return nil, fmt.Errorf("IMPORT INTO failed: %s (%s)", redact(err.Error()), where)
		}
		for rows.Next() {
		}
		rows.Close()
	}
	rep.Load = time.Since(t0)
	for _, t := range m.Tables {
		rep.Rows += t.Rows
	}
	rep.Total = time.Since(start)
	return rep, nil
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
