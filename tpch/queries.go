package tpch

import (
	"embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The 22 queries of the TPC-H specification (clause 2.4), one file each,
// with the specification's parameter marks (:1, :2 ...; :s the stream's
// number in Q15's view), written as MySQL, MariaDB and TiDB run them: the
// row limits as LIMIT, Q1's interval without its precision, Q13's count
// named in the derived table in place of a column list.
//
//go:embed queries/*.sql
var queryFiles embed.FS

// Query is one of the 22 queries.
type Query struct {
	N    int    // 1 ... 22
	Name string // q1 ... q22
	Text string // with the parameter marks
}

// Queries are the 22 queries in order.
var Queries = func() []Query {
	var qs []Query
	for i := 1; i <= 22; i++ {
		name := "q" + strconv.Itoa(i)
		b, err := queryFiles.ReadFile("queries/" + name + ".sql")
		if err != nil {
			panic("tpch: " + err.Error())
		}
		qs = append(qs, Query{N: i, Name: name, Text: strings.TrimSpace(string(b))})
	}
	return qs
}()

// SelectQueries parses --queries: q1 to q22, comma-separated; "" or "all"
// is every query.
func SelectQueries(list string) ([]Query, error) {
	if list == "" || list == "all" {
		return Queries, nil
	}
	var out []Query
	seen := map[int]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.ToLower(strings.TrimSpace(n))
		i, err := strconv.Atoi(strings.TrimPrefix(n, "q"))
		if !strings.HasPrefix(n, "q") || err != nil || i < 1 || i > len(Queries) {
			return nil, fmt.Errorf("unknown query %q in --queries: TPC-H's queries are q1 to q22, e.g. --queries=q1,q6,q14", n)
		}
		if seen[i] {
			return nil, fmt.Errorf("query %s twice in --queries: name each query once", n)
		}
		seen[i] = true
		out = append(out, Queries[i-1])
	}
	return out, nil
}

var mark = regexp.MustCompile(`:(\d+|s)`)

