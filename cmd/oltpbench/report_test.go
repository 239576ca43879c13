package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A thread sweep writes one result per level; compare and show read them;
// merge combines two clients' results of one run. The runs are paced (2,000
// events a second): what is asserted is their files and reports, and
// unthrottled runs take CPU the other shards' tests wait for.
func TestSweepCompareMergeShow(t *testing.T) {
	needServer(t)
	db := "sweep"
	freshDB(t, db)
	mustOK(t, sb(t, db, "oltp_common", "prepare", "--table-size=2000", "--tables=2"), "prepare")
	base, cand := t.TempDir(), t.TempDir()
	for _, dir := range []string{base, cand} {
		r := sb(t, db, "oltp_point_select", "run", "--threads=1,2,4", "--time=1", "--rate=2000", "--tables=2", "--table-size=2000", "--result-dir="+dir, "--cooldown=100ms")
		mustOK(t, r, "sweep")
		if n := strings.Count(r.stdout, "SQL statistics:"); n != 3 {
			t.Fatalf("%d reports for 3 levels", n)
		}
	}
	files, _ := filepath.Glob(filepath.Join(base, "*.json"))
	if len(files) != 3 {
		t.Fatalf("%d result files: %v", len(files), files)
	}
	for _, format := range []string{"text", "markdown", "html"} {
		r := ob(t, nil, "report", "compare", "--baseline="+base, "--candidate="+cand, "--baseline-name=A", "--candidate-name=B", "--format="+format)
		mustOK(t, r, "compare "+format)
		if !strings.Contains(r.stdout, "Point Select") || !strings.Contains(r.stdout, "QPS of B") {
			t.Errorf("%s report:\n%s", format, r.stdout)
		}
	}
	r := ob(t, nil, "report", "show", files[0])
	mustOK(t, r, "show")
	if !strings.Contains(r.stdout, "oltp_point_select") || !strings.Contains(r.stdout, "QPS") {
		t.Errorf("show:\n%s", r.stdout)
	}
	// Two clients of one run at once, merged.
	a, b := filepath.Join(t.TempDir(), "a.json"), filepath.Join(t.TempDir(), "b.json")
	done := make(chan res)
	go func() {
		done <- sb(t, db, "oltp_point_select", "run", "--threads=2", "--time=2", "--rate=2000", "--tables=2", "--table-size=2000", "--result-file="+a)
	}()
	mustOK(t, sb(t, db, "oltp_point_select", "run", "--threads=2", "--time=2", "--rate=2000", "--tables=2", "--table-size=2000", "--result-file="+b), "client b")
	mustOK(t, <-done, "client a")
	r = ob(t, nil, "report", "merge", a, b)
	mustOK(t, r, "merge")
	if !strings.Contains(r.stdout, `"threads": 4`) {
		t.Errorf("merged result:\n%.500s", r.stdout)
	}
	r = ob(t, nil, "report", "merge", a, files[0])
	if r.code == 0 || !strings.Contains(r.stderr, "other options") {
		t.Errorf("merging different runs: exit %d stderr %q", r.code, r.stderr)
	}
}

// The p95 search against the real server, with a limit low enough that the
// edge lies within the range: it stops in a bounded number of runs and the
// best row respects the limit while a higher count measured broke it.
func TestP95Search(t *testing.T) {
	needServer(t)
	db := "slo"
	freshDB(t, db)
	mustOK(t, sb(t, db, "oltp_common", "prepare", "--table-size=5000", "--tables=2"), "prepare")
	// The limit: six times the p95 of one thread, measured once beside the
	// other shards. One thread stays under it when the machine grows busier
	// after the measurement (three times failed so once); 256 threads queue
	// on the machine's 2 cores far beyond it (64 reached only seven times,
	// so ten times failed once): the edge lies inside the range.
	// If the machine grew busier still and one thread breaks the limit (the
	// search then refuses the range in one line), the limit is measured
	// again, twice at most.
	var r res
	var limitMs float64
	for try := 0; try < 3; try++ {
		out := filepath.Join(t.TempDir(), "one.json")
		mustOK(t, sb(t, db, "oltp_read_only", "run", "--threads=1", "--time=1", "--tables=2", "--table-size=5000", "--result-file="+out), "one thread")
		b, _ := os.ReadFile(out)
		m1 := regexp.MustCompile(`"95": ([\d.]+)`).FindSubmatch(b)
		if m1 == nil {
			t.Fatalf("no p95 in %s", b)
		}
		p95one, _ := strconv.ParseFloat(string(m1[1]), 64)
		limitMs = 6 * p95one
		limit := strconv.FormatFloat(limitMs*1000, 'f', 0, 64) + "us"
		r = sb(t, db, "oltp_read_only", "run", "--threads=1-256", "--p95-slo="+limit, "--slo-steps=10", "--time=1", "--tables=2", "--table-size=5000")
		if r.code == 0 || !strings.Contains(r.stderr, "even 1 threads exceed the p95 limit") {
			break
		}
	}
	mustOK(t, r, "search")
	steps := strings.Count(r.stdout, "== p95 search, step")
	if steps < 2 || steps > 10 {
		t.Fatalf("%d steps", steps)
	}
	m := regexp.MustCompile(`Best within p95 <= \S+: sysbench/oltp_read_only\n\| (\d+) \| [\d.]+ \| [\d.]+ \| [\d.]+ \| ([\d.]+) \|`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no best row:\n%s", r.stdout)
	}
	best, _ := strconv.Atoi(m[1])
	p95, _ := strconv.ParseFloat(m[2], 64)
	if p95 > limitMs+0.01 || best < 1 || best > 256 {
		t.Errorf("best %d threads at p95 %v ms", best, p95)
	}
	broke := false
	for _, row := range regexp.MustCompile(`\| (\d+) \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| false \|`).FindAllStringSubmatch(r.stdout, -1) {
		if n, _ := strconv.Atoi(row[1]); n > best {
			broke = true
		}
	}
	if !broke && best != 256 {
		t.Errorf("no measured thread count above %d broke the limit:\n%s", best, r.stdout)
	}
}
