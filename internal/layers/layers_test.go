package layers

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCheck: the rule on planted graphs, one wrong import each.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name    string
		imports map[string][]string
		want    string // "" for none
	}{
		{"down a layer", map[string][]string{"internal/engine/pipeline": {"loader", "internal/workload", "internal/conn"}}, ""},
		{"within a room", map[string][]string{"internal/conn": {"internal/options"}, "sysbench": {"sysbench/script"}}, ""},
		{"a foundation imports the engine", map[string][]string{"internal/conn": {"internal/engine/runner"}}, "internal/conn (foundations, layer 0) imports internal/engine/runner (engine, layer 3)"},
		{"a workload imports another", map[string][]string{"ch": {"tpcc"}}, "ch (ch, layer 2) imports tpcc (tpcc, layer 2)"},
		{"a workload imports the loader", map[string][]string{"tpcc": {"loader"}}, "tpcc (tpcc, layer 2) imports loader (loader, layer 2)"},
		{"the engine imports a report", map[string][]string{"internal/engine/plan": {"internal/report/compare"}}, "internal/engine/plan (engine, layer 3) imports internal/report/compare (report, layer 4)"},
		{"code imports a test server", map[string][]string{"cmd/oltpbench": {"internal/testenv/s3test"}}, "only tests may import"},
		{"a package in no room", map[string][]string{"internal/newthing": nil}, "internal/newthing is in no room"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bad := Check(c.imports)
			switch {
			case c.want == "" && len(bad) > 0:
				t.Errorf("found %q", bad)
			case c.want != "" && (len(bad) != 1 || !strings.Contains(bad[0], c.want)):
				t.Errorf("found %q, want one line with %q", bad, c.want)
			}
		})
	}
}

// moduleImports is go list's account of the module: each package's imports
// of the module's own packages, outside its tests.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		pkg := strings.TrimPrefix(f[0], Module+"/")
		m[pkg] = nil
		for _, d := range f[1:] {
			if rel, ok := strings.CutPrefix(d, Module+"/"); ok {
				m[pkg] = append(m[pkg], rel)
			}
		}
	}
	return m
}

// TestModule: every package of the module is in a room and imports by
// the rule.
func TestModule(t *testing.T) {
	imports := moduleImports(t)
	if len(imports) < 30 {
		t.Fatalf("go list found %d packages", len(imports))
	}
	for _, b := range Check(imports) {
		t.Error(b)
	}
}

// TestArchitectureMap: docs/ARCHITECTURE.md's map names every package go
// list finds, each under its room, and no package that is not there.
func TestArchitectureMap(t *testing.T) {
	b, err := os.ReadFile("../../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	begin, end := strings.Index(s, "<!-- map:begin -->"), strings.Index(s, "<!-- map:end -->")
	if begin < 0 || end < begin {
		t.Fatal("docs/ARCHITECTURE.md has no map between <!-- map:begin --> and <!-- map:end -->")
	}
	// | room | layer | packages |: packages in backquotes
	row := regexp.MustCompile("(?m)^\\| ([a-z ]+) \\| ([0-9]) \\| (.*)\\|$")
	shown := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(s[begin:end], -1) {
		for _, p := range regexp.MustCompile("`([a-z0-9/]+)`").FindAllStringSubmatch(m[3], -1) {
			shown[p[1]] = m[1]
			if r := RoomOf(p[1]); r == nil || r.Name != m[1] || m[2] != strconv.Itoa(r.Layer) {
				t.Errorf("the map puts %s in %s (layer %s); the rule: %v", p[1], m[1], m[2], r)
			}
		}
	}
	pkgs := moduleImports(t)
	var missing []string
	for pkg := range pkgs {
		if _, ok := shown[pkg]; !ok {
			missing = append(missing, pkg)
		}
	}
	slices.Sort(missing)
	for _, p := range missing {
		t.Errorf("docs/ARCHITECTURE.md's map does not show %s", p)
	}
	for p := range shown {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("docs/ARCHITECTURE.md's map shows %s, which go list does not find", p)
		}
	}
}
