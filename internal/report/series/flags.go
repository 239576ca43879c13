package series

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseFailOn reads --fail-on=change:5% as the share 0.05.
func ParseFailOn(s string) (float64, error) {
	v, ok := strings.CutPrefix(s, "change:")
	pct, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if !ok || err != nil || !strings.HasSuffix(v, "%") || pct <= 0 || pct >= 100 {
		return 0, fmt.Errorf("invalid --fail-on=%s: use change:N%%, e.g. change:5%%", s)
	}
	return pct / 100, nil
}

// ParseSince reads --since: a date (2026-11-01), a time (RFC 3339), or a
// span back from now (30d, 72h).
func ParseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(d); err == nil && n > 0 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("invalid --since=%s: a date (2026-11-01), a time (RFC 3339) or a span back from now (30d, 72h)", s)
}
