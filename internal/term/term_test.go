package term

import (
	"bytes"
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
