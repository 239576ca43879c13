package ycsb

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/random"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// YCSB's first keys in its hashed insert order: user6284781860667377211
// is record 0's in every YCSB load's output.
func TestKeys(t *testing.T) {
	w := &ycsb{hashed: true}
	var got []string
	for n := int64(0); n < 3; n++ {
		got = append(got, string(w.key(nil, n)))
	}
	// go-ycsb's keys of records 0, 1 and 2 (as its load writes them).
	if want := []string{"user6284781860667377211", "user6284782960179005422", "user6284784059690633633"}; !slices.Equal(got, want) {
		t.Errorf("hashed keys %v, want %v", got, want)
	}
	// go-ycsb's scrambling is Go's FNV-1a over the number's big-endian bytes.
	for _, n := range []int64{0, 1, 255, 256, 1999, 1 << 40, math.MaxInt64} {
		h := fnv.New64a()
		binary.Write(h, binary.BigEndian, uint64(n))
		want := int64(h.Sum64())
		if want < 0 {
			want = -want
		}
		if got := fnv64(n); got != want {
			t.Errorf("fnv64(%d) = %d, want %d (hash/fnv)", n, got, want)
		}
	}
	w = &ycsb{pad: 5}
	if k := string(w.key(nil, 42)); k != "user00042" {
		t.Errorf("ordered key with zeropadding=5: %s", k)
	}
}

// draws counts n draws of c over count records.
func draws(c chooser, count int64, n int) []int {
	r := random.NewRand(1, 2)
	h := make([]int, count)
	for range n {
		h[c.next(r, count)]++
	}
	return h
}

func share(h []int, from, to int) float64 {
	s, all := 0, 0
	for i, v := range h {
		all += v
		if i >= from && i < to {
			s += v
		}
	}
	return float64(s) / float64(all)
}

// TestDistributions: each request distribution's shape, as YCSB defines
// it, over 1,000 records and 200,000 draws.
func TestDistributions(t *testing.T) {
	const count, n = 1000, 200000
	// Uniform: every tenth of the records about a tenth of the draws.
	u := draws(uniformChooser{}, count, n)
	for d := 0; d < 10; d++ {
		if s := share(u, d*100, d*100+100); math.Abs(s-0.1) > 0.01 {
			t.Errorf("uniform: records %d..%d drew %.3f", d*100, d*100+99, s)
		}
	}
	// Zipfian (0.99) over the records in order: record 0 the most drawn,
	// about 1/zeta(1000) of the draws, the first 1% of records over a third.
	z := draws(latest{newZipfian(count, zipfianConstant)}, count, n)
	slices.Reverse(z) // latest draws from the newest: reversed, a plain zipfian
	if zn := zeta(0, count, zipfianConstant, 0); math.Abs(float64(z[0])/n-1/zn) > 0.01 || share(z, 0, 10) < 0.33 {
		t.Errorf("zipfian: record 0 drew %.3f (want 1/zeta = %.3f), the first 10 records %.3f", float64(z[0])/n, 1/zn, share(z, 0, 10))
	}
	// Scrambled zipfian: as skewed, but the hot records spread over the keyspace.
	s := draws(newScrambledZipfian(), count, n)
	top := slices.Clone(s)
	slices.Sort(top)
	slices.Reverse(top)
	hot := 0
	for _, v := range top[:10] {
		hot += v
	}
	// The ten most popular of ten billion items draw H(10, 0.99) / zeta(10^10)
	// = 2.93 / 26.47 = 11%; hashed onto the records, a few more collide.
	if float64(hot)/n < 0.10 || share(s, 0, 10) > 0.05 {
		t.Errorf("scrambled zipfian: the 10 most drawn records %.3f, the first 10 %.3f", float64(hot)/n, share(s, 0, 10))
	}
	// Hotspot: 80% of the draws on the first 20% of the records.
	if h := share(draws(hotspot{0.2, 0.8}, count, n), 0, 200); math.Abs(h-0.8) > 0.01 {
		t.Errorf("hotspot: the hot 20%% drew %.3f, want 0.8", h)
	}
	// Exponential: 95% of the ages within 85.7% of the records, the
	// newest the most; ages beyond the oldest drawn again, which leaves
	// 0.95 / (1 - 0.05^(1/0.857)) = 98% in the newest 85.7%.
	want := 0.95 / (1 - math.Pow(0.05, 1/0.8571428571))
	if e := share(draws(exponential{95, 0.8571428571}, count, n), count-857, count); math.Abs(e-want) > 0.01 {
		t.Errorf("exponential: the newest 85.7%% drew %.3f, want %.3f", e, want)
	}
	// Sequential: in order, again from the first.
	seq := &sequential{}
	r := random.NewRand(1)
	var got []int64
	for range 5 {
		got = append(got, seq.next(r, 3))
	}
	if !slices.Equal(got, []int64{0, 1, 2, 0, 1}) {
		t.Errorf("sequential: %v", got)
	}
	// Latest follows the records as inserts add them.
	l := latest{newZipfian(count, zipfianConstant)}
	if v := l.next(random.NewRand(3), 5000); v < 4000 {
		t.Errorf("latest over 5,000 records drew %d: the newest are the hot ones", v)
	}
}

