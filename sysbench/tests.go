package sysbench

import (
	"fmt"
	"sort"
	"strings"
)

// stmtKind names a statement of oltp_common.lua's stmt_defs.
type stmtKind int

const (
	pointSelect stmtKind = iota
	simpleRange
	sumRange
	orderRange
	distinctRange
	indexUpdate
	nonIndexUpdate
	deleteRow
	insertRow
	numStmtKinds
)

// stmtDefs are sysbench's statements; %d is the table number. How a run
// counts each (read, write, other) follows from what it did, as in
// sysbench: see worker.Stmt.Counted.
var stmtDefs = [numStmtKinds]string{
	pointSelect:    "SELECT c FROM sbtest%d WHERE id=?",
	simpleRange:    "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ?",
	sumRange:       "SELECT SUM(k) FROM sbtest%d WHERE id BETWEEN ? AND ?",
	orderRange:     "SELECT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c",
	distinctRange:  "SELECT DISTINCT c FROM sbtest%d WHERE id BETWEEN ? AND ? ORDER BY c",
	indexUpdate:    "UPDATE sbtest%d SET k=k+1 WHERE id=?",
	nonIndexUpdate: "UPDATE sbtest%d SET c=? WHERE id=?",
	deleteRow:      "DELETE FROM sbtest%d WHERE id=?",
	insertRow:      "INSERT INTO sbtest%d (id, k, c, pad) VALUES (?, ?, ?, ?)",
}

// stmtNames are the statements' names in oltp_common.lua's stmt_defs: the
// names their client latency is kept under.
var stmtNames = [numStmtKinds]string{
	pointSelect:    "point_selects",
	simpleRange:    "simple_ranges",
	sumRange:       "sum_ranges",
	orderRange:     "order_ranges",
	distinctRange:  "distinct_ranges",
	indexUpdate:    "index_updates",
	nonIndexUpdate: "non_index_updates",
	deleteRow:      "deletes",
	insertRow:      "inserts",
}

// step is one group of an event: count executions of a statement kind on one
// randomly chosen table (delete+insert go together, as execute_delete_inserts).
type step struct {
	kind  stmtKind
	count int
}

// Test is one sysbench OLTP test.
type Test struct {
	Name string
	// steps returns the event's groups for the options; trx wraps them in BEGIN/COMMIT.
	steps func(o *Options) []step
	trx   bool
	// special events that are not lists of prepared steps
	custom customKind
}

type customKind int

const (
	none customKind = iota
	insertEvent
	randomPointsEvent
	randomRangesEvent
	bulkInsertEvent
)

func readSteps(o *Options) []step {
	s := []step{{pointSelect, o.PointSelects}}
	if o.RangeSelects {
		s = append(s, step{simpleRange, o.SimpleRanges}, step{sumRange, o.SumRanges},
			step{orderRange, o.OrderRanges}, step{distinctRange, o.DistinctRanges})
	}
	return s
}

func writeSteps(o *Options) []step {
	return []step{{indexUpdate, o.IndexUpdates}, {nonIndexUpdate, o.NonIndexUpdates}, {deleteRow, o.DeleteInserts}}
}

var tests = map[string]*Test{
	"oltp_point_select": {Name: "oltp_point_select", steps: func(o *Options) []step { return []step{{pointSelect, 1}} }},
	"oltp_read_only":    {Name: "oltp_read_only", trx: true, steps: readSteps},
	"oltp_read_write": {Name: "oltp_read_write", trx: true, steps: func(o *Options) []step {
		return append(readSteps(o), writeSteps(o)...)
	}},
	"oltp_write_only":       {Name: "oltp_write_only", trx: true, steps: writeSteps},
	"oltp_update_index":     {Name: "oltp_update_index", steps: func(o *Options) []step { return []step{{indexUpdate, o.IndexUpdates}} }},
	"oltp_update_non_index": {Name: "oltp_update_non_index", steps: func(o *Options) []step { return []step{{nonIndexUpdate, o.NonIndexUpdates}} }},
	"oltp_delete":           {Name: "oltp_delete", steps: func(o *Options) []step { return []step{{deleteRow, 1}} }, custom: none},
	"oltp_insert":           {Name: "oltp_insert", custom: insertEvent},
	"select_random_points":  {Name: "select_random_points", custom: randomPointsEvent},
	"select_random_ranges":  {Name: "select_random_ranges", custom: randomRangesEvent},
	"bulk_insert":           {Name: "bulk_insert", custom: bulkInsertEvent},
}

// deleteOnly marks oltp_delete's single DELETE (no INSERT after it).
func (t *Test) deleteOnly() bool { return t.Name == "oltp_delete" }

// Names lists the tests, sorted.
func Names() []string {
	var n []string
	for k := range tests {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Lookup finds a test by name; oltp_common is accepted for prepare and cleanup
// (it has the same tables as every oltp_* test).
func Lookup(name, command string) (*Test, error) {
	name = strings.TrimSuffix(name, ".lua")
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if name == "oltp_common" {
		if command == "run" {
			return nil, fmt.Errorf("oltp_common has no run command: name a test (%s)", strings.Join(Names(), ", "))
		}
		return tests["oltp_read_write"], nil
	}
	t, ok := tests[name]
	if !ok {
		return nil, fmt.Errorf("unknown test %q: use one of %s", name, strings.Join(Names(), ", "))
	}
	return t, nil
}

// Validate checks the options against the test.
func (t *Test) Validate(o *Options, command string) error {
	if o.Tables < 1 && t.custom != bulkInsertEvent {
		return fmt.Errorf("invalid --tables=%d: must be at least 1", o.Tables)
	}
	if o.TableSize < 0 || o.TableSize > 1<<31-1 {
		return fmt.Errorf("invalid --table-size=%d: must be in [0, 2147483647]", o.TableSize)
	}
	if o.RangeSize < 1 {
		return fmt.Errorf("invalid --range-size=%d: must be at least 1", o.RangeSize)
	}
	for _, c := range []struct {
		n string
		v int
	}{{"point-selects", o.PointSelects}, {"simple-ranges", o.SimpleRanges}, {"sum-ranges", o.SumRanges},
		{"order-ranges", o.OrderRanges}, {"distinct-ranges", o.DistinctRanges}, {"index-updates", o.IndexUpdates},
		{"non-index-updates", o.NonIndexUpdates}, {"delete-inserts", o.DeleteInserts}} {
		if c.v < 0 {
			return fmt.Errorf("invalid --%s=%d: must be 0 or more", c.n, c.v)
		}
	}
	if (t.custom == randomPointsEvent || t.custom == randomRangesEvent) && o.Tables != 1 && command != "run" {
		return fmt.Errorf("%s does not support --tables > 1 (sysbench neither): use --tables=1", t.Name)
	}
	if t.custom == randomPointsEvent && o.RandomPoints < 1 {
		return fmt.Errorf("invalid --random-points=%d: must be at least 1", o.RandomPoints)
	}
	if t.custom == randomRangesEvent && o.NumberOfRanges < 1 {
		return fmt.Errorf("invalid --number-of-ranges=%d: must be at least 1", o.NumberOfRanges)
	}
	if !validIdent(o.StorageEngine) {
		return fmt.Errorf("invalid --mysql-storage-engine=%q: a storage engine name like innodb", o.StorageEngine)
	}
	return nil
}

func validIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}
