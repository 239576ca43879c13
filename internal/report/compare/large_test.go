package compare

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var largeHistory = flag.String("large-history", "", "write the large release history's result files into this folder (scripts/bench-report.sh)")

// The large release history: 20 versions x 24 cells (4 tests x 6 thread
// levels) x 5 repeats, each result as large as a real 300 s run's: 30
// intervals and the server's ~650 global variables.
const (
	largeVersions = 20
	largeRepeats  = 5
)

func writeLargeHistory(t testing.TB, dir string) []string {
	vars := map[string]string{}
	for i := 0; i < 650; i++ {
		vars[fmt.Sprintf("innodb_setting_number_%03d", i)] = strings.Repeat("x", i%40)
	}
	tests := []string{"oltp_point_select", "oltp_read_only", "oltp_read_write", "oltp_write_only"}
	var dirs []string
	for v := 0; v < largeVersions; v++ {
		label := fmt.Sprintf("v%02d", v+1)
		d := filepath.Join(dir, label)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
		for rep := 0; rep < largeRepeats; rep++ {
			for ti, test := range tests {
				for li, th := range []int{8, 16, 32, 64, 128, 256} {
					q := 10000 * float64(li+1) * (1 + 0.01*float64((rep*7+v*3+ti)%5))
					if v >= 12 {
						q *= 0.9 // a drop in v13
					}
					r := fixture(t, "sysbench/"+test, label, th, q, float64(li+1))
					for i := 10; i < 30; i++ {
						r.Intervals = append(r.Intervals, r.Intervals[i%10])
					}
					r.Server.Variables = vars
					if err := r.Write(filepath.Join(d, fmt.Sprintf("%s-%dthreads-r%d.json", test, th, rep+1))); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	return dirs
}

// TestWriteLargeHistory writes the files for scripts/bench-report.sh, which
// times the built binary on them.
func TestWriteLargeHistory(t *testing.T) {
	if *largeHistory == "" {
		t.Skip("-large-history=DIR writes the files")
	}
	writeLargeHistory(t, *largeHistory)
}

// BenchmarkLargeHistory: report compare's work on 20 versions x 24 cells x
// 5 repeats, from reading the files to every format.
func BenchmarkLargeHistory(b *testing.B) {
	dirs := writeLargeHistory(b, b.TempDir())
	b.ResetTimer()
	for range b.N {
		var vs []Version
		for _, d := range dirs {
			rs, err := Load([]string{d}, nil)
			if err != nil {
				b.Fatal(err)
			}
			vs = append(vs, Version{filepath.Base(d), rs})
		}
		rep := New(vs, describe)
		rep.Text(io.Discard)
		rep.Markdown(io.Discard)
		rep.HTML(io.Discard)
		if len(rep.Tables) != 4 || len(rep.Tables[0].Where(rep.Labels)) == 0 {
			b.Fatalf("%d tables, no drop found", len(rep.Tables))
		}
	}
}
