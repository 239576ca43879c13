// Package layers is the rule of which package may import which, written
// once as data: every package of the module belongs to a room, every room
// to a layer, and a package may import a package of a lower layer, or of
// its own room. docs/ARCHITECTURE.md shows the same rooms; the tests hold
// the module's imports (go list) and that page to this table.
package layers

import (
	"fmt"
	"sort"
	"strings"
)

// Module is the module path the rooms' patterns are relative to.
const Module = "github.com/oltpbench/oltpbench"

// A Room is a group of packages that may import each other.
type Room struct {
	Name     string
	Layer    int      // a room imports only rooms of lower layers (and itself)
	Packages []string // paths under the module; "x/..." is x and everything below it
	TestOnly bool     // imported only by tests
	Generic  bool     // names no workload: knows workloads only through the contract
	Doc      string   // what the room is, for the map
}

// Rooms are the module's rooms, lowest layer first.
var Rooms = []Room{
	{Name: "foundations", Generic: true, Layer: 0, Doc: "what every layer uses: options, connections, histograms, results, deadlines, random numbers, live metrics; no workload named",
		Packages: []string{"internal/command", "internal/conn", "internal/dataset", "internal/deadline", "internal/gcpace",
			"internal/hist", "internal/measure", "internal/metrics", "internal/msglog", "internal/options", "internal/profile",
			"internal/random", "internal/result", "internal/term", "internal/worker", "csvgen"}},
	{Name: "contract", Generic: true, Layer: 1, Packages: []string{"internal/workload"},
		Doc: "the workload contract and registry: what a workload declares and provides"},
	{Name: "loader", Generic: true, Layer: 2, Packages: []string{"loader"},
		Doc: "the parallel loader: INSERT, LOAD DATA, CSV files, object storage, shards, resume"},
	{Name: "sysbench", Layer: 2, Packages: []string{"sysbench/..."}, Doc: "sysbench's OLTP tests, its Lua API and its machine tests"},
	{Name: "tpcc", Layer: 2, Packages: []string{"tpcc"}, Doc: "TPC-C and BenchmarkSQL's layout"},
	{Name: "ch", Layer: 2, Packages: []string{"ch"}, Doc: "CH-benCHmark, on TPC-C through the registry"},
	{Name: "kv", Layer: 2, Packages: []string{"kv"}, Doc: "the reference workload: key-value point reads and writes, the template to copy"},
	{Name: "ycsb", Layer: 2, Packages: []string{"ycsb"}, Doc: "YCSB's core workload, as go-ycsb runs it"},
	{Name: "tpch", Layer: 2, Packages: []string{"tpch", "tpch/dbgen"}, Doc: "TPC-H: dbgen's data, the 22 queries, the power and throughput tests"},
	{Name: "engine", Generic: true, Layer: 3, Packages: []string{"internal/engine/..."},
		Doc: "what runs a workload: the pipeline, plans, cells, the runner, events, evidence, client health"},
	{Name: "report", Generic: true, Layer: 4, Packages: []string{"internal/report/..."}, Doc: "reading results back: compare, show, merge, history"},
	{Name: "commands", Layer: 5, Packages: []string{"cmd/...", "scripts/..."}, Doc: "flags wired to packages, and the tools of the scripts"},
	{Name: "test servers", Layer: 5, Packages: []string{"internal/testenv/..."}, TestOnly: true,
		Doc: "throwaway S3 and Toxiproxy servers for the tests; whether the race detector is on"},
	{Name: "rules", Layer: 5, Packages: []string{"internal/layers"}, Doc: "this table"},
	{Name: "deploy", Layer: 5, Packages: []string{"deploy/..."}, Doc: "the example manifests, decoded strictly by their test"},
}

// RoomOf is the room of a package path under the module ("" for none).
func RoomOf(pkg string) *Room {
	for i := range Rooms {
		for _, p := range Rooms[i].Packages {
			if base, ok := strings.CutSuffix(p, "/..."); ok {
				if pkg == base || strings.HasPrefix(pkg, base+"/") {
					return &Rooms[i]
				}
			} else if pkg == p {
				return &Rooms[i]
			}
		}
	}
	return nil
}

// Check says which imports break the rule: imports maps a package (a path
// under the module) to the module's packages it imports outside its tests.
// Each finding is one line naming the import and the rule it breaks.
func Check(imports map[string][]string) []string {
	var bad []string
	for pkg, deps := range imports {
		from := RoomOf(pkg)
		if from == nil {
			bad = append(bad, fmt.Sprintf("%s is in no room: add it to layers.Rooms and docs/ARCHITECTURE.md", pkg))
			continue
		}
		for _, d := range deps {
			to := RoomOf(d)
			switch {
			case to == nil:
				bad = append(bad, fmt.Sprintf("%s imports %s, which is in no room", pkg, d))
			case to.TestOnly:
				bad = append(bad, fmt.Sprintf("%s imports %s (%s), which only tests may import", pkg, d, to.Name))
			case to == from:
			case to.Layer >= from.Layer:
				bad = append(bad, fmt.Sprintf("%s (%s, layer %d) imports %s (%s, layer %d): a room imports only lower layers", pkg, from.Name, from.Layer, d, to.Name, to.Layer))
			}
		}
	}
	sort.Strings(bad)
	return bad
}
