package plan

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/oltpbench/oltpbench/internal/engine/cells"
)

// Versions is a plan's [versions] table: the versions its cells run on,
// each brought up by deploy, its dataset restored, and taken down by
// teardown. Each version's results go into RESULT_DIR/<version>/, as a plan
// of one version writes them.
type Versions struct {
	List           []string `toml:"list"`     // in release order: the report's order
	Deploy         string   `toml:"deploy"`   // sh -c in the plan's folder, {version} substituted
	Teardown       string   `toml:"teardown"` // optional: after a version's cells
	Timeout        string   `toml:"timeout"`  // deploy's and teardown's, default 30m
	ReadyTimeout   string   `toml:"ready_timeout"`
	ExpectVersion  string   `toml:"expect_version"` // a pattern (* and ?) with {version}
	Restore        string   `toml:"restore"`        // none (default), reload, reimport or command
	RestoreCommand string   `toml:"restore_command"`
	RestoreFrom    string   `toml:"restore_from"`
	RestoreTimeout string   `toml:"restore_timeout"`
	Order          string   `toml:"order"` // interleaved (default) or blocks
}

// The orders of a plan's versions: interleaved runs repeat r of every
// version in turn, the order rotated each repeat; blocks runs each version's
// cells together (one deploy each).
const (
	OrderInterleaved = "interleaved"
	OrderBlocks      = "blocks"
	RestoreNone      = "none"
)

// Defaults of [versions].
const (
	DefaultDeployTimeout = 30 * time.Minute
	DefaultReadyTimeout  = 10 * time.Minute
)

var versionName = regexp.MustCompile(`^[A-Za-z0-9_.+-]+$`)

// checkVersions checks [versions] and fills in its defaults.
func (p *Plan) checkVersions() error {
	v := p.Versions
	if v == nil {
		return nil
	}
	if len(v.List) == 0 {
		return p.errAt("versions", "[versions] needs list = [\"A\", \"B\", ...]: the versions in release order")
	}
	if err := p.checkVersionList(v.List, "versions.list"); err != nil {
		return err
	}
	if strings.TrimSpace(v.Deploy) == "" {
		return p.errAt("versions", "[versions] needs deploy = the command that brings {version} up (\"true\" when the versions need no deploy)")
	}
	for _, d := range []struct{ key, v string }{{"timeout", v.Timeout}, {"ready_timeout", v.ReadyTimeout}, {"restore_timeout", v.RestoreTimeout}} {
		if d.v == "" {
			continue
		}
		if x, err := time.ParseDuration(d.v); err != nil || x <= 0 {
			return p.errAt("versions."+d.key, "[versions] %s = %q: a duration like 10m", d.key, d.v)
		}
	}
	switch v.Order {
	case "":
		v.Order = OrderInterleaved
	case OrderInterleaved, OrderBlocks:
	default:
		return p.errAt("versions.order", "[versions] order = %q: use \"interleaved\" (the default: repeat by repeat, rotated) or \"blocks\" (each version's cells together)", v.Order)
	}
	if v.ExpectVersion != "" {
		if _, err := path.Match(v.expected("x"), ""); err != nil {
			return p.errAt("versions.expect_version", "[versions] expect_version = %q: a pattern with * and ? and {version}, like \"*-{version}\"", v.ExpectVersion)
		}
	}
	for _, c := range []struct{ key, v string }{{"deploy", v.Deploy}, {"teardown", v.Teardown}, {"restore_command", v.RestoreCommand}} {
		if l := strings.ToLower(c.v); strings.Contains(l, "password") || strings.Contains(l, "secret") {
			return p.errAt("versions."+c.key, "[versions] %s: keep secrets out of plans (results keep a copy): the command gets the password as MYSQL_PWD", c.key)
		}
	}
	return p.checkRestore()
}

// checkVersionList checks the versions' names: each names a folder.
func (p *Plan) checkVersionList(list []string, key string) error {
	seen := map[string]bool{}
	for _, n := range list {
		if !versionName.MatchString(n) || n == "." || n == ".." {
			return p.errAt(key, "version %q: use letters, digits, '.', '_', '+' and '-' (it names the version's result folder)", n)
		}
		if seen[n] {
			return p.errAt(key, "version %q is listed twice", n)
		}
		seen[n] = true
	}
	return nil
}

