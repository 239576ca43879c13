package cells

import (
	"strings"
	"testing"
)

// FuzzParseThreads: --threads as a count, a list, a range or a schedule
// gives levels within the thread limit, or one error line.
func FuzzParseThreads(f *testing.F) {
	for _, s := range []string{"16", "150,300,600", "8-1024", "16@60s,32@60s", "1@2s,2@2s,4@2s", "0", "-3", "1,,2", "99999999999"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, search bool) {
		levels, lo, hi, err := ParseThreads(s, search)
		if err != nil {
			if m := err.Error(); m == "" || strings.Contains(m, "\n") {
				t.Fatalf("%q: want one error line, got %q", s, m)
			}
			return
		}
		for _, n := range levels {
			if n < 1 {
				t.Fatalf("%q: level %d", s, n)
			}
		}
		if len(levels) == 0 && (lo < 1 || hi < lo) {
			t.Fatalf("%q: no levels and range %d-%d", s, lo, hi)
		}
		if sched, err := ThreadSchedule(s); err == nil {
			for _, sg := range sched {
				if sg.From < 1 || sg.To < 1 || sg.Dur <= 0 {
					t.Fatalf("%q: segment %+v", s, sg)
				}
			}
		}
	})
}
