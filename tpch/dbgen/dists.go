package dbgen

import (
	_ "embed"
	"strconv"
	"strings"
)

// dists.txt holds the TPC-H specification's value lists and their weights
// (clause 4.2.2.13 and 4.2.3: containers, colors, types, nations,
// regions, priorities, ship instructions and modes, return flags, market
// segments, and the text grammar's words and forms), as TPC's dbgen reads
// them from its dists.dss: "begin NAME", then text|weight lines, then
// "end". A nation's weights are steps, so that the running sum is its
// region's key.
//
//go:embed dists.txt
var distsText string

// dist is one list: its members and their running weights.
type dist struct {
	// first[j] is the first member whose running weight is at least j,
	// for every draw j in [1, total]: a pick is one lookup.
	first  []int32
	text   []string
	bytes  [][]byte   // text, as bytes
	tokens [][]string // text split at spaces (the grammar's forms)
	weight []int64    // running sum of the weights
}

func (d *dist) total() int64 { return d.weight[len(d.weight)-1] }

var dists = func() map[string]*dist {
	out := map[string]*dist{}
	var cur *dist
	for _, line := range strings.Split(distsText, "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "begin "):
			cur = &dist{}
			out[strings.TrimPrefix(line, "begin ")] = cur
		case line == "end":
			cur = nil
		default:
			i := strings.LastIndexByte(line, '|')
			w, err := strconv.ParseInt(line[i+1:], 10, 64)
			if err != nil || cur == nil {
				panic("dbgen: bad line in dists.txt: " + line)
			}
			var sum int64
			if n := len(cur.weight); n > 0 {
				sum = cur.weight[n-1]
			}
			cur.text = append(cur.text, line[:i])
			cur.bytes = append(cur.bytes, []byte(line[:i]))
			cur.tokens = append(cur.tokens, strings.Fields(line[:i]))
			cur.weight = append(cur.weight, sum+w)
		}
	}
	for _, d := range out {
		d.first = make([]int32, d.total()+1)
		for j := int64(1); j <= d.total(); j++ {
			k := 0
			for d.weight[k] < j {
				k++
			}
			d.first[j] = int32(k)
		}
	}
	return out
}()

func mustDist(name string) *dist {
	d, ok := dists[name]
	if !ok {
		panic("dbgen: no distribution " + name)
	}
	return d
}

var (
	containers   = mustDist("p_cntr")
	colors       = mustDist("colors")
	partTypes    = mustDist("p_types")
	nations      = mustDist("nations")
	regions      = mustDist("regions")
	priorities   = mustDist("o_oprio")
	instructions = mustDist("instruct")
	shipModes    = mustDist("smode")
	returnFlags  = mustDist("rflag")
	segments     = mustDist("msegmnt")
	nouns        = mustDist("nouns")
	verbs        = mustDist("verbs")
	adjectives   = mustDist("adjectives")
	adverbs      = mustDist("adverbs")
	auxiliaries  = mustDist("auxillaries")
	terminators  = mustDist("terminators")
	articles     = mustDist("articles")
	prepositions = mustDist("prepositions")
	grammar      = mustDist("grammar")
	nounPhrases  = mustDist("np")
	verbPhrases  = mustDist("vp")
)

// pick returns the index of a member of d chosen by its weight from stream i.
func (s *streams) pick(d *dist, i int) int {
	return int(d.first[s.random(1, d.total(), i)])
}

// Nations and Regions are the 25 nations (name, region key) and 5 regions.
func Nations() []string { return nations.text }

// NationRegion is the region key of nation n.
func NationRegion(n int) int64 { return nations.weight[n] }

// Regions are the 5 regions' names.
func Regions() []string { return regions.text }

// List returns a distribution's members by name (for the queries'
// substitution parameters): "colors", "p_types", "p_cntr", "msegmnt",
// "smode", "nations", "regions".
func List(name string) []string { return mustDist(name).text }
