package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/cells"
	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/options"
	"github.com/oltpbench/oltpbench/loader"
)

// commonFlags are the options the pipeline owns, the same in every command:
// connection, loader, output, thread levels.
type commonFlags struct {
	threads int
	netIO   string

	hosts, ports, sockets []string
	user, password        string
	passwordFile          string
	db                    string
	ssl, sslCA, sslCert   string
	sslKey, sslCipher     string
	ignoreErrors          []string
	sessionVars           []string
	initSQL               []string
	connectTimeout        float64

	resultFile, output, configFile string

	loadMode, indexTiming string
	analyze, resume       bool
	seed                  uint64
	shard, dir            string
	csvFileSize, progress string

	lv levelFlags
}

// registerConn adds the connection options every command that reaches a server takes.
func (f *commonFlags) registerConn(fs *pflag.FlagSet, defaultDB string) {
	options.AddList(fs, &f.hosts, "mysql-host", []string{"localhost"}, "MySQL server host(s)")
	options.AddList(fs, &f.ports, "mysql-port", []string{"3306"}, "MySQL server port(s)")
	options.AddList(fs, &f.sockets, "mysql-socket", nil, "MySQL socket(s)")
	fs.StringVar(&f.user, "mysql-user", "sbtest", "MySQL user")
	fs.StringVar(&f.password, "mysql-password", "", "MySQL password (or MYSQL_PWD, --mysql-password-file)")
	fs.StringVar(&f.passwordFile, "mysql-password-file", "", "file holding the MySQL password")
	fs.StringVar(&f.db, "mysql-db", defaultDB, "MySQL database name")
	fs.StringVar(&f.ssl, "mysql-ssl", "off", "TLS: off, on|required (encrypt), verify_ca, verify_identity")
	fs.Lookup("mysql-ssl").NoOptDefVal = "on"
	fs.StringVar(&f.sslCA, "mysql-ssl-ca", "", "CA certificate (PEM) to verify the server")
	fs.StringVar(&f.sslCert, "mysql-ssl-cert", "", "client certificate (PEM)")
	fs.StringVar(&f.sslKey, "mysql-ssl-key", "", "client key (PEM)")
	fs.StringVar(&f.sslCipher, "mysql-ssl-cipher", "", "accepted so that sysbench command lines parse; no effect: Go chooses the cipher")
	options.AddList(fs, &f.sessionVars, "mysql-session-vars", nil, "session variables for every connection, e.g. 'tidb_enable_1pc=1,autocommit=1'")
	fs.StringArrayVar(&f.initSQL, "init-sql", nil, "statement to run on every new connection (repeatable)")
	fs.Float64Var(&f.connectTimeout, "mysql-connect-timeout", 10, "seconds to wait for a connection")
}

// registerLoad adds the loader's options; generate adds those that shape
// generated data (import reads them from the manifest).
func (f *commonFlags) registerLoad(fs *pflag.FlagSet, generate bool) {
	f.loadMode, f.csvFileSize = "auto", "256MiB"
	if generate {
		fs.StringVar(&f.loadMode, "load-mode", "auto", "prepare: auto (local where the server allows it, else insert), insert, local (streamed LOAD DATA LOCAL), csv (files only) or import (files, then loaded)")
		fs.Uint64Var(&f.seed, "seed", 20201, "dataset seed: the same seed gives the same data")
		fs.StringVar(&f.csvFileSize, "csv-file-size", "256MiB", "split CSV files near this size")
	}
	fs.StringVar(&f.indexTiming, "index-timing", "auto", "prepare: secondary indexes after the data, before, or auto")
	options.AddBool(fs, &f.analyze, "analyze", true, "prepare: ANALYZE TABLE after loading")
	options.AddBool(fs, &f.resume, "resume", false, "finish an interrupted load: load only what is missing")
	fs.StringVar(&f.shard, "shard", "", "load only part i of n (i/n), so several client machines load one dataset")
	fs.StringVar(&f.dir, "dir", "", "where the CSV files are (csv and import modes): a folder, or s3://bucket/prefix?endpoint=..&access-key=..&secret-access-key=.. (TiDB's URL parameters; without keys, the AWS credential chain)")
	fs.StringVar(&f.progress, "progress", "auto", "progress display: auto (a live bar on a terminal), on, off")
}

