package term

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// /dev/null is a character device but no terminal; a buffer is no file.
func TestNotTerminals(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	st, _ := null.Stat()
	if st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is not a character device here", os.DevNull)
	}
	if Is(null) || Is(&bytes.Buffer{}) {
		t.Error("took /dev/null or a buffer for a terminal")
	}
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	if Is(r) || Is(w) {
		t.Error("took a pipe for a terminal")
	}
}

// TestIsUnwraps: a writer that wraps another is a terminal when the one it
// wraps is (pipes and buffers are not).
func TestIsUnwraps(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if Is(wrapped{w}) || Is(wrapped{wrapped{&bytes.Buffer{}}}) {
		t.Error("a pipe or a buffer, wrapped, is a terminal")
	}
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil || !Is(pty) {
		t.Skipf("no pseudo-terminal to wrap here (%v)", err)
	}
	defer pty.Close()
	if !Is(wrapped{wrapped{pty}}) {
		t.Error("a terminal, wrapped twice, is not one")
	}
}

type wrapped struct{ w io.Writer }

func (x wrapped) Write(b []byte) (int, error) { return x.w.Write(b) }
func (x wrapped) Unwrap() io.Writer           { return x.w }