// TestProps: files in order, -p over them, the shipped workloads found by
// their YCSB path, and what cannot be run named.
func TestProps(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "w")
	os.WriteFile(f, []byte("# mine\nrecordcount = 50\nreadproportion=0.2\nupdateproportion:0.8\n"), 0o644)
	p, err := readProps([]string{"workloads/workloada", f}, []string{"recordcount=70", "threadcount=4"})
	if err != nil {
		t.Fatal(err)
	}
	if p.str("recordcount") != "70" || p.str("readproportion") != "0.2" || p.str("updateproportion") != "0.8" ||
		p.str("requestdistribution") != "uniform" || p.str("threadcount") != "4" {
		t.Errorf("properties: %v", p.m)
	}
	for _, tc := range []struct {
		files, overrides []string
		want             string
	}{
		{nil, []string{"recordcont=5", "bogus=1"}, "unknown properties: bogus (-p), recordcont (-p)"},
		{[]string{filepath.Join(dir, "none")}, nil, "no workload file " + filepath.Join(dir, "none")},
		{[]string{"workloads/workloadz"}, nil, "no workload file workloads/workloadz"},
		{nil, []string{"recordcount"}, "invalid -p recordcount: key=value"},
	} {
		if _, err := readProps(tc.files, tc.overrides); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: %v, want %q", tc.files, tc.overrides, err, tc.want)
		}
	}
	for _, tc := range []struct {
		overrides []string
		want      string
	}{
		{[]string{"recordcount=x"}, "recordcount=x: a whole number"},
		{[]string{"threadcount=0"}, "threadcount=0: out of range"},
		{[]string{"insertorder=random"}, "insertorder=random: hashed or ordered"},
		{[]string{"workload=site.ycsb.workloads.TimeSeriesWorkload"}, "oltpbench runs the core workload"},
	} {
		p, err := readProps(nil, tc.overrides)
		if err == nil {
			err = p.check()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.overrides, err, tc.want)
		}
	}
	if cmd := commandFirst([]string{"load", "mysql", "-P", "x"}, nil, nil); !slices.Equal(cmd, []string{"mysql", "load", "-P", "x"}) {
		t.Errorf("go-ycsb's order: %v", cmd)
	}
}

func BenchmarkScrambledZipfian(b *testing.B) {
	c, r := newScrambledZipfian(), random.NewRand(1)
	b.ReportAllocs()
	for b.Loop() {
		c.next(r, 1_000_000)
	}
}

// TestLoadedLines: a load's end in go-ycsb's words: a row a statement,
// each row's time its share of its unit's; with batch.size, a unit a
// BATCH_INSERT with its own time.
func TestLoadedLines(t *testing.T) {
	units := []workload.LoadUnit{{Rows: 100, Took: time.Millisecond}, {Rows: 50, Took: 5 * time.Millisecond}}
	for _, c := range []struct {
		batch int64
		want  []string
	}{
		{1, []string{"INSERT - Takes(s): 2.0, Count: 150, OPS: 75.0, Avg(us): 40, Min(us): 10, Max(us): 100,",
			"TOTAL  - Takes(s): 2.0, Count: 150, OPS: 75.0,"}},
		{100, []string{"BATCH_INSERT - Takes(s): 2.0, Count: 2, OPS: 1.0, Avg(us): 3001, Min(us): 1000, Max(us): 5003,",
			"TOTAL  - Takes(s): 2.0, Count: 2, OPS: 1.0,"}},
	} {
		var b strings.Builder
		(&peerReport{w: &b}).loaded(workload.LoadFigures{Took: 2 * time.Second, Units: units, Done: true}, c.batch)
		lines := strings.Split(strings.TrimSpace(b.String()), "\n")
		if len(lines) != 4 || lines[1] != "Run finished, takes 2s" {
			t.Fatalf("batch %d: %q", c.batch, lines)
		}
		for i, w := range c.want {
			if !strings.HasPrefix(lines[2+i], w) {
				t.Errorf("batch %d: %q, want %q...", c.batch, lines[2+i], w)
			}
		}
	}
}
