package result

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"b.json", "a.json", "a.log", ".hidden.json", "sub/c.json", ".parts/x-client1.json", "sub/.parts/y.json"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte("{}"), 0o644)
	}
	got, err := Files([]string{dir, filepath.Join(dir, "a.log")})
	for i := range got {
		got[i] = strings.TrimPrefix(got[i], dir+"/")
	}
	if want := []string{"a.json", "b.json", "sub/c.json", "a.log"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Files: %v %v, want %v", got, err, want)
	}
	empty := t.TempDir()
	if _, err := Files([]string{empty}); err == nil || !strings.Contains(err.Error(), "holds no result files") {
		t.Errorf("an empty folder: %v", err)
	}
	if _, err := Files([]string{filepath.Join(dir, "none")}); err == nil || !strings.Contains(err.Error(), "cannot read") {
		t.Errorf("a missing path: %v", err)
	}
}
