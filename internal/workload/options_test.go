package workload

import (
	"fmt"
	"testing"
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
