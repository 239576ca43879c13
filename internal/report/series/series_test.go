package series

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/oltpbench/oltpbench/internal/testenv/race"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/hist"
	"github.com/oltpbench/oltpbench/internal/result"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var day0 = time.Date(2026, 9, 1, 2, 0, 0, 0, time.UTC)

// night is one nightly run's result: a point select run of 60 s at qps,
// on build "nightly.N", started at 02:00 of night n.
func night(t testing.TB, n int, qps float64, opts ...func(*result.Result)) *result.Result {
	t.Helper()
	h := hist.New()
	for i := 0; i < 100; i++ {
		h.RecordValue(int64(1000 + 10*i))
	}
	op, err := result.NewOp("point_select", h)
	if err != nil {
		t.Fatal(err)
	}
	r := &result.Result{Format: result.Format, Tool: "oltpbench", Workload: "sysbench/oltp_point_select", Threads: 16, Seconds: 60,
		Start: day0.Add(time.Duration(n) * 24 * time.Hour), Metric: result.QPS, Ops: []result.Op{op},
		Server:  result.Server{Version: fmt.Sprintf("11.4.%d-nightly", n)},
		Options: map[string]string{"time": "60", "table-size": "10000", "mysql-host": "10.0.0.1", "result-dir": "nightly/" + fmt.Sprint(n)},
		Totals:  map[string]int64{"reads": int64(qps * 60), "events": int64(qps * 60)}}
	r.End = r.Start.Add(time.Minute)
	for _, o := range opts {
		o(r)
	}
	return r
}

