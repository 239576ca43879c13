// Package race tells a test whether the race detector is on, so that a
// test of pure computation (statistics, parsing), ten times slower under
// the detector and with no goroutines of its own to check, can leave the
// race run to run once without it: make test (scripts/test.sh) runs the
// tests that call Skip again without -race, by the names its heavy list
// holds, and this package's test checks that list against the calls.
package race

import "testing"

// Skip skips t when the race detector is on.
func Skip(t testing.TB) {
	t.Helper()
	if Enabled {
		t.Skip("computation only, ten times slower under -race: make test runs it without (scripts/test.sh's heavy list)")
	}
}
