package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/result"
)

// TestKVReference: the reference workload through the pipeline on a real
// server: prepare loads the keyspace, a run with half writes counts each
// operation as one statement of its kind in the result, its default text
// report shows both operations, a run on more keys than loaded is
// refused, and cleanup drops the table.
func TestKVReference(t *testing.T) {
	needServer(t)
	t.Parallel()
	freshDB(t, "kvref")
	kvc := func(args ...string) res {
		return ob(t, nil, append(append([]string{"kv"}, args...), connArgs("kvref")...)...)
	}
	mustOK(t, kvc("prepare", "--keys=3000", "--value-size=16"), "prepare")
	var n int
	if err := openDB(t, "kvref").QueryRow("SELECT COUNT(*) FROM kv WHERE LENGTH(v) = 16").Scan(&n); err != nil || n != 3000 {
		t.Fatalf("kv holds %d rows of 16-byte values (%v), want 3000", n, err)
	}
	f := filepath.Join(t.TempDir(), "kv.json")
	r := kvc("run", "--keys=3000", "--value-size=16", "--threads=2", "--time=2", "--report-interval=1",
		"--read-percent=50", "--dist=zipfian", "--result-file="+f)
	mustOK(t, r, "run")
	for _, want := range []string{"] kv_read ", "] kv_write ", "\nTotal: ", "\noperation "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the default report has no %q:\n%s", want, r.stdout)
		}
	}
	res, err := result.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for _, op := range res.Ops {
		counts[op.Name] = op.Count
	}
	events := res.Totals["events"]
	if events == 0 || counts["kv_read"]+counts["kv_write"] != events || res.Totals["reads"] != counts["kv_read"] || res.Totals["writes"] > counts["kv_write"] {
		t.Errorf("events %d, reads %d/%d, writes %d/%d", events, counts["kv_read"], res.Totals["reads"], counts["kv_write"], res.Totals["writes"])
	}
	if share := float64(counts["kv_write"]) / float64(events); share < 0.4 || share > 0.6 {
		t.Errorf("writes are %.2f of the operations with --read-percent=50", share)
	}
	if v, unit := res.Throughput(); unit != "ops/s" || v <= 0 {
		t.Errorf("headline %v %s", v, unit)
	}
	if r := kvc("run", "--keys=9000", "--value-size=16", "--time=1"); r.code == 0 {
		t.Errorf("a run on 9000 keys of a 3000-key dataset passed:\n%s", r.stderr)
	}
	mustOK(t, kvc("cleanup"), "cleanup")
	if err := openDB(t, "kvref").QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'kvref'").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d tables left after cleanup (%v)", n, err)
	}
}
