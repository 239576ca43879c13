package loader

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The folder store: an object appears under its name only once committed,
// an aborted one leaves nothing, and temporary names are never listed.
func TestDirStoreCommitAbort(t *testing.T) {
	dir := t.TempDir()
	st, err := OpenStore(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Check(true); err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), 200000) // 3.2 MB: whole O_DIRECT blocks and a tail
	obj, err := st.Create("db.t.000001.csv")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := obj.Write(data); err != nil {
		t.Fatal(err)
	}
	if st.Size("db.t.000001.csv") != -1 {
		t.Error("object visible before Commit")
	}
	if names, _ := st.List(".csv"); len(names) != 0 {
		t.Errorf("List shows an uncommitted object: %v", names)
	}
	if err := obj.Commit(); err != nil {
		t.Fatal(err)
	}
	if st.Size("db.t.000001.csv") != int64(len(data)) {
		t.Errorf("size %d, want %d", st.Size("db.t.000001.csv"), len(data))
	}
	r, err := st.Open("db.t.000001.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	r.Close()
	if !bytes.Equal(got, data) {
		t.Error("read back differs")
	}

	ab, err := st.Create("db.t.000002.csv")
	if err != nil {
		t.Fatal(err)
	}
	ab.Write(data[:5000])
	ab.Abort()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "db.t.000001.csv" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	if names, _ := st.List(".csv"); strings.Join(names, ",") != "db.t.000001.csv" {
		t.Errorf("List: %v", names)
	}
	if st.Location() != dir && !filepath.IsAbs(st.Location()) {
		t.Errorf("Location %q is not absolute", st.Location())
	}
}

// Data files are written with O_DIRECT where the file system takes it.
func TestDirStoreUsesODirect(t *testing.T) {
	dir := t.TempDir()
	f, err := os.CreateTemp(dir, "probe")
	if err != nil {
		t.Fatal(err)
	}
	w := newFileWriter(f)
	fd, err := syscall.Open(filepath.Join(dir, "direct-probe"), syscall.O_CREAT|syscall.O_WRONLY|syscall.O_DIRECT, 0o644)
	supported := err == nil
	if supported {
		syscall.Close(fd)
	}
	if w.direct != supported {
		t.Errorf("O_DIRECT %v, the file system supports it: %v", w.direct, supported)
	}
	w.Close()
}

func TestOpenStoreNeedsDir(t *testing.T) {
	if _, err := OpenStore("", 0); err == nil || !strings.Contains(err.Error(), "--dir") {
		t.Errorf("OpenStore(\"\"): %v", err)
	}
}