// checkRestore checks [versions] restore as a step's reset is checked.
func (p *Plan) checkRestore() error {
	v := p.Versions
	switch v.Restore {
	case "":
		v.Restore = RestoreNone
	case RestoreNone, ResetReload, ResetReimport, ResetCommand:
	default:
		return p.errAt("versions.restore", "[versions] restore = %q: use \"none\", \"reload\", \"reimport\" or \"command\"", v.Restore)
	}
	switch {
	case v.Restore == ResetCommand && strings.TrimSpace(v.RestoreCommand) == "":
		return p.errAt("versions.restore", "[versions] restore = \"command\" needs restore_command = the command that restores the dataset (a BR restore)")
	case v.Restore != ResetCommand && v.RestoreCommand != "":
		return p.errAt("versions.restore_command", "[versions] restore_command applies to restore = \"command\"")
	case v.Restore == ResetReimport && v.RestoreFrom == "":
		return p.errAt("versions.restore", "[versions] restore = \"reimport\" needs restore_from = the folder (or s3:// URL) for the dataset's CSV files")
	case v.Restore != ResetReimport && v.RestoreFrom != "":
		return p.errAt("versions.restore_from", "[versions] restore_from applies to restore = \"reimport\"")
	}
	if strings.Contains(strings.ToLower(v.RestoreFrom), "secret") {
		return p.errAt("versions.restore_from", "[versions] restore_from: keep secrets out of plans: give the keys as AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	}
	if v.RestoreFrom != "" && !strings.Contains(v.RestoreFrom, "://") && !filepath.IsAbs(v.RestoreFrom) {
		v.RestoreFrom = filepath.Join(filepath.Dir(p.path), v.RestoreFrom) // beside the plan, from any folder
	}
	return nil
}

// SetVersions replaces the plan's list of versions (plan run --versions).
func (p *Plan) SetVersions(list []string) error {
	if p.Versions == nil {
		return fmt.Errorf("%s has no [versions]: --versions picks versions of a plan's [versions] table (list, deploy, restore)", p.path)
	}
	if len(list) == 0 {
		return fmt.Errorf("--versions is empty: give the versions, e.g. --versions=v8.5.0,v8.5.1")
	}
	if err := p.checkVersionList(list, "versions.list"); err != nil {
		return fmt.Errorf("--versions: %s", strings.TrimPrefix(err.Error(), p.errAt("versions.list", "").Error()))
	}
	p.Versions.List = list
	return nil
}

// expected is expect_version for version v.
func (v *Versions) expected(version string) string {
	return strings.ReplaceAll(v.ExpectVersion, "{version}", escapeGlob(version))
}

func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Matches says whether a server's reported version is version's (true
// without expect_version: a version is then a label).
func (v *Versions) Matches(version, reported string) bool {
	if v.ExpectVersion == "" {
		return true
	}
	ok, _ := path.Match(v.expected(version), reported)
	return ok
}

func (v *Versions) command(cmd, version string) string {
	return strings.ReplaceAll(cmd, "{version}", version)
}

func (v *Versions) timeout() time.Duration { return durationOr(v.Timeout, DefaultDeployTimeout) }
func (v *Versions) readyTimeout() time.Duration {
	return durationOr(v.ReadyTimeout, DefaultReadyTimeout)
}
func (v *Versions) restoreTimeout() time.Duration {
	return durationOr(v.RestoreTimeout, DefaultCommandTimeout)
}

func durationOr(s string, d time.Duration) time.Duration {
	if x, err := time.ParseDuration(s); err == nil && x > 0 {
		return x
	}
	return d
}

// restoreStep is the restore as a step's reset, for the reset's code.
func (v *Versions) restoreStep() *Step {
	return &Step{Name: "[versions] restore", Reset: v.Restore, ResetEvery: "step", ResetCommand: v.RestoreCommand,
		ResetFrom: v.RestoreFrom, ResetTimeout: v.restoreTimeout().String()}
}

// A Visit is a stretch of the plan on one version: its deploy (unless the
// version is up already), its restore, then its cells.
type Visit struct {
	Version string
	Cells   []*cells.Cell
}

// Schedule orders the plan's cells over its versions. Interleaved: repeat r
// of every cell runs on each version in turn, the versions rotated by one
// each repeat (A B C, B C A, C A B, ...), so that a drift over time falls
// on every version alike; two visits of one version in a row are one.
// Blocks: every cell of a version, version by version.
func Schedule(versions []string, cs []*cells.Cell, order string) []Visit {
	var out []Visit
	add := func(v string, c []*cells.Cell) {
		if len(c) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Version == v {
			out[n-1].Cells = append(out[n-1].Cells, c...)
			return
		}
		out = append(out, Visit{Version: v, Cells: append([]*cells.Cell(nil), c...)})
	}
	if order == OrderBlocks {
		for _, v := range versions {
			add(v, cs)
		}
		return out
	}
	repeats := 0
	for _, c := range cs {
		repeats = max(repeats, c.Repeat)
	}
	for r := 1; r <= repeats; r++ {
		var of []*cells.Cell
		for _, c := range cs {
			if c.Repeat == r {
				of = append(of, c)
			}
		}
		for i := range versions {
			add(versions[(r-1+i)%len(versions)], of)
		}
	}
	return out
}

// DescribeVersions is plan show's and plan run's account of the versions:
// the order, the deploys of each order and the runs' time.
func DescribeVersions(p *Plan, cs []*cells.Cell) string {
	v := p.Versions
	var runs time.Duration
	for _, c := range cs {
		runs += c.Expected
	}
	runs *= time.Duration(len(v.List))
	inter, blocks := len(Schedule(v.List, cs, OrderInterleaved)), len(Schedule(v.List, cs, OrderBlocks))
	other := OrderBlocks
	if v.Order == OrderBlocks {
		other = OrderInterleaved
	}
	deploys := map[string]int{OrderInterleaved: inter, OrderBlocks: blocks}
	restore := ""
	if v.Restore != RestoreNone {
		restore = " and restores (" + v.Restore + ")"
	}
	return fmt.Sprintf("Versions: %s, %s: %d deploys%s, %d cells each, %s of runs plus the deploys; %s would take %d deploys%s and the same runs",
		strings.Join(v.List, ", "), v.Order, deploys[v.Order], restore, len(cs), runs, other, deploys[other], restore)
}
