package loader

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/oltpbench/oltpbench/csvgen"
	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
)

// WriteCSV writes the dataset as CSV files in o.Dir, split near o.FileSize,
// with schema files, a manifest and IMPORT INTO statements. Files are the same
// byte for byte at any thread count. Each file is written under a temporary
// name and renamed when complete; o.Resume keeps the files an interrupted run
// completed. Its phases are csvWrite's, as Load's are job's.
func WriteCSV(ctx context.Context, db string, ds Dataset, o Options) (*Manifest, error) {
	w := &csvWrite{db: db, ds: ds, o: o}
	for _, phase := range []func(context.Context) error{w.open, w.schema, w.plan, w.sweep, w.write, w.finish} {
		if err := phase(ctx); err != nil {
			return nil, err
		}
	}
	return w.m, nil
}

// csvWrite is one WriteCSV: the store, the manifest it fills, the files
// done before (resume) and the files still to write.
type csvWrite struct {
	db    string
	ds    Dataset
	o     Options
	st    Store
	m     *Manifest
	done  map[string]ManifestFile
	mine  string // this shard's manifest (the whole manifest without shards)
	files []fileTask
	total int64 // estimated rows to write
}

// fileTask is one data file to write: chunks c0 up to c1 of a table.
type fileTask struct {
	t      *dataset.Table
	mt     *ManifestTable
	f      ManifestFile
	c0, c1 int64
}

// open checks the options and the store, and reads what an interrupted
// run completed.
func (w *csvWrite) open(context.Context) error {
	if err := w.o.defaults(); err != nil {
		return err
	}
	st, err := OpenStore(w.o.Dir, w.o.FileSize)
	if err != nil {
		return err
	}
	if w.db == "" {
		return errors.New("no database name for the files: set --mysql-db")
	}
	if err := st.Check(true); err != nil {
		return err
	}
	w.st = st
	w.m = &Manifest{Format: ManifestFormat, DB: w.db, Workload: w.ds.Workload, Seed: w.o.Seed, Meta: w.ds.Meta, Shard: w.o.Shard, Shards: w.o.Shards, store: st}
	if w.done, err = readProgress(st, progressFile(w.db, w.o.Shard, w.o.Shards)); err != nil {
		return err
	}
	w.mine = manifestFile(w.db)
	if w.o.Shards > 0 {
		w.mine = manifestPart(w.db, w.o.Shard, w.o.Shards)
		if st.Size(manifestFile(w.db)) >= 0 {
			return fmt.Errorf("%s already holds the whole set of database %q: shards go to another --dir", st.Location(), w.db)
		}
	}
	if !w.o.Resume && (len(w.done) > 0 || st.Size(w.mine) >= 0) {
		return fmt.Errorf("%s already holds files of database %q: use --resume to finish them, another --dir, or remove them", st.Location(), w.db)
	}
	return nil
}

// schema writes each table's and view's DDL and the database's, and the
// manifest's tables.
func (w *csvWrite) schema(context.Context) error {
	db := w.db
	for i := range w.ds.Tables {
		t := &w.ds.Tables[i]
		split, err := SplitDDL(t.DDL)
		if err != nil {
			return fmt.Errorf("table %s: %w", t.Name, err)
		}
		if err := writeObject(w.st, schemaFile(db, t.Name), []byte(split.Combined+";\n")); err != nil {
			return err
		}
		mt := ManifestTable{Name: t.Name, Columns: t.Columns, Rows: t.Rows, KeyColumn: t.KeyColumn, SchemaFile: schemaFile(db, t.Name)}
		mt.ChunksPerFile = chunksPerFile(t, w.o)
		mt.TotalFiles = (t.Chunks() + mt.ChunksPerFile - 1) / mt.ChunksPerFile
		w.m.Tables = append(w.m.Tables, mt)
	}
	w.m.Extends = w.ds.Extends
	for _, v := range w.ds.Views {
		if err := writeObject(w.st, viewFile(db, v.Name), []byte(v.DDL+";\n")); err != nil {
			return err
		}
		w.m.Views = append(w.m.Views, ManifestView{Name: v.Name, SchemaFile: viewFile(db, v.Name)})
	}
	return writeObject(w.st, schemaCreateFile(db), []byte("CREATE DATABASE IF NOT EXISTS "+quoteIdent(db)+";\n"))
}

