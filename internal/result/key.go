package result

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The flag names that cells, plans, merge and compare read or write: one
// place, so that re-spelling one is one edit and no string elsewhere
// silently stops matching.
const (
	FlagThreads    = "threads"
	FlagTime       = "time"
	FlagP95SLO     = "p95-slo"
	FlagSLOSteps   = "slo-steps"
	FlagCooldown   = "cooldown"
	FlagRepeat     = "repeat"
	FlagResultFile = "result-file"
	FlagResultDir  = "result-dir"
	FlagStartAt    = "start-at"
	FlagMetrics    = "metrics-addr"
	FlagClientID   = "client-id"
	FlagEvent      = "event" // repeated: each one an event of the run
)

// KeyVersion is the layout of Key. A result written before keys (it has
// only Cell.Args) is read into a key by ParseKey, so its folder resumes.
const KeyVersion = 1

// Key is a cell's identity, typed: what its run was measured under. Two
// runs are the same cell when their keys are Equal, whatever the spelling
// of the command line that asked for them (--table_size or --table-size,
// --p95-slo=10s or 10000ms).
type Key struct {
	V       int               `json:"v"`
	Command []string          `json:"command"`           // workload, test and other positional arguments
	Options map[string]string `json:"options,omitempty"` // the workload's options, by canonical name
	Time    int64             `json:"time_s"`            // the measured time, seconds
	Warmup  int64             `json:"warmup_s,omitempty"`
	Threads int               `json:"threads,omitempty"` // a sweep's level
	// Schedule is a run's --threads schedule within it (16@60s,32@60s),
	// as the cell wrote it: a run of the schedule's most threads is
	// another cell.
	Schedule string     `json:"threads_schedule,omitempty"`
	Search   *SearchKey `json:"search,omitempty"` // a p95 search
}

// SearchKey is a p95 search's identity: its range, limit, steps and
// cooldown between steps.
type SearchKey struct {
	Lo       int   `json:"lo"`
	Hi       int   `json:"hi"`
	LimitNS  int64 `json:"limit_ns"`
	Steps    int   `json:"steps"`
	Cooldown int64 `json:"cooldown_s,omitempty"`
}

// CanonicalFlag is a flag's name as keys hold it: without dashes in
// front, '_' read as '-' (sysbench's habit, which options.Normalize has).
func CanonicalFlag(name string) string {
	return strings.ReplaceAll(strings.TrimLeft(name, "-"), "_", "-")
}

// Equal says whether two keys name the same cell.
func (k Key) Equal(o Key) bool {
	if k.V != o.V || !slices.Equal(k.Command, o.Command) || !maps.Equal(k.Options, o.Options) ||
		k.Time != o.Time || k.Warmup != o.Warmup || k.Threads != o.Threads || k.Schedule != o.Schedule || (k.Search == nil) != (o.Search == nil) {
		return false
	}
	return k.Search == nil || *k.Search == *o.Search
}

// ParseKey reads a cell's command line into its key: timeFlag and
// warmupFlag are the names the workload binds to the run's time and
// warm-up. It reads the command lines results recorded before keys.
func ParseKey(args []string, timeFlag, warmupFlag string) (Key, error) {
	k := Key{V: KeyVersion, Options: map[string]string{}}
	var search SearchKey
	searching := false
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			k.Command = append(k.Command, a)
			continue
		}
		name, value, _ := strings.Cut(a, "=")
		name = CanonicalFlag(name)
		var err error
		switch name {
		case CanonicalFlag(timeFlag):
			k.Time, err = seconds(value)
		case CanonicalFlag(warmupFlag):
			k.Warmup, err = seconds(value)
		case FlagThreads:
			if strings.Contains(value, "@") {
				k.Schedule = value
			} else if lo, hi, ok := strings.Cut(value, "-"); ok {
				searching = true
				search.Lo, err = strconv.Atoi(lo)
				if err == nil {
					search.Hi, err = strconv.Atoi(hi)
				}
			} else {
				k.Threads, err = strconv.Atoi(value)
			}
		case FlagP95SLO:
			var d time.Duration
			d, err = time.ParseDuration(value)
			search.LimitNS = int64(d)
		case FlagSLOSteps:
			search.Steps, err = strconv.Atoi(value)
		case FlagCooldown:
			search.Cooldown, err = seconds(value)
		case FlagEvent: // every one counts, in order
			if prev, ok := k.Options[name]; ok {
				value = prev + "\n" + value
			}
			k.Options[name] = value
		default:
			k.Options[name] = value
		}
		if err != nil {
			return Key{}, fmt.Errorf("cell key: %s: %w", a, err)
		}
	}
	if searching {
		k.Search = &search
	}
	return k, nil
}

// seconds reads a duration given in whole seconds (the plan writes them
// so) or with a unit.
func seconds(v string) (int64, error) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, nil
	}
	d, err := time.ParseDuration(v)
	return int64(d / time.Second), err
}
