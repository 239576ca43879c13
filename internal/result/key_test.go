package result

import (
	"encoding/json"
	"testing"
)

// TestKeySpellings: a key is what a cell was measured under, not how its
// command line spelled it; any changed value is another cell.
func TestKeySpellings(t *testing.T) {
	base := []string{"sysbench", "oltp_point_select", "--table-size=200", "--time=60", "--warmup-time=5", "--threads=1-4",
		"--p95-slo=10s", "--slo-steps=2", "--cooldown=1"}
	key := func(args []string) Key {
		t.Helper()
		k, err := ParseKey(args, "time", "warmup-time")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	want := key(base)
	for _, same := range [][]string{
		{"sysbench", "oltp_point_select", "--table_size=200", "--time=60", "--warmup_time=5", "--threads=1-4", "--p95_slo=10000ms", "--slo_steps=2", "--cooldown=1s"},
		{"sysbench", "oltp_point_select", "--cooldown=1", "--slo-steps=2", "--p95-slo=10s", "--threads=1-4", "--warmup-time=5s", "--time=1m", "--table-size=200"},
	} {
		if k := key(same); !k.Equal(want) {
			t.Errorf("%q: key %+v, want %+v", same, k, want)
		}
	}
	for i, other := range []string{"oltp_read_only", "--table-size=300", "--time=61", "--warmup-time=6", "--threads=1-8", "--p95-slo=11s", "--slo-steps=3", "--cooldown=2"} {
		args := append([]string(nil), base...)
		args[i+1] = other
		if key(args).Equal(want) {
			t.Errorf("%q is the same key as %q", args, base)
		}
	}
	// A key survives its file: what a result stores is what it compares.
	b, _ := json.Marshal(want)
	var back Key
	if err := json.Unmarshal(b, &back); err != nil || !back.Equal(want) {
		t.Errorf("round trip %s: %+v (%v)", b, back, err)
	}
	if _, err := ParseKey([]string{"--threads=many"}, "time", ""); err == nil {
		t.Error("--threads=many made a key")
	}
}
