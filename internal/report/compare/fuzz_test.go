package compare

import (
	"testing"

	"github.com/oltpbench/oltpbench/internal/result"
)

// FuzzLabelOf: any server version strings name a version without a panic,
// and a label is never empty when the version string is not.
func FuzzLabelOf(f *testing.F) {
	f.Add("8.0.11-TiDB-v7.5.0", "Release Version: v7.5.0\nEdition: Community\nGit Commit Hash: abc")
	f.Add("10.11.6-MariaDB-0+deb12u1", "")
	f.Add("8.0.36", "Release Version: ")
	f.Add("", "   ")
	f.Fuzz(func(t *testing.T, version, tidb string) {
		r := &result.Result{Server: result.Server{Version: version, TiDBVersion: tidb}}
		l := LabelOf([]*result.Result{r}, "fallback")
		if l == "" {
			t.Fatalf("version %q, TiDB %q: empty label", version, tidb)
		}
	})
}
