package loader

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/oltpbench/oltpbench/internal/options"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Store is where the loader's files live: CSV data, schema files, the
// manifest, the import statements and the CSV progress log. A folder
// implements it; object storage is a second implementation.
type Store interface {
	// Location is where a server reads the files from (IMPORT INTO's FROM).
	Location() string
	// Check makes sure files can be read, and written if write is set
	// (creating the place if needed).
	Check(write bool) error
	// Create starts an object that appears under name only when Commit
	// succeeds; Abort leaves nothing under that name.
	Create(name string) (Object, error)
	Open(name string) (io.ReadCloser, error)
	ReadFile(name string) ([]byte, error)
	// Size is the size of a complete object, or -1 when there is none.
	Size(name string) int64
	// List names the complete objects whose names end with suffix, sorted.
	List(suffix string) ([]string, error)
	// Log opens the record of completed files (the CSV progress log);
	// ReadLog returns its entries, none when there is no log.
	Log(name string) (Log, error)
	ReadLog(name string) ([][]byte, error)
	// Sweep removes what interrupted writes of these names left behind
	// (temporary files, open multipart uploads) and says how many.
	Sweep(names []string) (int, error)
	// WritesHoldThreads says whether a write waits in the kernel for the
	// device (O_DIRECT files), holding its thread meanwhile.
	WritesHoldThreads() bool
}

// Log is an append-only record; an entry is durable when Add returns.
type Log interface {
	Add(key string, entry []byte) error
	Close() error
}

// Object is a file being written.
type Object interface {
	io.Writer
	Commit() error
	Abort()
}

// OpenStore returns the store for --dir: a folder, or an s3:// URL.
// fileSize (0: the default) sizes multipart uploads.
func OpenStore(dir string, fileSize int64) (Store, error) {
	if dir == "" {
		return nil, errors.New("no output folder: set --dir")
	}
	if scheme, _, ok := strings.Cut(dir, "://"); ok {
		switch scheme {
		case "s3":
			return openS3(dir, fileSize)
		case "gs", "gcs", "azure", "azblob":
			return nil, fmt.Errorf("--dir %s://... is not supported: use s3:// (GCS takes it with endpoint=https://storage.googleapis.com and HMAC keys), or a folder", options.Shown(scheme))
		case "file", "local":
			return dirStore(strings.TrimPrefix(dir, scheme+"://")), nil
		default:
			return nil, fmt.Errorf("--dir %s: unknown storage scheme %q: use a folder or s3://bucket/prefix", options.Shown(RedactURL(dir)), scheme)
		}
	}
	return dirStore(dir), nil
}

// dirStore is a local folder. Data goes through O_DIRECT writes; every
// object is written under a temporary name and renamed when complete.
type dirStore string

func (d dirStore) path(name string) string { return filepath.Join(string(d), name) }

func (d dirStore) Location() string {
	if a, err := filepath.Abs(string(d)); err == nil {
		return a
	}
	return string(d)
}

func (d dirStore) Check(write bool) error {
	if !write {
		if st, err := os.Stat(string(d)); err != nil || !st.IsDir() {
			return fmt.Errorf("no folder %s: give --dir the folder written by oltpbench csv", d)
		}
		return nil
	}
	if err := os.MkdirAll(string(d), 0o755); err != nil {
		return fmt.Errorf("cannot create --dir %s: %w; choose a writable folder", d, errors.Unwrap(err))
	}
	f, err := os.CreateTemp(string(d), ".oltpbench-probe-*")
	if err != nil {
		return fmt.Errorf("cannot write in --dir %s: %w; choose a writable folder", d, errors.Unwrap(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

func (d dirStore) Create(name string) (Object, error) {
	tmp, err := os.CreateTemp(string(d), "."+name+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("cannot write in %s: %w", d, errors.Unwrap(err))
	}
	return &dirObject{w: newFileWriter(tmp), tmp: tmp.Name(), final: d.path(name)}, nil
}

// WritesHoldThreads: an O_DIRECT write returns when the disk has the block.
func (d dirStore) WritesHoldThreads() bool { return true }

func (d dirStore) Open(name string) (io.ReadCloser, error) { return os.Open(d.path(name)) }

func (d dirStore) ReadFile(name string) ([]byte, error) { return os.ReadFile(d.path(name)) }

func (d dirStore) Size(name string) int64 {
	st, err := os.Stat(d.path(name))
	if err != nil {
		return -1
	}
	return st.Size()
}

func (d dirStore) List(suffix string) ([]string, error) {
	ents, err := os.ReadDir(string(d))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, suffix) && !strings.HasPrefix(n, ".") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Log on a folder is a JSON-lines file; a line cut by a crash is skipped on
// reading (its file is made again).
func (d dirStore) Log(name string) (Log, error) {
	f, err := os.OpenFile(d.path(name), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot write in %s: %w", d, errors.Unwrap(err))
	}
	return fileLog{f}, nil
}

type fileLog struct{ f *os.File }

func (l fileLog) Add(_ string, entry []byte) error {
	_, err := l.f.Write(append(entry, '\n'))
	return err
}

func (l fileLog) Close() error { return l.f.Close() }

func (d dirStore) ReadLog(name string) ([][]byte, error) {
	b, err := os.ReadFile(d.path(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out, nil
}

// Sweep removes the temporary files of interrupted writes of these names.
func (d dirStore) Sweep(names []string) (int, error) {
	n := 0
	for _, name := range names {
		tmps, _ := filepath.Glob(d.path("." + name + ".tmp-*"))
		for _, t := range tmps {
			if os.Remove(t) == nil {
				n++
			}
		}
	}
	return n, nil
}

type dirObject struct {
	w          *fileWriter
	tmp, final string
	closed     bool
}

func (o *dirObject) Write(p []byte) (int, error) { return o.w.Write(p) }

// Commit writes the tail, syncs and renames the file into place.
func (o *dirObject) Commit() error {
	o.closed = true
	if err := o.w.Close(); err != nil {
		os.Remove(o.tmp)
		return err
	}
	if err := os.Rename(o.tmp, o.final); err != nil {
		os.Remove(o.tmp)
		return err
	}
	return nil
}

func (o *dirObject) Abort() {
	if !o.closed {
		o.w.f.Close()
	}
	os.Remove(o.tmp)
}
