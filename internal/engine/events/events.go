// Package events runs operations during a measured run (a DDL, a restart
// of a server, any command) and measures what they did to it: the run split
// into windows before, during and after them, and each event's impact on
// throughput: how deep it fell, for how long, and how long it took to
// recover. It knows no workload: throughput is events per second.
package events

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// Outcomes of an event.
const (
	OnErrorRecord = "record" // a failed event is recorded; the run goes on
	OnErrorStop   = "stop"   // a failed event stops the run with its error
)

// DefaultTimeout bounds an event that names none.
const DefaultTimeout = time.Hour

// Event is one operation at a time after the measured start: SQL on a
// connection of its own, or a command (sh -c).
type Event struct {
	Name    string // as reports name it: given, or its SQL or command
	At      time.Duration
	SQL     string
	Command string
	Timeout time.Duration
	OnError string
}

// Kind is "sql" or "command".
func (e Event) Kind() string {
	if e.SQL != "" {
		return "sql"
	}
	return "command"
}

// keys of a spec, in the order Spec writes them; sql or command is last and
// takes the rest of the spec, semicolons included.
var keys = []string{"name", "at", "timeout", "on_error"}

// Parse reads an event spec: "at=20s;timeout=5m;on_error=stop;name=add
// index;sql=ALTER TABLE sbtest1 ADD INDEX c_1 (c)". sql= or command= comes
// last and takes the rest; at and one of them are required.
func Parse(spec string) (Event, error) {
	e := Event{Timeout: DefaultTimeout, OnError: OnErrorRecord}
	rest := strings.TrimSpace(spec)
	seen := map[string]bool{}
	for rest != "" {
		if seg, _, _ := strings.Cut(rest, ";"); !strings.Contains(seg, "=") {
			return e, fmt.Errorf("invalid --event=%s: %q is not key=value (at=20s;sql=... or at=20s;command=...)", options.Shown(spec), seg)
		}
		k, v, _ := strings.Cut(rest, "=")
		k = strings.TrimSpace(k)
		if seen[k] {
			return e, fmt.Errorf("invalid --event=%s: %s given twice", options.Shown(spec), options.Shown(k))
		}
		seen[k] = true
		if k == "sql" || k == "command" {
			v = strings.TrimSpace(v)
			if v == "" {
				return e, fmt.Errorf("invalid --event=%s: %s is empty", options.Shown(spec), options.Shown(k))
			}
			if k == "sql" {
				e.SQL = v
			} else {
				e.Command = v
			}
			rest = ""
			break
		}
		v, rest, _ = strings.Cut(v, ";")
		v = strings.TrimSpace(v)
		switch k {
		case "name":
			e.Name = v
		case "at", "timeout":
			d, err := workload.ParseSeconds(v)
			if err != nil {
				return e, fmt.Errorf("invalid --event=%s: %s: %w", options.Shown(spec), options.Shown(k), err)
			}
			if k == "at" {
				e.At = d
			} else if e.Timeout = d; d == 0 {
				return e, fmt.Errorf("invalid --event=%s: timeout must be more than 0", options.Shown(spec))
			}
		case "on_error":
			if v != OnErrorRecord && v != OnErrorStop {
				return e, fmt.Errorf("invalid --event=%s: on_error is %s or %s", options.Shown(spec), OnErrorRecord, OnErrorStop)
			}
			e.OnError = v
		default:
			return e, fmt.Errorf("invalid --event=%s: unknown key %q (name, at, timeout, on_error, then sql or command)", options.Shown(spec), k)
		}
	}
	if !seen["at"] {
		return e, fmt.Errorf("invalid --event=%s: no at= (the time after the measured start, e.g. at=20s)", options.Shown(spec))
	}
	if e.SQL == "" && e.Command == "" {
		return e, fmt.Errorf("invalid --event=%s: no sql= or command= (last: it takes the rest)", options.Shown(spec))
	}
	if e.Name == "" {
		// Its text, without what would end a name in a spec.
		e.Name = strings.ReplaceAll(shorten(e.SQL+e.Command, 60), ";", ",")
	}
	return e, nil
}

// Spec writes e as Parse reads it.
func (e Event) Spec() string {
	var b strings.Builder
	fmt.Fprintf(&b, "name=%s;at=%s;timeout=%s;on_error=%s;", e.Name, secs(e.At), secs(e.Timeout), e.OnError)
	if e.SQL != "" {
		b.WriteString("sql=" + e.SQL)
	} else {
		b.WriteString("command=" + e.Command)
	}
	return b.String()
}

// secs is d as Parse reads it back (never with an exponent).
func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s" }

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
