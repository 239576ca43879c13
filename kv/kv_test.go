package kv

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/random"
	"github.com/oltpbench/oltpbench/internal/workload"
)

func setup(t *testing.T, args ...string) (*kv, error) {
	t.Helper()
	w := &kv{}
	fs := pflag.NewFlagSet("kv", pflag.ContinueOnError)
	w.Flags(fs, &workload.RunOptions{})
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return w, w.Setup(&workload.Setup{Seed: 1})
}

// TestSetupRefuses: each bad option is one error naming it.
func TestSetupRefuses(t *testing.T) {
	for _, c := range []struct{ arg, want string }{
		{"--keys=0", "--keys=0"},
		{"--value-size=0", "--value-size=0"},
		{"--read-percent=101", "--read-percent=101"},
		{"--dist=pareto", `--dist="pareto"`},
	} {
		if _, err := setup(t, c.arg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.arg, err)
		}
	}
}

// TestKeys: keys stay in 1..--keys; zipfian puts a large share on the
// first keys, uniform about its fair share.
func TestKeys(t *testing.T) {
	for _, c := range []struct {
		dist     string
		min, max float64 // share of draws on the first 1% of keys
	}{
		{"uniform", 0.005, 0.015},
		{"zipfian", 0.3, 1},
	} {
		w, err := setup(t, "--keys=10000", "--dist="+c.dist)
		if err != nil {
			t.Fatal(err)
		}
		k := &kvWorker{r: &run{w: w}, rand: random.NewRand(7, 1)}
		hot := 0
		const n = 100000
		for range n {
			key := k.key()
			if key < 1 || key > 10000 {
				t.Fatalf("%s: key %d outside 1..10000", c.dist, key)
			}
			if key <= 100 {
				hot++
			}
		}
		if share := float64(hot) / n; share < c.min || share > c.max {
			t.Errorf("%s: %.3f of the draws on the first 1%% of keys, want %.3f..%.3f", c.dist, share, c.min, c.max)
		}
	}
}

// TestDatasetRows: the generator writes every key once, in order, with
// values of the size asked.
func TestDatasetRows(t *testing.T) {
	w, err := setup(t, "--keys=120", "--value-size=5")
	if err != nil {
		t.Fatal(err)
	}
	tab := w.Dataset().Tables[0]
	var rw rows
	if err := tab.Gen(random.NewRand(1), 0, tab.Rows, &rw); err != nil {
		t.Fatal(err)
	}
	if len(rw.keys) != 120 || rw.keys[0] != 1 || rw.keys[119] != 120 || rw.bad != 0 {
		t.Errorf("%d rows, first %v, %d values of another size", len(rw.keys), rw.keys[:1], rw.bad)
	}
}

type rows struct {
	keys []int64
	bad  int
}

func (r *rows) Int(v int64)        { r.keys = append(r.keys, v) }
func (r *rows) Float(float64, int) {}
func (r *rows) Str(string)         {}
func (r *rows) Bytes(b []byte)     { r.check(len(b)) }
func (r *rows) Plain([]byte)       {}
func (r *rows) Null()              {}
func (r *rows) EndRow() error      { return nil }
func (r *rows) check(n int) {
	if n != 5 {
		r.bad++
	}
}
