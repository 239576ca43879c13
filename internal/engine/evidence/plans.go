package evidence

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/worker"
)

// Plans reads the plan of each sampled statement that has one (SELECT,
// UPDATE, DELETE), with the arguments first drawn for it: EXPLAIN
// FORMAT=JSON on MySQL and MariaDB, EXPLAIN FORMAT='brief' on TiDB (its
// rows: id, estRows, task, access object, operator info; see
// https://docs.pingcap.com/tidb/stable/explain-overview). A statement the
// server will not explain is left out.
func (r *Reader) Plans(ctx context.Context, samples []worker.Sample) []result.Plan {
	var out []result.Plan
	r.read(ctx, func(ctx context.Context) { out = r.plans(ctx, samples) })
	if r.gate.Missed() != nil {
		return nil
	}
	return out
}

func (r *Reader) plans(ctx context.Context, samples []worker.Sample) []result.Plan {
	var out []result.Plan
	for _, s := range samples {
		if !explainable(s.Query) {
			continue
		}
		args := make([]any, len(s.Args))
		for i, a := range s.Args {
			args[i] = a
		}
		var p result.Plan
		var err error
		if r.tidb {
			p, err = r.briefPlan(ctx, s.Query, args)
		} else {
			p, err = r.jsonPlan(ctx, s.Query, args)
		}
		if err != nil {
			r.note(err, "plans")
			continue
		}
		out = append(out, p)
	}
	return out
}

var explainableRe = regexp.MustCompile(`(?i)^\s*(SELECT|UPDATE|DELETE)\b`)

func explainable(q string) bool { return explainableRe.MatchString(q) }

func (r *Reader) jsonPlan(ctx context.Context, q string, args []any) (result.Plan, error) {
	var text string
	if err := r.db.QueryRowContext(ctx, "EXPLAIN FORMAT=JSON "+q, args...).Scan(&text); err != nil {
		return result.Plan{}, err
	}
	var doc any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		return result.Plan{}, fmt.Errorf("the plan of %s is not JSON: %w", q, err)
	}
	return result.Plan{Query: q, Shape: JSONShape(doc), Explain: text}, nil
}

func (r *Reader) briefPlan(ctx context.Context, q string, args []any) (result.Plan, error) {
	var rows [][]string
	err := conn.QueryStrings(ctx, r.db, "EXPLAIN FORMAT='brief' "+q, func(v []sql.NullString) error {
		row := make([]string, len(v))
		for i, x := range v {
			row[i] = x.String
		}
		rows = append(rows, row)
		return nil
	}, args...)
	if err != nil {
		return result.Plan{}, err
	}
	var text []string
	for _, row := range rows {
		text = append(text, strings.Join(row, "\t"))
	}
	return result.Plan{Query: q, Shape: BriefShape(rows), Explain: strings.Join(text, "\n")}, nil
}

// shapeKeys are the parts of a MySQL/MariaDB JSON plan that make its shape:
// tables, access types, indexes and the operations around them; rows,
// costs and conditions (which hold the parameters) are left out.
var shapeKeys = map[string]bool{"table_name": true, "access_type": true, "key": true, "using_index": true,
	"using_filesort": true, "using_temporary_table": true, "filesort": true, "temporary_table": true, "index_merge": true,
	"using_join_buffer": true, "union_result": true}

// JSONShape is a JSON plan's shape: per table "table access_type key",
// in plan order, with the operations (filesort, temporary table) that
// wrap them.
func JSONShape(doc any) string {
	var parts []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if t, ok := x["table_name"].(string); ok {
				p := t + " " + fmt.Sprint(x["access_type"])
				if k, ok := x["key"].(string); ok {
					p += " " + k
				}
				if b, ok := x["using_index"].(bool); ok && b {
					p += " (covering)"
				}
				parts = append(parts, p)
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if k == "filesort" || k == "temporary_table" {
					parts = append(parts, k)
				}
				if !shapeKeys[k] || k == "filesort" || k == "temporary_table" || k == "index_merge" {
					walk(x[k])
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(doc)
	return strings.Join(parts, "; ")
}

var planID = regexp.MustCompile(`_\d+$`)

// BriefShape is a TiDB brief plan's shape: per operator its name (without
// the _N suffix), task and access object, estimates and operator info
// (which hold the parameters) left out.
func BriefShape(rows [][]string) string {
	var parts []string
	for _, r := range rows {
		if len(r) < 4 {
			continue
		}
		p := planID.ReplaceAllString(strings.TrimRight(r[0], " "), "") + " " + r[2] // the indent is the tree
		if r[3] != "" {
			p += " " + r[3]
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}