// plan lists the data files to write. With shards, file n of every table
// goes to shard n mod shards (in table order within a number): names and
// bytes are those of a one-machine generation, each written by one shard.
// A file an interrupted run completed goes into the manifest as it is.
func (w *csvWrite) plan(context.Context) error {
	for i := range w.ds.Tables {
		t, mt := &w.ds.Tables[i], &w.m.Tables[i]
		for c0, n := int64(0), int64(0); c0 < t.Chunks(); c0, n = c0+mt.ChunksPerFile, n+1 {
			if w.o.Shards > 0 && (int(n)*len(w.ds.Tables)+i)%w.o.Shards != w.o.Shard-1 {
				continue
			}
			c1 := min(c0+mt.ChunksPerFile, t.Chunks())
			first, _ := t.ChunkRange(c0)
			lf, ln := t.ChunkRange(c1 - 1)
			f := ManifestFile{Name: dataFile(w.db, t.Name, n), Unit: n, FirstRow: first, Rows: lf + ln - first, table: t.Name}
			if t.KeyOf != nil {
				f.FirstKey, f.LastKey = t.KeyOf(first), t.KeyOf(lf+ln-1)
			}
			if d, ok := w.done[f.Name]; ok && w.st.Size(f.Name) == d.Bytes {
				mt.Files = append(mt.Files, d)
				continue
			}
			w.files = append(w.files, fileTask{t, mt, f, c0, c1})
			w.total += t.EstimatedRowsOf(f.Rows)
		}
	}
	return nil
}

// sweep removes the uploads or temporary files a killed run left for the
// files still to write; other shards' (perhaps running now) are not touched.
func (w *csvWrite) sweep(context.Context) error {
	var todo []string
	for _, ft := range w.files {
		todo = append(todo, ft.f.Name)
	}
	n, err := w.st.Sweep(todo)
	if err != nil {
		return err
	}
	if n > 0 {
		fmt.Fprintf(w.o.Info, "Removed %d incomplete file(s) an interrupted run left\n", n)
	}
	return nil
}

// write writes the files on o.Threads, each logged as done when complete.
func (w *csvWrite) write(ctx context.Context) error {
	progress := progressFile(w.db, w.o.Shard, w.o.Shards)
	plog, err := w.st.Log(progress)
	if err != nil {
		return err
	}
	defer plog.Close()
	if w.st.WritesHoldThreads() && runtime.GOMAXPROCS(0) < w.o.Threads {
		// A writer blocked in the kernel keeps the scheduler's P (the right
		// to run Go code) until the runtime notices, often long after: with
		// no more Ps than cores, a core then idles while the disk writes
		// (15% of two cores for TPC-H's CSV). One P per writer.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(w.o.Threads))
	}
	var mu sync.Mutex
	meter := startMeter(w.o.Info, "csv", w.total, w.o.Progress, 10*time.Second)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(w.o.Threads)
	for _, ft := range w.files {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			f := ft.f
			if err := writeDataFile(gctx, w.st, ft.t, &f, ft.c0, ft.c1, w.o.Seed, meter); err != nil {
				return err
			}
			line, _ := json.Marshal(f)
			mu.Lock()
			defer mu.Unlock()
			ft.mt.Files = append(ft.mt.Files, f)
			if err := plog.Add(f.Name+".json", line); err != nil {
				return fmt.Errorf("writing %s: %w", progress, err)
			}
			return nil
		})
	}
	err = g.Wait()
	meter.finish()
	return err
}

// finish writes the manifest (rows counted from its files) and the IMPORT
// INTO statements.
func (w *csvWrite) finish(context.Context) error {
	for i := range w.m.Tables {
		mt := &w.m.Tables[i]
		mt.Rows = 0
		for _, f := range mt.Files {
			mt.Rows += f.Rows
		}
		sort.Slice(mt.Files, func(a, b int) bool { return mt.Files[a].Unit < mt.Files[b].Unit })
	}
	b, _ := json.MarshalIndent(w.m, "", "  ")
	if err := writeObject(w.st, w.mine, append(b, '\n')); err != nil {
		return err
	}
	return writeObject(w.st, importFile(w.db), []byte(ImportSQL(w.m, w.st.Location(), w.o.Threads)))
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
	return fmt.Errorf("writing %s: %w", path, err)
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
