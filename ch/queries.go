package ch

import (
	"embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The 22 analytical queries of CH-benCHmark (Cole et al., "The mixed
// workload CH-benCHmark", DBTest 2011), one file each, in the MySQL syntax
// TiDB users run them with go-tpc (whose texts, Apache-2.0, they are). One
// change: customers join their nation as the CH spec keys nations,
// ascii(substr(c_state,1,1)) = n_nationkey; go-tpc subtracts 65 because it
// loads TPC-H's 25 nations in place of the spec's 62.
//
//go:embed queries/*.sql
var queryFiles embed.FS

// Query is one analytical query.
type Query struct {
	Name string // q1 ... q22
	SQL  string // with the spec's table names
}

// Queries are the 22 queries in order.
var Queries = func() []Query {
	var qs []Query
	for i := 1; ; i++ {
		name := "q" + strconv.Itoa(i)
		b, err := queryFiles.ReadFile("queries/" + name + ".sql")
		if err != nil {
			return qs
		}
		qs = append(qs, Query{Name: name, SQL: strings.TrimSpace(string(b))})
	}
}()

// SelectQueries parses --queries: names from q1 to q22, comma-separated;
// "" or "all" is every query.
func SelectQueries(list string) ([]Query, error) {
	if list == "" || list == "all" {
		return Queries, nil
	}
	var out []Query
	for _, n := range strings.Split(list, ",") {
		n = strings.ToLower(strings.TrimSpace(n))
		i, err := strconv.Atoi(strings.TrimPrefix(n, "q"))
		if !strings.HasPrefix(n, "q") || err != nil || i < 1 || i > len(Queries) {
			return nil, fmt.Errorf("unknown query %q in --queries: use names from q1 to q%d, e.g. --queries=q1,q6,q14", n, len(Queries))
		}
		out = append(out, Queries[i-1])
	}
	return out, nil
}

// tpccWord matches TPC-C's table names as whole words (never a column:
// those have a prefix, o_entry_d).
var tpccWord = regexp.MustCompile(`\b(warehouse|district|customer|history|new_order|orders|order_line|item|stock)\b`)

// renamed writes q with the layout's table names.
func renamed(q string, names map[string]string) string {
	if len(names) == 0 {
		return q
	}
	return tpccWord.ReplaceAllStringFunc(q, func(t string) string {
		if n, ok := names[t]; ok {
			return n
		}
		return t
	})
}

// Statements are the queries and the view as they run on a TPC-C dataset
// whose tables have these names (Dataset.Names): for checking that CH and
// the layout agree.
func Statements(names map[string]string) []string {
	out := []string{renamed(revenue1, names)}
	for _, q := range Queries {
		out = append(out, renamed(q.SQL, names))
	}
	return out
}
