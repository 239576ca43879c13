package workload

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// CheckThreads is the one wording every command gives a bad thread count.
func TestCheckThreads(t *testing.T) {
	for n, want := range map[int]string{0: "invalid --threads=0: must be at least 1", -3: "invalid --threads=-3: must be at least 1", 1: "", 64: ""} {
		err := CheckThreads(n)
		if got := fmt.Sprint(err); want == "" && err != nil || want != "" && got != want {
			t.Errorf("%d: %v, want %q", n, err, want)
		}
	}
}

// TestSchedule: steady segments and ramps, read and followed over time; a
// bad one named.
func TestSchedule(t *testing.T) {
	segs, err := ParseSchedule("500@60s, 100-2000@2m,0@1")
	if err != nil {
		t.Fatal(err)
	}
	want := []Segment{{500, 500, time.Minute}, {100, 2000, 2 * time.Minute}, {0, 0, time.Second}}
	if len(segs) != 3 || segs[0] != want[0] || segs[1] != want[1] || segs[2] != want[2] {
		t.Fatalf("%+v", segs)
	}
	for at, level := range map[time.Duration]float64{0: 500, 59 * time.Second: 500, time.Minute: 100, 2 * time.Minute: 1050, 3*time.Minute - 1: 2000, 3 * time.Minute: 0, time.Hour: 0} {
		if got := ScheduleAt(segs, at); math.Abs(got-level) > 0.01 {
			t.Errorf("at %v: %v, want %v", at, got, level)
		}
	}
	if ScheduleLength(segs) != 3*time.Minute+time.Second {
		t.Errorf("length %v", ScheduleLength(segs))
	}
	for _, bad := range []string{"500", "500@", "500@0s", "fast@1m", "-5@1m", "100-@1m"} {
		if _, err := ParseSchedule(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
