package loader

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestUnitRetriesWrappedLocks: a unit's deadlock or lock wait timeout is
// redone however many times it was wrapped on the way up (the error rule);
// any other error ends the unit at once.
func TestUnitRetriesWrappedLocks(t *testing.T) {
	deadlock := &mysql.MySQLError{Number: 1213, Message: "Deadlock found"}
	wait := &mysql.MySQLError{Number: 1205, Message: "Lock wait timeout exceeded"}
	for _, c := range []struct {
		name     string
		err      error
		attempts int
	}{
		{"deadlock", deadlock, 3},
		{"wrapped deadlock", fmt.Errorf("loading t unit 3: %w", fmt.Errorf("INSERT: %w", deadlock)), 3},
		{"wrapped lock wait", fmt.Errorf("unit: %w", wait), 3},
		{"other error", fmt.Errorf("unit: %w", &mysql.MySQLError{Number: 1146, Message: "no such table"}), 1},
	} {
		n := 0
		l, err := retryLocked(context.Background(), func(context.Context) (loaded, error) {
			n++
			if n < 3 {
				return loaded{}, c.err
			}
			return loaded{Rows: 7, Bytes: 70}, nil
		})
		if n != c.attempts {
			t.Errorf("%s: %d attempts, want %d", c.name, n, c.attempts)
		}
		if c.attempts == 3 && (err != nil || l.Rows != 7) {
			t.Errorf("%s: %+v, %v after the retries", c.name, l, err)
		}
		if c.attempts == 1 && err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}
