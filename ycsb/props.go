package ycsb

import (
	"bufio"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
)

// The core workloads A-F, as YCSB ships them: -P workloads/workloada finds
// them when no such file is where the command runs.
//
//go:embed workloads
var shipped embed.FS

// defaults are the core workload's properties that oltpbench implements,
// with YCSB's defaults.
var defaults = map[string]string{
	"workload": "core", "recordcount": "1000", "operationcount": "1000", "threadcount": "1", "insertstart": "0",
	"insertcount": "", "fieldcount": "10", "fieldlength": "100", "fieldlengthdistribution": "constant",
	"readallfields": "true", "writeallfields": "false", "readproportion": "0.95", "updateproportion": "0.05",
	"insertproportion": "0", "scanproportion": "0", "readmodifywriteproportion": "0", "requestdistribution": "uniform",
	"minscanlength": "1", "maxscanlength": "1000", "scanlengthdistribution": "uniform", "insertorder": "hashed",
	"zeropadding": "1", "hotspotdatafraction": "0.2", "hotspotopnfraction": "0.8", "exponential.percentile": "95",
	"exponential.frac": "0.8571428571", "maxexecutiontime": "0", "table": "usertable", "dotransactions": "", "command": "",
	"measurementtype": "", "mysql.host": "", "mysql.port": "", "mysql.user": "", "mysql.db": "", "mysql.password": "",
	"batch.size": "1",
}

// connection are the mysql binding's properties: the connection options'
// (oltpbench's --mysql-* say the same).
var connection = map[string]string{"mysql.host": "mysql-host", "mysql.port": "mysql-port", "mysql.user": "mysql-user", "mysql.db": "mysql-db"}

// props are a run's properties: the files' (-P, in order), then -p's.
type props struct {
	m     map[string]string
	files []string
	given map[string]bool // set by a file or -p (go-ycsb prints those)
}

// readProps reads the property files and the overrides; a property this
// workload does not know is named in the error.
func readProps(files, overrides []string) (*props, error) {
	p := &props{m: map[string]string{}, given: map[string]bool{}}
	for k, v := range defaults {
		p.m[k] = v
	}
	var unknown []string
	set := func(k, v, where string) {
		if _, ok := defaults[k]; !ok {
			unknown = append(unknown, k+" ("+where+")")
			return
		}
		p.m[k] = v
		p.given[k] = true
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) && !strings.Contains(path.Clean(f), "..") {
			// The shipped workloads, by their name in YCSB's tree.
			b, err = shipped.ReadFile(path.Join("workloads", path.Base(f)))
			if err != nil {
				return nil, fmt.Errorf("no workload file %s (the shipped ones: workloads/workloada .. workloadf)", f)
			}
		} else if err != nil {
			return nil, fmt.Errorf("cannot read the workload file: %w", err)
		}
		p.files = append(p.files, f)
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for line := 1; sc.Scan(); line++ {
			l := strings.TrimSpace(sc.Text())
			if l == "" || l[0] == '#' || l[0] == '!' {
				continue
			}
			k, v, ok := strings.Cut(l, "=")
			if !ok {
				k, v, ok = strings.Cut(l, ":")
			}
			if !ok {
				return nil, fmt.Errorf("%s:%d: %q is not key=value", f, line, l)
			}
			set(strings.TrimSpace(k), strings.TrimSpace(v), fmt.Sprintf("%s:%d", f, line))
		}
	}
	var each []string
	for _, o := range overrides {
		each = append(each, splitProps(o)...)
	}
	for _, o := range each {
		k, v, ok := strings.Cut(o, "=")
		if !ok {
			return nil, fmt.Errorf("invalid -p %s: key=value, e.g. -p recordcount=100000", o)
		}
		set(strings.TrimSpace(k), strings.TrimSpace(v), "-p")
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("unknown propert%s: %s (oltpbench implements the core workload's and the mysql binding's)",
			map[bool]string{true: "y", false: "ies"}[len(unknown) == 1], strings.Join(unknown, ", "))
	}
	return p, nil
}

func (p *props) str(k string) string { return p.m[k] }

func (p *props) int(k string) (int64, error) {
	v, err := strconv.ParseInt(p.m[k], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%s: a whole number", k, p.m[k])
	}
	return v, nil
}

func (p *props) float(k string) float64 {
	v, _ := strconv.ParseFloat(p.m[k], 64)
	return v
}

func (p *props) bool(k string) bool { return strings.EqualFold(p.m[k], "true") }

// check reads the numbers and proportions, refusing what makes no run.
func (p *props) check() error {
	for _, k := range []string{"recordcount", "operationcount", "threadcount", "fieldcount", "fieldlength", "minscanlength", "maxscanlength", "insertstart", "zeropadding", "maxexecutiontime", "batch.size"} {
		v, err := p.int(k)
		if err != nil {
			return err
		}
		if v < 0 || (v == 0 && (k == "threadcount" || k == "fieldcount" || k == "fieldlength" || k == "maxscanlength" || k == "batch.size")) {
			return fmt.Errorf("%s=%d: out of range", k, v)
		}
	}
	for _, k := range []string{"readproportion", "updateproportion", "insertproportion", "scanproportion", "readmodifywriteproportion",
		"hotspotdatafraction", "hotspotopnfraction", "exponential.percentile", "exponential.frac"} {
		if _, err := strconv.ParseFloat(p.m[k], 64); err != nil {
			return fmt.Errorf("%s=%s: a number", k, p.m[k])
		}
	}
	if p.m["workload"] != "core" && !strings.HasSuffix(p.m["workload"], "CoreWorkload") {
		return fmt.Errorf("workload=%s: oltpbench runs the core workload", p.m["workload"])
	}
	if o := p.m["insertorder"]; o != "hashed" && o != "ordered" {
		return fmt.Errorf("insertorder=%s: hashed or ordered", o)
	}
	if d := p.m["scanlengthdistribution"]; d != "uniform" && d != "zipfian" {
		return fmt.Errorf("scanlengthdistribution=%s: uniform or zipfian", d)
	}
	if d := p.m["fieldlengthdistribution"]; d != "constant" {
		return fmt.Errorf("fieldlengthdistribution=%s: oltpbench writes constant field lengths", d)
	}
	return nil
}

// splitProps reads one -p as several when a plan joined them with commas
// (recordcount=1000,threadcount=4): only when every piece is key=value.
func splitProps(o string) []string {
	parts := strings.Split(o, ",")
	for _, p := range parts {
		if !strings.Contains(p, "=") {
			return []string{o}
		}
	}
	return parts
}
