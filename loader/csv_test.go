package loader

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
)

// testTable has every kind of value the encoders handle, NULLs and quotes included.
func testTable(name string, rows int64, failAt int64) dataset.Table {
	return dataset.Table{
		Name: name, Rows: rows, ChunkRows: 1000, KeyColumn: "id", KeyOf: func(r int64) int64 { return r + 1 },
		DDL:     "CREATE TABLE " + name + " (id BIGINT NOT NULL PRIMARY KEY, v INT, s VARCHAR(40), d DECIMAL(10,2), KEY iv (v))",
		Columns: []string{"id", "v", "s", "d"},
		Gen: func(r *random.Rand, first, n int64, w dataset.RowWriter) error {
			buf := make([]byte, 12)
			for row := first; row < first+n; row++ {
				if row == failAt {
					return errors.New("generator failed")
				}
				w.Int(row + 1)
				if row%7 == 0 {
					w.Null()
				} else {
					w.Int(r.Uniform(1, 1000))
				}
				r.Digits(buf, "@@,\"#\\@@##@")
				w.Bytes(buf)
				w.Float(float64(r.Uniform(0, 99999))/100, 2)
				if err := w.EndRow(); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

func writeDir(t *testing.T, threads int, fileSize int64) (string, *Manifest) {
	t.Helper()
	dir := t.TempDir()
	ds := Dataset{Workload: "test", Tables: []dataset.Table{testTable("a", 25500, -1), testTable("b", 3000, -1), testTable("empty", 0, -1)}}
	m, err := WriteCSV(context.Background(), "db1", ds, Options{Dir: dir, Threads: threads, Seed: 7, FileSize: fileSize, Progress: "off"})
	if err != nil {
		t.Fatal(err)
	}
	return dir, m
}

func listFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		out[e.Name()] = b
	}
	return out
}

func TestCSVSameAtAnyThreadCount(t *testing.T) {
	d1, _ := writeDir(t, 1, 200<<10)
	d4, m := writeDir(t, 4, 200<<10)
	f1, f4 := listFiles(t, d1), listFiles(t, d4)
	if len(f1) != len(f4) || len(f1) < 8 {
		t.Fatalf("%d files vs %d", len(f1), len(f4))
	}
	for name, b := range f1 {
		if name == "db1-import.sql" {
			continue // names the folder
		}
		if string(f4[name]) != string(b) {
			t.Errorf("%s differs between 1 and 4 threads", name)
		}
	}
	var names []string
	for n := range f1 {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, want := range []string{"db1-schema-create.sql", "db1.a-schema.sql", "db1.a.000001.csv", "db1.b.000001.csv", "db1-manifest.json", "db1-import.sql"} {
		if _, ok := f1[want]; !ok {
			t.Errorf("missing %s in %v", want, names)
		}
	}
	// The manifest's digests and counts are the files'.
	var rows int64
	for _, mt := range m.Tables {
		for _, f := range mt.Files {
			sum := sha256.Sum256(f4[f.Name])
			if hex.EncodeToString(sum[:]) != f.SHA256 || int64(len(f4[f.Name])) != f.Bytes {
				t.Errorf("%s: manifest digest or size wrong", f.Name)
			}
			lines := strings.Count(string(f4[f.Name]), "\n") - 1 // header
			if int64(lines) != f.Rows {
				t.Errorf("%s: %d lines, manifest says %d rows", f.Name, lines, f.Rows)
			}
			rows += f.Rows
		}
	}
	if rows != 28500 {
		t.Errorf("manifest rows %d", rows)
	}
	if !strings.HasPrefix(string(f1["db1.a.000001.csv"]), "id,v,s,d\n1,\\N,") {
		t.Errorf("file does not start with a header and \\N for NULL: %q", string(f1["db1.a.000001.csv"][:30]))
	}
}

func TestImportSQLParsesWithTiDBParser(t *testing.T) {
	_, m := writeDir(t, 2, 1<<20)
	sql := ImportSQL(m, "s3://bucket/prefix?region=us-west-2", 8)
	p := parser.New()
	stmts, _, err := p.Parse(sql, "", "")
	if err != nil {
		t.Fatalf("%v\n%s", err, sql)
	}
	if len(stmts) != 2 {
		t.Fatalf("%d statements, want one per non-empty table", len(stmts))
	}
	for _, st := range stmts {
		imp, ok := st.(*ast.ImportIntoStmt)
		if !ok {
			t.Fatalf("not IMPORT INTO: %T", st)
		}
		opts := map[string]bool{}
		for _, o := range imp.Options {
			opts[strings.ToLower(o.Name)] = true
		}
		for _, want := range []string{"fields_terminated_by", "fields_enclosed_by", "fields_escaped_by", "fields_defined_null_by", "lines_terminated_by", "skip_rows", "checksum_table", "thread", "character_set"} {
			if !opts[want] {
				t.Errorf("option %s not spelled out", want)
			}
		}
	}
	// Schema files parse too.
	for _, mt := range m.Tables {
		b, _ := m.store.ReadFile(mt.SchemaFile)
		if _, _, err := p.Parse(string(b), "", ""); err != nil {
			t.Errorf("%s: %v", mt.SchemaFile, err)
		}
	}
}

// A failing file leaves nothing under its final name; --resume completes the folder.
func TestCSVFailureLeavesNoPartialFileAndResumes(t *testing.T) {
	dir := t.TempDir()
	bad := Dataset{Workload: "test", Tables: []dataset.Table{testTable("a", 25500, 20500)}}
	_, err := WriteCSV(context.Background(), "db1", bad, Options{Dir: dir, Threads: 2, Seed: 7, FileSize: 100 << 10, Progress: "off"})
	if err == nil {
		t.Fatal("no error from a failing generator")
	}
	files := listFiles(t, dir)
	if _, ok := files["db1-manifest.json"]; ok {
		t.Error("manifest written for an incomplete folder")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	good := Dataset{Workload: "test", Tables: []dataset.Table{testTable("a", 25500, -1)}}
	if _, err := WriteCSV(context.Background(), "db1", good, Options{Dir: dir, Threads: 2, Seed: 7, FileSize: 100 << 10, Progress: "off"}); err == nil {
		t.Fatal("a second run without --resume accepted a folder with files")
	}
	if _, err := WriteCSV(context.Background(), "db1", good, Options{Dir: dir, Threads: 2, Seed: 7, FileSize: 100 << 10, Progress: "off", Resume: true}); err != nil {
		t.Fatal(err)
	}
	ref := t.TempDir()
	WriteCSV(context.Background(), "db1", good, Options{Dir: ref, Threads: 1, Seed: 7, FileSize: 100 << 10, Progress: "off"})
	want, got := listFiles(t, ref), listFiles(t, dir)
	for n, b := range want {
		if n != "db1-import.sql" && string(got[n]) != string(b) {
			t.Errorf("%s differs after resume", n)
		}
	}
}

func TestCSVUnwritableDir(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	_, err := WriteCSV(context.Background(), "db1", Dataset{Tables: []dataset.Table{testTable("a", 10, -1)}}, Options{Dir: filepath.Join(f, "sub"), Progress: "off"})
	if err == nil || !strings.Contains(err.Error(), "--dir") {
		t.Fatalf("err %v", err)
	}
}

func TestParseShard(t *testing.T) {
	if i, n, err := ParseShard("2/3"); err != nil || i != 2 || n != 3 {
		t.Fatal(i, n, err)
	}
	for _, s := range []string{"0/3", "4/3", "x", "1/0", "1-2"} {
		if _, _, err := ParseShard(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// CSV files are the same on every machine, so a shard of them is refused
// rather than silently written whole.
// Shards write disjoint files into one place, each with a manifest part;
// their union is the one-machine generation byte for byte, and reading the
// set merges the parts, or names the shard that is missing.
func TestCSVShards(t *testing.T) {
	wholeDir, whole := writeDir(t, 2, 20<<10)
	ds := Dataset{Workload: "test", Tables: []dataset.Table{testTable("a", 25500, -1), testTable("b", 3000, -1), testTable("empty", 0, -1)}}
	dir := t.TempDir()
	for _, i := range []int{2, 3, 1} {
		if _, err := WriteCSV(context.Background(), "db1", ds, Options{Dir: dir, Threads: i, Seed: 7, FileSize: 20 << 10, Progress: "off", Shard: i, Shards: 3}); err != nil {
			t.Fatalf("shard %d/3: %v", i, err)
		}
		if i == 3 {
			// Two of three parts: the set is refused, naming the missing shard.
			st, _ := OpenStore(dir, 0)
			if _, err := ReadManifest(st, ""); err == nil || !strings.Contains(err.Error(), "shard(s) 1/3 of database \"db1\" are missing") {
				t.Errorf("incomplete set: %v", err)
			}
		}
	}
	a, b := listFiles(t, wholeDir), listFiles(t, dir)
	var dataA, dataB int
	for name, bytesA := range a {
		if !strings.HasSuffix(name, ".csv") {
			continue
		}
		dataA++
		if !bytes.Equal(bytesA, b[name]) {
			t.Errorf("%s differs between the shards and one machine", name)
		}
	}
	for name := range b {
		if strings.HasSuffix(name, ".csv") {
			dataB++
		}
	}
	if dataA != dataB || dataA < 4 {
		t.Errorf("%d data files from one machine, %d from the shards", dataA, dataB)
	}
	// The same statements; THREAD follows each writer's --threads.
	thread := regexp.MustCompile(`THREAD=\d+`)
	norm := func(b []byte, dir string) []byte {
		return bytes.ReplaceAll(thread.ReplaceAll(b, nil), []byte(dir), []byte("DIR"))
	}
	if !bytes.Equal(norm(a["db1-import.sql"], wholeDir), norm(b["db1-import.sql"], dir)) {
		t.Errorf("import statements differ:\n%s\n%s", a["db1-import.sql"], b["db1-import.sql"])
	}
	st, _ := OpenStore(dir, 0)
	m, err := ReadManifest(st, "db1")
	if err != nil {
		t.Fatal(err)
	}
	for ti := range whole.Tables {
		w, g := whole.Tables[ti], m.Tables[ti]
		if w.Rows != g.Rows || len(w.Files) != len(g.Files) {
			t.Errorf("table %s: %d rows in %d files merged, %d in %d from one machine", w.Name, g.Rows, len(g.Files), w.Rows, len(w.Files))
			continue
		}
		for i := range w.Files {
			if w.Files[i].SHA256 != g.Files[i].SHA256 || w.Files[i].Unit != g.Files[i].Unit {
				t.Errorf("%s: merged manifest differs", w.Files[i].Name)
			}
		}
	}
	// A shard already written is refused without --resume, and the whole set beside shards too.
	if _, err := WriteCSV(context.Background(), "db1", ds, Options{Dir: dir, Seed: 7, FileSize: 20 << 10, Progress: "off", Shard: 2, Shards: 3}); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("second write of a shard: %v", err)
	}
	// --resume of a shard keeps its complete files (its own progress log) and rewrites its part alike.
	before := listFiles(t, dir)
	os.Remove(filepath.Join(dir, "db1-manifest.2-of-3.json"))
	if _, err := WriteCSV(context.Background(), "db1", ds, Options{Dir: dir, Seed: 7, FileSize: 20 << 10, Progress: "off", Shard: 2, Shards: 3, Resume: true}); err != nil {
		t.Fatalf("resume of shard 2/3: %v", err)
	}
	for name, b := range listFiles(t, dir) {
		if !bytes.Equal(b, before[name]) {
			t.Errorf("%s changed on resume", name)
		}
	}
	if _, err := WriteCSV(context.Background(), "db1", ds, Options{Dir: wholeDir, Seed: 7, FileSize: 20 << 10, Progress: "off", Shard: 1, Shards: 2}); err == nil || !strings.Contains(err.Error(), "whole set") {
		t.Errorf("a shard beside the whole set: %v", err)
	}
}

// Writers to a local folder each have a P while they write (an O_DIRECT write
// holds its thread in the kernel), and the setting is given back after.
func TestCSVWritersHaveAPEach(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	threads := before + 3
	var mu sync.Mutex
	seen := 0
	tb := testTable("a", 5000, -1)
	gen := tb.Gen
	tb.Gen = func(r *random.Rand, first, n int64, w dataset.RowWriter) error {
		mu.Lock()
		seen = max(seen, runtime.GOMAXPROCS(0))
		mu.Unlock()
		return gen(r, first, n, w)
	}
	ds := Dataset{Workload: "test", Tables: []dataset.Table{tb}}
	if _, err := WriteCSV(context.Background(), "db1", ds, Options{Dir: t.TempDir(), Threads: threads, Seed: 7, FileSize: 50 << 10, Progress: "off"}); err != nil {
		t.Fatal(err)
	}
	if seen < threads {
		t.Errorf("GOMAXPROCS %d while %d writers wrote", seen, threads)
	}
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS %d after the write, %d before", got, before)
	}
}