// Statements are q's statements with the parameters and the stream's
// number in place of their marks: one, or Q15's three (the view made,
// the query, the view dropped).
func (q Query) Statements(params []string, stream int) []string {
	text := mark.ReplaceAllStringFunc(q.Text, func(m string) string {
		if m == ":s" {
			return strconv.Itoa(stream)
		}
		i, _ := strconv.Atoi(m[1:])
		if i < 1 || i > len(params) {
			panic(fmt.Sprintf("tpch: %s has mark %s and %d parameters", q.Name, m, len(params)))
		}
		return params[i-1]
	})
	var out []string
	for _, s := range strings.Split(text, ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// order is the specification's order of the queries in each stream
// (Appendix A): stream 0 is the power test's, streams 1 to S the
// throughput test's; from 41 on they repeat.
var order = [41][22]int{
	{14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12},
	{21, 3, 18, 5, 11, 7, 6, 20, 17, 12, 16, 15, 13, 10, 2, 8, 14, 19, 9, 22, 1, 4},
	{6, 17, 14, 16, 19, 10, 9, 2, 15, 8, 5, 22, 12, 7, 13, 18, 1, 4, 20, 3, 11, 21},
	{8, 5, 4, 6, 17, 7, 1, 18, 22, 14, 9, 10, 15, 11, 20, 2, 21, 19, 13, 16, 12, 3},
	{5, 21, 14, 19, 15, 17, 12, 6, 4, 9, 8, 16, 11, 2, 10, 18, 1, 13, 7, 22, 3, 20},
	{21, 15, 4, 6, 7, 16, 19, 18, 14, 22, 11, 13, 3, 1, 2, 5, 8, 20, 12, 17, 10, 9},
	{10, 3, 15, 13, 6, 8, 9, 7, 4, 11, 22, 18, 12, 1, 5, 16, 2, 14, 19, 20, 17, 21},
	{18, 8, 20, 21, 2, 4, 22, 17, 1, 11, 9, 19, 3, 13, 5, 7, 10, 16, 6, 14, 15, 12},
	{19, 1, 15, 17, 5, 8, 9, 12, 14, 7, 4, 3, 20, 16, 6, 22, 10, 13, 2, 21, 18, 11},
	{8, 13, 2, 20, 17, 3, 6, 21, 18, 11, 19, 10, 15, 4, 22, 1, 7, 12, 9, 14, 5, 16},
	{6, 15, 18, 17, 12, 1, 7, 2, 22, 13, 21, 10, 14, 9, 3, 16, 20, 19, 11, 4, 8, 5},
	{15, 14, 18, 17, 10, 20, 16, 11, 1, 8, 4, 22, 5, 12, 3, 9, 21, 2, 13, 6, 19, 7},
	{1, 7, 16, 17, 18, 22, 12, 6, 8, 9, 11, 4, 2, 5, 20, 21, 13, 10, 19, 3, 14, 15},
	{21, 17, 7, 3, 1, 10, 12, 22, 9, 16, 6, 11, 2, 4, 5, 14, 8, 20, 13, 18, 15, 19},
	{2, 9, 5, 4, 18, 1, 20, 15, 16, 17, 7, 21, 13, 14, 19, 8, 22, 11, 10, 3, 12, 6},
	{16, 9, 17, 8, 14, 11, 10, 12, 6, 21, 7, 3, 15, 5, 22, 20, 1, 13, 19, 2, 4, 18},
	{1, 3, 6, 5, 2, 16, 14, 22, 17, 20, 4, 9, 10, 11, 15, 8, 12, 19, 18, 13, 7, 21},
	{3, 16, 5, 11, 21, 9, 2, 15, 10, 18, 17, 7, 8, 19, 14, 13, 1, 4, 22, 20, 6, 12},
	{14, 4, 13, 5, 21, 11, 8, 6, 3, 17, 2, 20, 1, 19, 10, 9, 12, 18, 15, 7, 22, 16},
	{4, 12, 22, 14, 5, 15, 16, 2, 8, 10, 17, 9, 21, 7, 3, 6, 13, 18, 11, 20, 19, 1},
	{16, 15, 14, 13, 4, 22, 18, 19, 7, 1, 12, 17, 5, 10, 20, 3, 9, 21, 11, 2, 6, 8},
	{20, 14, 21, 12, 15, 17, 4, 19, 13, 10, 11, 1, 16, 5, 18, 7, 8, 22, 9, 6, 3, 2},
	{16, 14, 13, 2, 21, 10, 11, 4, 1, 22, 18, 12, 19, 5, 7, 8, 6, 3, 15, 20, 9, 17},
	{18, 15, 9, 14, 12, 2, 8, 11, 22, 21, 16, 1, 6, 17, 5, 10, 19, 4, 20, 13, 3, 7},
	{7, 3, 10, 14, 13, 21, 18, 6, 20, 4, 9, 8, 22, 15, 2, 1, 5, 12, 19, 17, 11, 16},
	{18, 1, 13, 7, 16, 10, 14, 2, 19, 5, 21, 11, 22, 15, 8, 17, 20, 3, 4, 12, 6, 9},
	{13, 2, 22, 5, 11, 21, 20, 14, 7, 10, 4, 9, 19, 18, 6, 3, 1, 8, 15, 12, 17, 16},
	{14, 17, 21, 8, 2, 9, 6, 4, 5, 13, 22, 7, 15, 3, 1, 18, 16, 11, 10, 12, 20, 19},
	{10, 22, 1, 12, 13, 18, 21, 20, 2, 14, 16, 7, 15, 3, 4, 17, 5, 19, 6, 8, 9, 11},
	{10, 8, 9, 18, 12, 6, 1, 5, 20, 11, 17, 22, 16, 3, 13, 2, 15, 21, 14, 19, 7, 4},
	{7, 17, 22, 5, 3, 10, 13, 18, 9, 1, 14, 15, 21, 19, 16, 12, 8, 6, 11, 20, 4, 2},
	{2, 9, 21, 3, 4, 7, 1, 11, 16, 5, 20, 19, 18, 8, 17, 13, 10, 12, 15, 6, 14, 22},
	{15, 12, 8, 4, 22, 13, 16, 17, 18, 3, 7, 5, 6, 1, 9, 11, 21, 10, 14, 20, 19, 2},
	{15, 16, 2, 11, 17, 7, 5, 14, 20, 4, 21, 3, 10, 9, 12, 8, 13, 6, 18, 19, 22, 1},
	{1, 13, 11, 3, 4, 21, 6, 14, 15, 22, 18, 9, 7, 5, 10, 20, 12, 16, 17, 8, 19, 2},
	{14, 17, 22, 20, 8, 16, 5, 10, 1, 13, 2, 21, 12, 9, 4, 18, 3, 7, 6, 19, 15, 11},
	{9, 17, 7, 4, 5, 13, 21, 18, 11, 3, 22, 1, 6, 16, 20, 14, 15, 10, 8, 2, 12, 19},
	{13, 14, 5, 22, 19, 11, 9, 6, 18, 15, 8, 10, 7, 4, 17, 16, 3, 1, 12, 2, 21, 20},
	{20, 5, 4, 14, 11, 1, 6, 16, 8, 22, 7, 3, 2, 12, 21, 19, 17, 13, 10, 15, 18, 9},
	{3, 7, 14, 15, 6, 5, 21, 20, 18, 10, 4, 16, 19, 1, 13, 9, 8, 17, 11, 12, 22, 2},
	{13, 15, 17, 1, 22, 11, 3, 4, 7, 20, 14, 21, 9, 8, 2, 18, 16, 6, 10, 12, 5, 19},
}

// StreamOrder is stream s's queries among qs, in the specification's
// order for the stream.
func StreamOrder(s int, qs []Query) []Query {
	in := map[int]Query{}
	for _, q := range qs {
		in[q.N] = q
	}
	var out []Query
	for _, n := range order[s%len(order)] {
		if q, ok := in[n]; ok {
			out = append(out, q)
		}
	}
	return out
}
