package tpcc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// BenchmarkSQL's props file (run/props.mysql), read into oltpbench's
// options: its users keep their files, and the command line wins.

// props is a Java properties file: key=value or key: value, '#', '!' and
// '//' comment lines, '\' continuing a line.
type props struct {
	path string
	raw  []byte
	kv   map[string]string
}

func readProps(path string) (*props, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot read --props=%s: %w", path, err)
	}
	return parseProps(path, b), nil
}

// parseProps reads a Java properties file's key=value (or key:value) lines,
// '#' and '!' comments and '\' continuations, as BenchmarkSQL's files use.
func parseProps(path string, b []byte) *props {
	p := &props{path: path, raw: b, kv: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	var cont string
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if cont != "" {
			l, cont = cont+l, ""
		}
		if l == "" || l[0] == '#' || l[0] == '!' || strings.HasPrefix(l, "//") {
			continue
		}
		if strings.HasSuffix(l, `\`) && !strings.HasSuffix(l, `\\`) {
			cont = strings.TrimSuffix(l, `\`)
			continue
		}
		i := strings.IndexAny(l, "=:")
		if i < 0 {
			p.kv[l] = ""
			continue
		}
		p.kv[strings.TrimSpace(l[:i])] = strings.TrimSpace(l[i+1:])
	}
	return p
}

// Keys BenchmarkSQL has that oltpbench does not implement: named once.
var propsIgnored = map[string]string{
	"osCollectorScript": "", "osCollectorInterval": "", "osCollectorSSHAddr": "", "osCollectorDevices": "",
	"csvNullValue": "oltpbench's CSV files write NULL as \\N",
}

// flags turns the file into oltpbench options for command. ignored are
// the keys and connection parameters it does not use. Its steps read the
// file's keys in groups, in the order errors are reported.
func (p *props) flags(command string) (map[string]string, []string, error) {
	out := map[string]string{}
	var ignored []string
	for _, step := range []func(string, map[string]string, *[]string) error{p.connection, p.counts, p.runLength, p.mix, p.files} {
		if err := step(command, out, &ignored); err != nil {
			return nil, nil, err
		}
	}
	for k := range p.kv {
		if !propsKnown[k] {
			ignored = append(ignored, k)
		}
	}
	sort.Strings(ignored)
	return out, ignored, nil
}

// propsKnown are the keys flags reads.
var propsKnown = map[string]bool{"db": true, "driver": true, "conn": true, "user": true, "password": true, "warehouses": true,
	"loadWorkers": true, "terminals": true, "runMins": true, "runTxnsPerTerminal": true, "limitTxnsPerMin": true,
	"terminalWarehouseFixed": true, "newOrderWeight": true, "paymentWeight": true, "orderStatusWeight": true,
	"deliveryWeight": true, "stockLevelWeight": true, "resultDirectory": true, "fileLocation": true}

// get is a key's value; an empty one counts as not set.
func (p *props) get(k string) (string, bool) { v, ok := p.kv[k]; return v, ok && v != "" }

// num is a key's count.
func (p *props) num(k string) (int64, bool, error) {
	v, ok := p.get(k)
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, false, fmt.Errorf("%s: %s=%s is not a count", p.path, k, v)
	}
	return n, true, nil
}

// connection: db, conn (the JDBC URL), user and password.
func (p *props) connection(_ string, out map[string]string, ignored *[]string) error {
	if v, ok := p.get("db"); ok && v != "mysql" && v != "tidb" {
		return fmt.Errorf("%s: db=%s: oltpbench runs on MySQL-protocol databases (db=mysql)", p.path, v)
	}
	if v, ok := p.get("conn"); ok {
		if err := jdbcFlags(v, out, ignored); err != nil {
			return fmt.Errorf("%s: %w", p.path, err)
		}
	}
	for k, f := range map[string]string{"user": "mysql-user", "password": "mysql-password"} {
		if v, ok := p.kv[k]; ok {
			out[f] = v
		}
	}
	return nil
}

// counts: warehouses, and the threads of the command (loadWorkers for a
// load, terminals for a run).
func (p *props) counts(command string, out map[string]string, _ *[]string) error {
	if n, ok, err := p.num("warehouses"); err != nil {
		return err
	} else if ok {
		out["warehouses"] = strconv.FormatInt(n, 10)
	}
	threads := "terminals"
	if command == "prepare" || command == "csv" {
		threads = "loadWorkers"
	}
	if n, ok, err := p.num(threads); err != nil {
		return err
	} else if ok && n > 0 {
		out["threads"] = strconv.FormatInt(n, 10)
	}
	return nil
}

// runLength: runMins or runTxnsPerTerminal, limitTxnsPerMin,
// terminalWarehouseFixed.
func (p *props) runLength(_ string, out map[string]string, _ *[]string) error {
	mins, hasMins, err := p.num("runMins")
	if err != nil {
		return err
	}
	txns, hasTxns, err := p.num("runTxnsPerTerminal")
	if err != nil {
		return err
	}
	if hasMins && hasTxns && mins > 0 && txns > 0 {
		return fmt.Errorf("%s: runMins=%d and runTxnsPerTerminal=%d: set one of them to 0", p.path, mins, txns)
	}
	if mins > 0 {
		out["time"] = strconv.FormatInt(mins, 10) + "m"
	}
	if txns > 0 {
		out["txns-per-terminal"] = strconv.FormatInt(txns, 10)
	}
	if n, ok, err := p.num("limitTxnsPerMin"); err != nil {
		return err
	} else if ok {
		out["limit-tpm"] = strconv.FormatInt(n, 10)
	}
	if v, ok := p.get("terminalWarehouseFixed"); ok {
		switch strings.ToLower(v) {
		case "true":
			out["home-warehouse"] = "fixed"
		case "false":
			out["home-warehouse"] = "random"
		default:
			return fmt.Errorf("%s: terminalWarehouseFixed=%s: true or false", p.path, v)
		}
	}
	return nil
}

// mix: the five transactions' weights, which add up to 100.
func (p *props) mix(_ string, out map[string]string, _ *[]string) error {
	weights := DefaultWeights
	anyWeight := false
	for t, k := range []string{"newOrderWeight", "paymentWeight", "orderStatusWeight", "deliveryWeight", "stockLevelWeight"} {
		v, ok := p.get(k)
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f != float64(int(f)) {
			return fmt.Errorf("%s: %s=%s: a whole percentage", p.path, k, v)
		}
		weights[t], anyWeight = int(f), true
	}
	if !anyWeight {
		return nil
	}
	sum := 0
	ws := make([]string, numTx)
	for t, w := range weights {
		sum += w
		ws[t] = strconv.Itoa(w)
	}
	if sum != 100 {
		return fmt.Errorf("%s: the five weights add up to %d, not 100", p.path, sum)
	}
	out["weights"] = strings.Join(ws, ",")
	return nil
}

// files: resultDirectory for a run, fileLocation (CSV files) for a load.
func (p *props) files(command string, out map[string]string, _ *[]string) error {
	if v, ok := p.get("resultDirectory"); ok && command == "run" {
		out["result-directory"] = v
	}
	if v, ok := p.get("fileLocation"); ok && (command == "prepare" || command == "csv") {
		out["dir"] = v
		if command == "prepare" {
			out["load-mode"] = "csv"
		}
	}
	return nil
}

// jdbcFlags reads jdbc:mysql://host[:port][,host[:port]...]/db?params.
func jdbcFlags(conn string, out map[string]string, ignored *[]string) error {
	rest, ok := strings.CutPrefix(conn, "jdbc:mysql:")
	if !ok {
		return fmt.Errorf("conn=%s: not a jdbc:mysql:// URL", conn)
	}
	for _, mode := range []string{"loadbalance:", "replication:", "sequential:"} {
		rest = strings.TrimPrefix(rest, mode)
	}
	rest, ok = strings.CutPrefix(rest, "//")
	if !ok {
		return fmt.Errorf("conn=%s: not a jdbc:mysql://host/db URL", conn)
	}
	hostPart, path, _ := strings.Cut(rest, "/")
	db, query, _ := strings.Cut(path, "?")
	var hosts, ports []string
	seenPort := map[string]bool{}
	for _, hp := range strings.Split(hostPart, ",") {
		h, p, hasPort := strings.Cut(strings.TrimSpace(hp), ":")
		if !hasPort {
			p = "3306"
		}
		if _, err := strconv.Atoi(p); err != nil || h == "" {
			return fmt.Errorf("conn=%s: bad host:port %q", conn, hp)
		}
		hosts = append(hosts, h)
		if !seenPort[p] {
			seenPort[p] = true
			ports = append(ports, p)
		}
	}
	if len(ports) > 1 {
		return fmt.Errorf("conn=%s: hosts on different ports: oltpbench pairs every --mysql-host with every --mysql-port, so give one port (or --mysql-socket)", conn)
	}
	out["mysql-host"] = strings.Join(hosts, ",")
	out["mysql-port"] = strings.Join(ports, ",")
	if db != "" {
		out["mysql-db"] = db
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return fmt.Errorf("conn=%s: parameters: %w", conn, err)
	}
	for k, vs := range q {
		v := vs[len(vs)-1]
		switch k {
		case "useSSL":
			out["mysql-ssl"] = map[bool]string{true: "on", false: "off"}[strings.EqualFold(v, "true")]
		case "sessionVariables":
			out["mysql-session-vars"] = v
		default:
			*ignored = append(*ignored, "conn parameter "+k)
		}
	}
	return nil
}

// ApplyOptions reads --props: every option the command line left unset
// takes the file's value; keys oltpbench does not implement are named once
// on warn.
func (w *workloadTPCC) ApplyOptions(command string, fs *pflag.FlagSet, warn io.Writer) error {
	if w.propsFile == "" {
		return nil
	}
	p, err := readProps(w.propsFile)
	if err != nil {
		return err
	}
	w.props = p
	set, ignored, err := p.flags(command)
	if err != nil {
		return err
	}
	if _, ok := set["output"]; !ok && !fs.Changed("output") {
		set["output"] = OutputBenchmarkSQL
	}
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fl := fs.Lookup(k)
		if fl == nil || fl.Changed {
			continue
		}
		if err := fs.Set(k, set[k]); err != nil {
			if k == "mysql-password" {
				return fmt.Errorf("%s: password: %v", p.path, "not accepted")
			}
			return fmt.Errorf("%s: %s=%s: %w", p.path, k, set[k], err)
		}
	}
	var notes []string
	for _, k := range ignored {
		if why := propsIgnored[k]; why != "" {
			k += " (" + why + ")"
		}
		notes = append(notes, k)
	}
	if len(notes) > 0 {
		fmt.Fprintf(warn, "oltpbench: %s: not implemented, ignored: %s\n", p.path, strings.Join(notes, ", "))
	}
	return nil
}

// OutputBenchmarkSQL is the --output of BenchmarkSQL's end-of-run lines
// (the default with --props).
const OutputBenchmarkSQL = "benchmarksql"
