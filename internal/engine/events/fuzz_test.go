package events

import (
	"strings"
	"testing"
)

// FuzzParse: an --event spec gives an event whose Spec parses back to the
// same event, or one error line.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"at=20s;name=add index;timeout=5m;on_error=stop;sql=ALTER TABLE t ADD INDEX k(c)",
		"at=3s;name=restart;command=scripts/restart.sh a; b",
		"at=1m;sql=SELECT 1", "name=x", "at=-1s;sql=x", "at=1s;on_error=maybe;sql=x", ";;;=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			if m := err.Error(); m == "" || strings.Contains(m, "\n") {
				t.Fatalf("%q: want one error line, got %q", s, m)
			}
			return
		}
		if e.At < 0 || e.Timeout < 0 {
			t.Fatalf("%q: %+v", s, e)
		}
		e2, err := Parse(e.Spec())
		if err != nil || e2 != e {
			t.Fatalf("%q: Spec %q parses to %+v (%v), want %+v", s, e.Spec(), e2, err, e)
		}
	})
}
