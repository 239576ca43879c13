package tpch

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/oltpbench/oltpbench/tpch/dbgen"
)

// Params are each query's substitution parameters, by query number.
type Params map[int][]string

// DefaultParams are the specification's validation parameters (clause
// 2.4.N.4), with which its answer set was made at SF 1; Q11's fraction
// is 0.0001 / SF.
func DefaultParams(sf float64) Params {
	return Params{
		1: {"90"}, 2: {"15", "BRASS", "EUROPE"}, 3: {"BUILDING", "1995-03-15"}, 4: {"1993-07-01"},
		5: {"ASIA", "1994-01-01"}, 6: {"1994-01-01", "0.06", "24"}, 7: {"FRANCE", "GERMANY"},
		8: {"BRAZIL", "AMERICA", "ECONOMY ANODIZED STEEL"}, 9: {"green"}, 10: {"1993-10-01"},
		11: {"GERMANY", fraction(sf)}, 12: {"MAIL", "SHIP", "1994-01-01"}, 13: {"special", "requests"},
		14: {"1995-09-01"}, 15: {"1996-01-01"},
		16: {"Brand#45", "MEDIUM POLISHED", "49", "14", "23", "45", "19", "3", "36", "9"},
		17: {"Brand#23", "MED BOX"}, 18: {"300"}, 19: {"Brand#12", "Brand#23", "Brand#34", "1", "10", "20"},
		20: {"forest", "1994-01-01", "CANADA"}, 21: {"SAUDI ARABIA"},
		22: {"13", "31", "23", "29", "30", "18", "17"},
	}
}

func fraction(sf float64) string { return fmt.Sprintf("%.10f", 0.0001/sf) }

// RandomParams are parameters drawn as the specification's substitution
// rules draw them (clause 2.4.N.3), from r.
func RandomParams(sf float64, r *rand.Rand) Params {
	nations, regions := dbgen.Nations(), dbgen.Regions()
	colors, segments, modes := dbgen.List("colors"), dbgen.List("msegmnt"), dbgen.List("smode")
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	between := func(lo, hi int) int { return lo + r.IntN(hi-lo+1) }
	month := func(y1, m1, y2, m2 int) string { // the first of a month in [y1-m1, y2-m2]
		n := between(0, (y2-y1)*12+m2-m1)
		return time.Date(y1, time.Month(m1)+time.Month(n), 1, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
	}
	year := func() string { return fmt.Sprintf("%d-01-01", between(1993, 1997)) }
	brand := func() string { return fmt.Sprintf("Brand#%d%d", between(1, 5), between(1, 5)) }
	words := func(l []string, k int) []string { // the k-th word of each member, once each
		seen, out := map[string]bool{}, []string(nil)
		for _, m := range l {
			if w := strings.Fields(m); k < len(w) && !seen[w[k]] {
				seen[w[k]] = true
				out = append(out, w[k])
			}
		}
		return out
	}
	types, containers := dbgen.List("p_types"), dbgen.List("p_cntr")
	distinct := func(n int, draw func() string) []string {
		seen, out := map[string]bool{}, []string(nil)
		for len(out) < n {
			if v := draw(); !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
		return out
	}
	n8 := between(0, len(nations)-1)
	p := Params{
		1:  {fmt.Sprint(between(60, 120))},
		2:  {fmt.Sprint(between(1, 50)), pick(words(types, 2)), pick(regions)},
		3:  {pick(segments), fmt.Sprintf("1995-03-%02d", between(1, 31))},
		4:  {month(1993, 1, 1997, 10)},
		5:  {pick(regions), year()},
		6:  {year(), fmt.Sprintf("0.0%d", between(2, 9)), fmt.Sprint(between(24, 25))},
		7:  distinct(2, func() string { return pick(nations) }),
		8:  {nations[n8], regions[dbgen.NationRegion(n8)], pick(words(types, 0)) + " " + pick(words(types, 1)) + " " + pick(words(types, 2))},
		9:  {pick(colors)},
		10: {month(1993, 2, 1995, 1)},
		11: {pick(nations), fraction(sf)},
		12: append(distinct(2, func() string { return pick(modes) }), year()),
		13: {pick([]string{"special", "pending", "unusual", "express"}), pick([]string{"packages", "requests", "accounts", "deposits"})},
		14: {month(1993, 1, 1997, 12)},
		15: {month(1993, 1, 1997, 10)},
		16: append([]string{brand(), pick(words(types, 0)) + " " + pick(words(types, 1))},
			distinct(8, func() string { return fmt.Sprint(between(1, 50)) })...),
		17: {brand(), pick(words(containers, 0)) + " " + pick(words(containers, 1))},
		18: {fmt.Sprint(between(312, 315))},
		19: {brand(), brand(), brand(), fmt.Sprint(between(1, 10)), fmt.Sprint(between(10, 20)), fmt.Sprint(between(20, 30))},
		20: {pick(colors), year(), pick(nations)},
		21: {pick(nations)},
		22: distinct(7, func() string { return fmt.Sprint(10 + between(0, len(nations)-1)) }),
	}
	return p
}
