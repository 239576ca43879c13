package loader

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	m.Extends = ds.Extends
	for _, v := range ds.Views {
		if err := writeObject(st, viewFile(db, v.Name), []byte(v.DDL+";\n")); err != nil {
			return nil, err
		}
		m.Views = append(m.Views, ManifestView{Name: v.Name, SchemaFile: viewFile(db, v.Name)})
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