// writeSeries writes one result file per night into a new folder.
func writeSeries(t testing.TB, rs []*result.Result) string {
	t.Helper()
	dir := t.TempDir()
	for i, r := range rs {
		if err := r.Write(filepath.Join(dir, fmt.Sprintf("night-%03d-%d.json", i, r.Threads))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// planted is 60 nights around 10,000 QPS with 3% noise, the level
// multiplied by each step's factor from its night on.
func planted(t testing.TB, seed uint64, steps map[int]float64) []*result.Result {
	rng := rand.New(rand.NewPCG(seed, 42))
	var rs []*result.Result
	for n := 0; n < 60; n++ {
		level := 10000.0
		for at, f := range steps {
			if n >= at {
				level *= f
			}
		}
		rs = append(rs, night(t, n, level*(1+0.03*rng.NormFloat64())))
	}
	return rs
}

func headline(t *testing.T, rep *Report) []Change {
	t.Helper()
	if len(rep.Series) != 1 {
		t.Fatalf("%d series, want 1", len(rep.Series))
	}
	return rep.Series[0].Metrics[0].Changes
}

// TestPlantedSteps: over 20 seeds of 60 nights with 3% noise, a 10% step
// at night 40 is found at 40 (+-1), a series without a step gives no
// change, and two steps (at 20 and 45) are both found; the rates are
// logged. Each series is written as result files and read back.
func TestPlantedSteps(t *testing.T) {
	race.Skip(t)
	const seeds = 20
	near := func(cs []Change, at int) bool {
		for _, c := range cs {
			if c.At >= at-1 && c.At <= at+1 {
				return true
			}
		}
		return false
	}
	var one, none, two, extra int
	for seed := uint64(1); seed <= seeds; seed++ {
		rep, err := Build([]string{writeSeries(t, planted(t, seed, map[int]float64{40: 0.9}))}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		cs := headline(t, rep)
		if near(cs, 40) {
			one++
			if len(cs) > 1 {
				extra++
			}
		}
		if rep, err = Build([]string{writeSeries(t, planted(t, seed, nil))}, Options{}); err != nil {
			t.Fatal(err)
		}
		if len(headline(t, rep)) == 0 {
			none++
		}
		if rep, err = Build([]string{writeSeries(t, planted(t, seed, map[int]float64{20: 0.9, 45: 1.12}))}, Options{}); err != nil {
			t.Fatal(err)
		}
		if cs := headline(t, rep); near(cs, 20) && near(cs, 45) {
			two++
		}
	}
	t.Logf("a 10%% step at night 40 found there (+-1) in %d of %d seeds (%d with another change besides); no step: no change in %d of %d; two steps both found in %d of %d",
		one, seeds, extra, none, seeds, two, seeds)
	if one < 19 || none < 19 || two < 19 {
		t.Errorf("detection %d/%d, no false alarm %d/%d, two steps %d/%d: want at least 19 of 20 each", one, seeds, none, seeds, two, seeds)
	}
}

// TestChangeAndBuilds: the change's size, the levels on either side, the
// builds around it and the gate on the newest segment.
func TestChangeAndBuilds(t *testing.T) {
	rep, err := Build([]string{writeSeries(t, planted(t, 3, map[int]float64{40: 0.9}))}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := rep.Series[0]
	c := s.Metrics[0].Changes[0]
	if math.Abs(c.Delta()+0.1) > 0.03 || c.P > 0.01 || !c.Worse {
		t.Errorf("the change: %+v (delta %.3f)", c, c.Delta())
	}
	a := s.around(c)
	if a.before.Build != fmt.Sprintf("11.4.%d-nightly", c.At-1) || a.after.Build != fmt.Sprintf("11.4.%d-nightly", c.At) || !strings.Contains(a.after.File, fmt.Sprintf("night-%03d", c.At)) {
		t.Errorf("around the change at %d: %+v", c.At, a)
	}
	if bad := rep.Gate(0.05, false); len(bad) != 1 || !strings.Contains(bad[0], "Point Select") && !strings.Contains(bad[0], "oltp_point_select") {
		t.Errorf("the gate at 5%%: %q", bad)
	}
	if bad := rep.Gate(0.2, false); len(bad) != 0 {
		t.Errorf("the gate at 20%% (the step is 10%%): %q", bad)
	}
	// A step up is no regression.
	if rep, _ = Build([]string{writeSeries(t, planted(t, 3, map[int]float64{40: 1.1}))}, Options{}); len(rep.Gate(0.05, false)) != 0 {
		t.Errorf("a step up gated: %q", rep.Gate(0.05, false))
	}
}

// TestNightlyMess: missing nights, a build run twice, runs of other
// options in the folder, a failed run, an unreadable file, client-bound
// runs, and a series too short to judge.
func TestNightlyMess(t *testing.T) {
	var rs []*result.Result
	rng := rand.New(rand.NewPCG(5, 5))
	for n := 0; n < 40; n++ {
		if n%7 == 3 {
			continue // a missing night
		}
		level := 10000.0
		if n >= 25 {
			level = 8500
		}
		rs = append(rs, night(t, n, level*(1+0.02*rng.NormFloat64())))
		if n == 10 {
			rs = append(rs, night(t, n, level*(1+0.02*rng.NormFloat64()), func(r *result.Result) { r.Start = r.Start.Add(time.Hour) })) // run twice
		}
		// The same build measured with another --time: another series.
		rs = append(rs, night(t, n, 5000, func(r *result.Result) { r.Options["time"] = "30" }))
	}
	rs = append(rs, night(t, 41, 0, func(r *result.Result) { r.Interrupted = true }))
	// The newest nights ran client-bound and lower still.
	for n := 41; n < 45; n++ {
		rs = append(rs, night(t, n, 6000, func(r *result.Result) {
			r.ClientHealth = &result.ClientHealth{ClientBound: true, ClientBoundWhy: "busy"}
		}))
	}
	rs = append(rs, night(t, 2, 1000, func(r *result.Result) { r.Threads = 64 })) // one run of 64 threads
	dir := writeSeries(t, rs)
	os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{"), 0o644)
	rep, err := Build([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Series) != 3 || len(rep.Failed) != 1 || len(rep.Unreadable) != 1 || !strings.Contains(rep.Unreadable[0], "broken.json") {
		t.Fatalf("series %d (want 3: time 60, time 30, 64 threads), failed %v, unreadable %v", len(rep.Series), rep.Failed, rep.Unreadable)
	}
	var main, short *Series
	for _, s := range rep.Series {
		switch {
		case s.Short:
			short = s
		case strings.Contains(s.Key, "time=60"):
			main = s
		}
	}
	if short == nil || len(short.Points) != 1 || main == nil {
		t.Fatalf("series: %+v", rep.Series)
	}
	cs := main.Metrics[0].Changes
	if len(cs) == 0 || main.Points[cs[0].At].Build != "11.4.25-nightly" {
		t.Errorf("the change at night 25: %+v", cs)
	}
	// The newest segment is the client-bound nights: left out of the gate
	// unless asked.
	if bad := rep.Gate(0.05, false); len(bad) != 1 || !strings.Contains(bad[0], "from 11.4.25-nightly") {
		t.Errorf("the gate without the client-bound runs: %q", bad)
	}
	if bad := rep.Gate(0.05, true); len(bad) != 1 || !strings.Contains(bad[0], "from 11.4.41-nightly") {
		t.Errorf("the gate with the client-bound runs: %q", bad)
	}
	var txt bytes.Buffer
	rep.Text(&txt)
	for _, want := range []string{"too short to judge: 1 runs", "4 runs client-bound (marked *", "left out, a failed run: ", "skipped, unreadable: ", "broken.json"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("the text without %q:\n%s", want, txt.String())
		}
	}
}

// TestOrder: by the runs' time, by the builds' names as versions, or by a
// list of builds (the others left out and named).
func TestOrder(t *testing.T) {
	names := []string{"v7.5.10", "v7.5.9", "v8.0.0", "v7.5.2"}
	var rs []*result.Result
	for i, v := range names {
		rs = append(rs, night(t, i, 1000, func(r *result.Result) { r.Server.Version = v }))
	}
	dir := writeSeries(t, rs)
	order := func(o Options) string {
		rep, err := Build([]string{dir}, o)
		if err != nil {
			t.Fatal(err)
		}
		var b []string
		for _, p := range rep.Series[0].Points {
			b = append(b, p.Build)
		}
		return strings.Join(b, " ")
	}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{}, "v7.5.10 v7.5.9 v8.0.0 v7.5.2"},
		{Options{Order: "version"}, "v7.5.2 v7.5.9 v7.5.10 v8.0.0"},
		{Options{Order: "version", Versions: []string{"v8.0.0", "v7.5.2"}}, "v8.0.0 v7.5.2"},
		{Options{Since: day0.Add(36 * time.Hour)}, "v8.0.0 v7.5.2"},
	} {
		if got := order(tc.o); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.o, got, tc.want)
		}
	}
	for _, tc := range []struct {
		paths []string
		o     Options
		want  string
	}{
		{[]string{t.TempDir()}, Options{}, "holds no result files"},
		{[]string{dir}, Options{Order: "random"}, "invalid --order=random: time or version"},
		{[]string{dir}, Options{Confidence: 1.5}, "invalid --confidence=1.5"},
		{nil, Options{}, "give one or more folders"},
	} {
		if _, err := Build(tc.paths, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %+v: %v, want %q", tc.paths, tc.o, err, tc.want)
		}
	}
}

// TestGolden: the three formats of a small history with one change.
func TestGolden(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	var rs []*result.Result
	for n := 0; n < 16; n++ {
		level := 10000.0
		if n >= 10 {
			level = 8000
		}
		rs = append(rs, night(t, n, level*(1+0.01*rng.NormFloat64())))
	}
	dir := writeSeries(t, rs)
	rep, err := Build([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer)
	}{
		{"series.txt", func(b *bytes.Buffer) { rep.Text(b) }},
		{"series.md", func(b *bytes.Buffer) { rep.Markdown(b) }},
		{"series.html", func(b *bytes.Buffer) { rep.HTML(b) }},
	} {
		var b bytes.Buffer
		f.write(&b)
		got := strings.ReplaceAll(b.String(), dir+"/", "DIR/")
		path := filepath.Join("testdata", f.name+".golden")
		if *update {
			os.MkdirAll("testdata", 0o755)
			os.WriteFile(path, []byte(got), 0o644)
		}
		want, err := os.ReadFile(path)
		if err != nil || got != string(want) {
			t.Errorf("%s differs from %s (go test -update to rewrite):\n%s", f.name, path, got)
		}
	}
}

func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		err  bool
	}{{"change:5%", 0.05, false}, {"change:12.5%", 0.125, false}, {"change:5", 0, true}, {"regression:5%", 0, true}, {"change:0%", 0, true}, {"change:x%", 0, true}} {
		got, err := ParseFailOn(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseFailOn(%q) = %v, %v", tc.in, got, err)
		}
	}
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time
		err  bool
	}{
		{"", time.Time{}, false}, {"30d", now.AddDate(0, 0, -30), false}, {"72h", now.Add(-72 * time.Hour), false},
		{"2026-11-01T00:00:00Z", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), false}, {"yesterday", time.Time{}, true}, {"-3d", time.Time{}, true},
	} {
		got, err := ParseSince(tc.in, now)
		if (err != nil) != tc.err || !got.Equal(tc.want) {
			t.Errorf("ParseSince(%q) = %v, %v", tc.in, got, err)
		}
	}
}

