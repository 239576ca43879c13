package loader

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
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
	// Extends and Views are the dataset's (dataset.Dataset).
	Extends string         `json:"extends,omitempty"`
	Views   []ManifestView `json:"views,omitempty"`
	store   Store
}

// Summary says what was written, where.
func (m *Manifest) Summary(w io.Writer) {
	var files, rows int64
	for _, t := range m.Tables {
		files += int64(len(t.Files))
		rows += t.Rows
	}
	fmt.Fprintf(w, "Wrote %d rows in %d CSV files to %s: %s-manifest.json lists them; %s-import.sql holds IMPORT INTO statements\n", rows, files, m.Location(), m.DB, m.DB)
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

// ManifestView is a view, made after the tables; its file is named as
// TiDB Lightning names a view's.
type ManifestView struct {
	Name       string `json:"name"`
	SchemaFile string `json:"schema_file"`
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
func schemaCreateFile(db string) string { return db + "-schema-create.sql" }

func schemaFile(db, table string) string { return db + "." + table + "-schema.sql" }

func viewFile(db, view string) string { return db + "." + view + "-schema-view.sql" }

func dataFile(db, table string, n int64) string {
	return fmt.Sprintf("%s.%s.%06d.csv", db, table, n+1)
}

func manifestFile(db string) string { return db + "-manifest.json" }

func importFile(db string) string { return db + "-import.sql" }

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

// ImportSQL returns one IMPORT INTO per table, every option spelled out (TiDB
// defaults differ between versions), after comments on how to run them.
// location is where the TiDB node sees the files: a local folder on that
// node, or s3://... / gs://....
func ImportSQL(m *Manifest, location string, threads int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "-- IMPORT INTO statements for TiDB >= 7.2, made by oltpbench. The files must be readable by the TiDB\n")
	fmt.Fprintf(&b, "-- node the session is connected to (or on S3/GCS); tables must exist and be empty; run %s and the\n", schemaCreateFile(m.DB))
	fmt.Fprintf(&b, "-- %s files first. IMPORT INTO builds the secondary indexes itself.\n", schemaFile(m.DB, "<table>"))
	if strings.HasPrefix(location, "s3://") && !secretInURL.MatchString(location) {
		fmt.Fprintf(&b, "-- The URLs hold no credentials: add &access-key=...&secret-access-key=... (or &role-arn=...) to each\n")
		fmt.Fprintf(&b, "-- FROM, or run `oltpbench import --dir URL-with-keys`, which adds them when the statements run.\n")
	}
	for _, q := range importStatements(m, location, threads) {
		b.WriteString(q + ";\n")
	}
	if len(m.Views) > 0 {
		fmt.Fprintf(&b, "-- Then the views: run the %s files.\n", viewFile(m.DB, "<view>"))
	}
	return b.String()
}

// importStatements are the IMPORT INTO statements of ImportSQL, one per table.
func importStatements(m *Manifest, location string, threads int) []string {
	var out []string
	for _, t := range m.Tables {
		if t.TotalFiles == 0 && len(t.Files) == 0 {
			continue // manifests before total_files have only their files
		}
		// The pattern goes in the path, before a URL's parameters.
		base, query, _ := strings.Cut(location, "?")
		loc := strings.TrimRight(base, "/") + "/" + m.DB + "." + t.Name + ".*.csv"
		if query != "" {
			loc += "?" + query
		}
		out = append(out, fmt.Sprintf("IMPORT INTO %s.%s %s FROM '%s' FORMAT 'csv' WITH CHARACTER_SET='utf8mb4', FIELDS_TERMINATED_BY=',', FIELDS_ENCLOSED_BY='\"', FIELDS_ESCAPED_BY='\\\\', FIELDS_DEFINED_NULL_BY='\\\\N', LINES_TERMINATED_BY='\\n', SKIP_ROWS=1, SPLIT_FILE=FALSE, THREAD=%d, CHECKSUM_TABLE='required', DISABLE_TIKV_IMPORT_MODE=FALSE",
			quoteIdent(m.DB), quoteIdent(t.Name), columnList(t.Columns), strings.ReplaceAll(loc, "'", "''"), max(threads, 1)))
	}
	return out
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
		return nil, fmt.Errorf("cannot read the manifest: %w", err)
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
