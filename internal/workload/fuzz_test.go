package workload

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzParseSeconds: --time and its kin give a duration of at least zero or
// one error line.
func FuzzParseSeconds(f *testing.F) {
	for _, s := range []string{"10", "0", "1.5", "5m", "2h30m", "-1", "1e9", "off", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseSeconds(s)
		if err != nil {
			oneLine(t, err)
			return
		}
		if d < 0 {
			t.Fatalf("%q: %v", s, d)
		}
	})
}

// FuzzParseSchedule: a --rate schedule parses into segments whose rates
// stay within the ones given, or one error line.
func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{"500@60s,1000@60s", "100-2000@2m", "10", "nan@1s", "1-inf@1s", "0.5@1.5", "1e3@1ms", "0@1s", "1-@1s", "5@", "@", "1@1s,2@0s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		segs, err := ParseSchedule(s)
		if err != nil {
			oneLine(t, err)
			return
		}
		if back, err := ParseSchedule(FormatSchedule(segs)); err != nil || !slices.Equal(back, segs) {
			t.Fatalf("%q written as %q reads back as %v (%v), not %v", s, FormatSchedule(segs), back, err, segs)
		}
		n := ScheduleLength(segs)
		if n < 0 {
			t.Fatalf("%q: length %v", s, n)
		}
		lo, hi := 0.0, 0.0
		for i, sg := range segs {
			if i == 0 || min(sg.From, sg.To) < lo {
				lo = min(sg.From, sg.To)
			}
			hi = max(hi, sg.From, sg.To)
		}
		for _, at := range []time.Duration{0, n / 3, n / 2, n, n + time.Second} {
			if r := ScheduleAt(segs, at); len(segs) > 0 && (r < lo || r > hi) {
				t.Fatalf("%q at %v: %v, outside %v..%v", s, at, r, lo, hi)
			}
		}
	})
}

func oneLine(t *testing.T, err error) {
	t.Helper()
	if m := err.Error(); m == "" || strings.Contains(m, "\n") {
		t.Fatalf("want one error line, got %q", m)
	}
}
