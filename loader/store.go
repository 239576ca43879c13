package loader

import (
	"errors"
	"fmt"
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
	// Check makes sure files can be written, creating the place if needed.
	Check() error
	// Create starts an object that appears under name only when Commit
	// succeeds; Abort leaves nothing under that name.
	Create(name string) (Object, error)
	Open(name string) (io.ReadCloser, error)
	ReadFile(name string) ([]byte, error)
	// Size is the size of a complete object, or -1 when there is none.
	Size(name string) int64
	// List names the complete objects whose names end with suffix, sorted.
	List(suffix string) ([]string, error)
	// Append opens a log that lines are added to (the CSV progress log).
	Append(name string) (io.WriteCloser, error)
}

// Object is a file being written.
type Object interface {
	io.Writer
	Commit() error
	Abort()
}

// OpenStore returns the store for --dir.
func OpenStore(dir string) (Store, error) {
	if dir == "" {
		return nil, errors.New("no output folder: set --dir")
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

func (d dirStore) Check() error {
	if err := os.MkdirAll(string(d), 0o755); err != nil {
		return fmt.Errorf("cannot create --dir %s: %v; choose a writable folder", d, errors.Unwrap(err))
	}
	f, err := os.CreateTemp(string(d), ".oltpbench-probe-*")
	if err != nil {
		return fmt.Errorf("cannot write in --dir %s: %v; choose a writable folder", d, errors.Unwrap(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

func (d dirStore) Create(name string) (Object, error) {
	tmp, err := os.CreateTemp(string(d), "."+name+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("cannot write in %s: %v", d, errors.Unwrap(err))
	}
	return &dirObject{w: newFileWriter(tmp), tmp: tmp.Name(), final: d.path(name)}, nil
}

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

func (d dirStore) Append(name string) (io.WriteCloser, error) {
	f, err := os.OpenFile(d.path(name), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot write in %s: %v", d, errors.Unwrap(err))
	}
	return f, nil
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
