package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/oltpbench/oltpbench/internal/engine/cells"
)

const versioned = `[dataset]
workload = "sysbench"
options = { tables = 1 }
[versions]
list = ["A", "B", "C"]
deploy = "./deploy.sh {version}"
%s
[[step]]
test = "oltp_point_select"
threads = [1, 2]
time = "1s"
repeats = 3
[[step]]
test = "oltp_write_only"
threads = [1]
time = "1s"
repeats = 2
`

// visits writes a schedule as "A:1,2 B:1,2", each cell by step letter,
// threads and repeat.
func visits(vs []Visit) string {
	var out []string
	for _, v := range vs {
		var cs []string
		for _, c := range v.Cells {
			cs = append(cs, fmt.Sprintf("%c%dr%d", c.Series.Step[5], c.Threads, c.Repeat))
		}
		out = append(out, v.Version+":"+strings.Join(cs, ","))
	}
	return strings.Join(out, " ")
}

func TestSchedule(t *testing.T) {
	p, err := Parse("p.toml", []byte(fmt.Sprintf(versioned, "")), 0, known)
	if err != nil {
		t.Fatal(err)
	}
	cs := cells.Expand(p.Series(timing))
	for _, tc := range []struct {
		versions []string
		order    string
		want     string
	}{
		// Repeat r on every version, the order rotated each repeat; a
		// step with fewer repeats leaves the later rounds.
		{[]string{"A", "B", "C"}, OrderInterleaved, "A:p1r1,p2r1,w1r1 B:p1r1,p2r1,w1r1 C:p1r1,p2r1,w1r1 " +
			"B:p1r2,p2r2,w1r2 C:p1r2,p2r2,w1r2 A:p1r2,p2r2,w1r2 C:p1r3,p2r3 A:p1r3,p2r3 B:p1r3,p2r3"},
		// Two versions: the rotation puts B twice in a row, one visit.
		{[]string{"A", "B"}, OrderInterleaved, "A:p1r1,p2r1,w1r1 B:p1r1,p2r1,w1r1,p1r2,p2r2,w1r2 A:p1r2,p2r2,w1r2,p1r3,p2r3 B:p1r3,p2r3"},
		{[]string{"A"}, OrderInterleaved, "A:p1r1,p2r1,w1r1,p1r2,p2r2,w1r2,p1r3,p2r3"},
		{[]string{"A", "B"}, OrderBlocks, "A:p1r1,p2r1,p1r2,p2r2,p1r3,p2r3,w1r1,w1r2 B:p1r1,p2r1,p1r2,p2r2,p1r3,p2r3,w1r1,w1r2"},
	} {
		if got := visits(Schedule(tc.versions, cs, tc.order)); got != tc.want {
			t.Errorf("%v %s:\n got %s\nwant %s", tc.versions, tc.order, got, tc.want)
		}
	}
	if got := DescribeVersions(p, cs); !strings.Contains(got, "interleaved: 9 deploys") || !strings.Contains(got, "blocks would take 3 deploys") {
		t.Errorf("describe: %s", got)
	}
}

func TestVersionsChecks(t *testing.T) {
	for _, tc := range []struct{ keys, want string }{
		{`order = "random"`, `p.toml:7: [versions] order = "random": use "interleaved"`},
		{`restore = "command"`, `p.toml:7: [versions] restore = "command" needs restore_command`},
		{`restore_from = "csv"`, `p.toml:7: [versions] restore_from applies to restore = "reimport"`},
		{`ready_timeout = "soon"`, `p.toml:7: [versions] ready_timeout = "soon": a duration like 10m`},
		{`expect_version = "[{version}"`, `p.toml:7: [versions] expect_version = "[{version}": a pattern`},
		{`teardown = "MYSQL_PASSWORD=x ./down.sh"`, `p.toml:7: [versions] teardown: keep secrets out of plans`},
	} {
		_, err := Parse("p.toml", []byte(fmt.Sprintf(versioned, tc.keys)), 0, known)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %s...", tc.keys, err, tc.want)
		}
	}
	for _, tc := range []struct{ src, want string }{
		{strings.Replace(versioned, `list = ["A", "B", "C"]`, `list = ["A", "../B"]`, 1), `p.toml:5: version "../B": use letters`},
		{strings.Replace(versioned, `list = ["A", "B", "C"]`, `list = ["A", "A"]`, 1), `p.toml:5: version "A" is listed twice`},
		{strings.Replace(versioned, `deploy = "./deploy.sh {version}"`, ``, 1), `p.toml:4: [versions] needs deploy`},
	} {
		_, err := Parse("p.toml", []byte(fmt.Sprintf(tc.src, "")), 0, known)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("got %v, want %s...", err, tc.want)
		}
	}
	p, err := Parse("p.toml", []byte(fmt.Sprintf(versioned, "")), 0, known)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetVersions([]string{"B", "x/y"}); err == nil || !strings.Contains(err.Error(), `--versions: version "x/y"`) {
		t.Errorf("--versions with a path: %v", err)
	}
	if err := p.SetVersions([]string{"C", "A"}); err != nil || strings.Join(p.Versions.List, ",") != "C,A" {
		t.Errorf("--versions=C,A: %v %v", err, p.Versions.List)
	}
}

func TestExpectVersion(t *testing.T) {
	for _, tc := range []struct {
		pattern, version, reported string
		ok                         bool
	}{
		{"", "B", "anything", true},
		{"10.11.99-{version}", "B", "10.11.99-B", true},
		{"10.11.99-{version}", "B", "10.11.99-A", false},
		{"*-{version}-*", "v8.5.1", "8.0.11-TiDB-v8.5.1-a", true},
		{"*-{version}-*", "v8.5.1", "8.0.11-TiDB-v8.5.10-a", false},
		{"{version}*", "1.2[3]", "1.2[3]-x", true}, // the version's own * ? [ are literal
		{"{version}*", "1.2*", "1.25", false},
	} {
		v := &Versions{ExpectVersion: tc.pattern}
		if got := v.Matches(tc.version, tc.reported); got != tc.ok {
			t.Errorf("%q %q %q: %v", tc.pattern, tc.version, tc.reported, got)
		}
	}
}