// TestMarkdownMatchesText: every change of the text report is a row of the
// markdown table, with the same size, levels, p-value and builds, and
// nothing else is.
func TestMarkdownMatchesText(t *testing.T) {
	rep, err := Build([]string{writeSeries(t, planted(t, 4, map[int]float64{20: 0.9, 45: 1.12}))}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var txt, md bytes.Buffer
	rep.Text(&txt)
	rep.Markdown(&md)
	fromText := map[string]bool{}
	lines := strings.Split(txt.String(), "\n")
	for i, l := range lines {
		// "  QPS: a change at run 21: -9.8% (10003 -> 9021 QPS), worse, p = 0.005"
		metric, rest, ok := strings.Cut(strings.TrimSpace(l), ": a change at run ")
		if !ok {
			continue
		}
		_, change, _ := strings.Cut(rest, ": ")
		change = strings.Replace(change, " "+metric+")", ")", 1)
		delta, p, _ := strings.Cut(change, ", p = ")
		build := func(s string) string { b, _, _ := strings.Cut(strings.TrimSpace(s), ", "); return b }
		before := build(strings.TrimPrefix(strings.TrimSpace(lines[i+1]), "last before: "))
		after := build(strings.TrimPrefix(strings.TrimSpace(lines[i+2]), "first after: "))
		fromText[strings.Join([]string{metric, delta, p, before, after}, " | ")] = true
	}
	fromMD := map[string]bool{}
	for _, l := range strings.Split(md.String(), "\n") {
		cells := strings.Split(strings.Trim(l, "| "), " | ")
		if len(cells) != 6 || cells[0] == "Series" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		build := func(s string) string { b, _, _ := strings.Cut(s, " ("); return b }
		fromMD[strings.Join([]string{cells[1], cells[2], cells[3], build(cells[4]), build(cells[5])}, " | ")] = true
	}
	if len(fromText) < 2 || len(fromText) != len(fromMD) {
		t.Fatalf("text changes %v, markdown rows %v", fromText, fromMD)
	}
	for k := range fromText {
		if !fromMD[k] {
			t.Errorf("the text's change %q is not a markdown row: %v", k, fromMD)
		}
	}
}