// registerWorkload adds everything a workload command takes besides the
// workload's own options.
func (f *commonFlags) registerWorkload(fs *pflag.FlagSet, defaultDB, threads, threadsHelp string, retry []string, retryHelp string) {
	fs.StringVar(&f.lv.threadsSpec, "threads", threads, threadsHelp)
	f.lv.register(fs)
	f.registerConn(fs, defaultDB)
	options.AddList(fs, &f.ignoreErrors, "mysql-ignore-errors", retry, retryHelp)
	fs.StringVar(&f.netIO, "net-io", "auto", "run: how connections wait for replies: blocking (a thread per connection, as sysbench), poller (Go's network poller), or auto (blocking up to 8 threads per CPU)")
	f.registerLoad(fs, true)
	fs.StringVar(&f.resultFile, "result-file", "", "write the JSON result here")
	fs.StringVar(&f.output, "output", "text", "text, json (the JSON result on stdout after the report), or a workload's own style (see its --help)")
	fs.StringVar(&f.configFile, "config-file", "", "file of key=value options (the command line wins)")
}

func (f *commonFlags) loaderOptions() (loader.Options, error) {
	i, n, err := loader.ParseShard(f.shard)
	if err != nil {
		return loader.Options{}, err
	}
	size, err := parseSize(f.csvFileSize)
	if err != nil {
		return loader.Options{}, fmt.Errorf("invalid --csv-file-size=%s: %v", f.csvFileSize, err)
	}
	switch f.progress {
	case "auto", "on", "off":
	default:
		return loader.Options{}, fmt.Errorf("invalid --progress=%s: use auto, on or off", f.progress)
	}
	return loader.Options{Mode: f.loadMode, IndexTiming: f.indexTiming, Threads: f.threads, Seed: f.seed, Analyze: f.analyze,
		Resume: f.resume, Shard: i, Shards: n, Dir: f.dir, FileSize: size, Progress: f.progress}, nil
}

// parseSize reads 1048576, 64KiB, 256MiB, 1GiB (KB/MB/GB are powers of 1000).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000_000}, {"GB", 1000_000_000}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	mult := int64(1)
	num := strings.TrimSpace(s)
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v <= 0 {
		return 0, errors.New("a positive size like 256MiB")
	}
	return v * mult, nil
}

// firstThreads sets f.threads from --threads (the first level, or the low end of a range).
func (f *commonFlags) firstThreads() error {
	levels, lo, _, err := cells.ParseThreads(f.lv.threadsSpec, f.lv.p95SLO != "")
	if err != nil {
		return err
	}
	if levels != nil {
		f.threads = levels[0]
	} else {
		f.threads = lo
	}
	return nil
}

func (f *commonFlags) connOptions(fs *pflag.FlagSet) (conn.Options, error) {
	pw, err := conn.PasswordFromSources(f.password, f.passwordFile, fs.Changed("mysql-password"))
	if err != nil {
		return conn.Options{}, err
	}
	co := conn.Options{Hosts: f.hosts, Sockets: f.sockets, User: f.user, Password: pw, DB: f.db,
		SSL: f.ssl, SSLCA: f.sslCA, SSLCert: f.sslCert, SSLKey: f.sslKey,
		SessionVars: f.sessionVars, InitSQL: f.initSQL, ConnectTimeout: time.Duration(f.connectTimeout * float64(time.Second))}
	for _, p := range f.ports {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return co, fmt.Errorf("invalid --mysql-port=%s: a port number from 1 to 65535", p)
		}
		co.Ports = append(co.Ports, n)
	}
	for _, kv := range f.sessionVars {
		if k, _, ok := strings.Cut(kv, "="); !ok || strings.TrimSpace(k) == "" {
			return co, fmt.Errorf("invalid --mysql-session-vars item %q: use name=value", kv)
		}
	}
	return co, nil
}

// flagValues lists every option's effective value, secrets removed.
func flagValues(fs *pflag.FlagSet) map[string]string {
	m := map[string]string{}
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden || fl.Name == "mysql-password" || fl.Name == "help" {
			return
		}
		m[fl.Name] = loader.RedactURL(fl.Value.String()) // --dir may hold storage keys
	})
	return m
}
