package sysbench

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/hist"
	"github.com/oltpbench/oltpbench/internal/measure"
)

var update = flag.Bool("update", false, "rewrite golden files")

// sampleFinal is the final report of testdata/sysbench-output-oltp_read_write.txt as runner figures.
func sampleFinal() *measure.Final {
	h := hist.New()
	for i := 0; i < 100; i++ {
		h.RecordValue(int64(500 + i*10))
	}
	f := &measure.Final{Elapsed: 30010 * time.Millisecond, SinceStart: 30010 * time.Millisecond, MinUs: 530, MaxUs: 140660, SumUs: 479980060}
	f.Counts[measure.Events] = 75839
	f.Counts[measure.Reads] = 1061746
	f.Counts[measure.Writes] = 303356
	f.Counts[measure.Others] = 151678
	f.Hists = append(f.Hists, h)
	for i := 0; i < 16; i++ {
		f.PerThread = append(f.PerThread, measure.ThreadStat{Events: 4739 + int64(i%2), Busy: 29998 * time.Millisecond})
	}
	return f
}

// The report's lines must have sysbench's labels and columns: counts start in
// the same column, latencies end in the same column.
func TestFinalReportMatchesSysbenchLayout(t *testing.T) {
	var buf bytes.Buffer
	(&Report{W: &buf, Percentile: 95}).Final(sampleFinal())
	sample := finalSection(t, "sysbench-output-oltp_read_write.txt")
	ours := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	if len(ours) != len(sample) {
		t.Fatalf("report has %d lines, sysbench's %d:\n%s", len(ours), len(sample), buf.String())
	}
	digit := regexp.MustCompile(`[0-9]`)
	for i := range sample {
		s, o := sample[i], ours[i]
		si, oi := digit.FindStringIndex(s), digit.FindStringIndex(o)
		if (si == nil) != (oi == nil) {
			t.Errorf("line %d: %q vs sysbench %q", i, o, s)
			continue
		}
		if si == nil {
			if s != o {
				t.Errorf("line %d: %q, sysbench %q", i, o, s)
			}
			continue
		}
		// Labels equal (text before the first number).
		if s[:si[0]] != o[:oi[0]] {
			t.Errorf("line %d label: %q, sysbench %q", i, o[:oi[0]], s[:si[0]])
		}
		// Right-aligned latency lines end in the same column.
		if strings.HasPrefix(s, "         ") && len(o) != len(s) {
			t.Errorf("line %d: ends at column %d, sysbench %d: %q", i, len(o), len(s), o)
		}
	}
	// Figures that are given exactly appear exactly.
	for _, want := range []string{"        read:                            1061746", "    transactions:                        75839  (2527.12 per sec.)",
		"         min:                                    0.53", "         max:                                  140.66", "         sum:                               479980.06"} {
		if !strings.Contains(buf.String(), want+"\n") {
			t.Errorf("report lacks %q:\n%s", want, buf.String())
		}
	}
}

func finalSection(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "SQL statistics:")
	return strings.Split(strings.TrimRight(s[i:], "\n "), "\n")
}

var intervalRE = regexp.MustCompile(`^\[ \d+s \] thds: \d+ tps: \d+\.\d\d qps: \d+\.\d\d \(r/w/o: \d+\.\d\d/\d+\.\d\d/\d+\.\d\d\) lat \(ms,95%\): \d+\.\d\d err/s: \d+\.\d\d reconn/s: \d+\.\d\d$`)

func TestIntervalLineMatchesSysbench(t *testing.T) {
	b, _ := os.ReadFile("testdata/sysbench-output-oltp_read_write.txt")
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "[ ") {
			n++
			if !intervalRE.MatchString(l) {
				t.Fatalf("pattern does not fit sysbench's own line %q", l)
			}
		}
	}
	if n == 0 {
		t.Fatal("no interval lines in sample")
	}
	var buf bytes.Buffer
	iv := measure.Interval{Elapsed: 10 * time.Second, Length: 5 * time.Second, Running: 16, Hists: sampleFinal().Hists}
	iv.Counts[measure.Events] = 12976
	iv.Counts[measure.Reads] = 181683
	iv.Counts[measure.Writes] = 51915
	iv.Counts[measure.Others] = 25952
	(&Report{W: &buf, Percentile: 95}).Interval(iv)
	line := strings.TrimRight(buf.String(), "\n")
	if !intervalRE.MatchString(line) {
		t.Fatalf("interval line %q does not match sysbench's layout", line)
	}
	if want := "[ 10s ] thds: 16 tps: 2595.20 qps: 51910.00 (r/w/o: 36336.60/10383.00/5190.40)"; !strings.HasPrefix(line, want) {
		t.Errorf("got %q, want prefix %q", line, want)
	}
}

func TestHistogramLayout(t *testing.T) {
	var buf bytes.Buffer
	f := sampleFinal()
	(&Report{W: &buf, Percentile: 95, Histogram: true}).Final(f)
	lines := strings.Split(buf.String(), "\n")
	if lines[0] != "Latency histogram (values are in milliseconds)" || lines[1] != "       value  ------------- distribution ------------- count" {
		t.Fatalf("histogram header: %q / %q", lines[0], lines[1])
	}
	row := regexp.MustCompile(`^ {0,11}\d+\.\d{3} \|\**\s* \d+$`)
	sb, _ := os.ReadFile("testdata/sysbench-output-histogram.txt")
	for _, l := range strings.Split(string(sb), "\n")[16:30] {
		if !row.MatchString(l) {
			t.Fatalf("pattern does not fit sysbench's row %q", l)
		}
	}
	total := 0
	for _, l := range lines[2:] {
		if l == " " {
			break
		}
		if !row.MatchString(l) || len(l) < 55 {
			t.Fatalf("row %q does not match sysbench's layout", l)
		}
		total++
	}
	if total == 0 {
		t.Fatal("no histogram rows")
	}
}

func TestReportGolden(t *testing.T) {
	var buf bytes.Buffer
	PrintBanner(&buf, "oltpbench test")
	PrintHeader(&buf, Header{Tool: "oltpbench test", Threads: 16, ReportInterval: 5 * time.Second, Seed: 7, Rate: 100})
	r := &Report{W: &buf, Percentile: 95, Percentiles: []float64{50, 99, 99.9}, Rate: true}
	iv := measure.Interval{Elapsed: 5 * time.Second, Length: 5 * time.Second, Running: 16, Hists: sampleFinal().Hists, QueueLength: 3, Concurrency: 2}
	iv.Counts[measure.Events] = 500
	r.Interval(iv)
	r.Final(sampleFinal())
	golden := filepath.Join("testdata", "report.golden")
	if *update {
		os.WriteFile(golden, buf.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if buf.String() != string(want) {
		t.Errorf("report differs from %s (go test -update to accept):\n%s", golden, buf.String())
	}
}
