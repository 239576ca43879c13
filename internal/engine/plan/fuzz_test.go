package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/engine/cells"
)

// FuzzParse: any file gives a plan whose cells expand and name their
// results, or one error line.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(strings.Replace(good, "threads = [2]\ntime = \"1m\"", "thread_schedule = \"1@30s,2-8@1m\"", 1)))
	if ps, _ := filepath.Glob("../../../deploy/plans/*.toml"); len(ps) > 0 {
		for _, p := range ps {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse("p.toml", b, 0, known)
		if err != nil {
			if m := err.Error(); m == "" || strings.Contains(m, "\n") {
				t.Fatalf("want one error line, got %q", m)
			}
			return
		}
		for i := range p.Steps {
			p.StepArgs(i)
		}
		p.DatasetArgs(true)
		cs := cells.Expand(p.Series(timing))
		if len(cs) > 1_000_000 {
			return
		}
		for _, c := range cs {
			c.Args()
			c.Key()
		}
	})
}
