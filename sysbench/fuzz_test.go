package sysbench

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/workload"
)

// FuzzArgs: any options on a sysbench command line parse and set up a
// test, or fail with sysbench's words; nothing panics. Options that read
// or write files or listen are left out (each has its own target).
func FuzzArgs(f *testing.F) {
	for _, a := range [][4]string{
		{"--threads=16", "--time=60", "--rand-type=uniform", "--tables=4"},
		{"--threads", "8", "--report-interval=1", "--percentile=99"},
		{"--rate=500@60s,1000@60s", "--skip_trx=on", "--range_size=5", "--mysql-ignore-errors=all"},
		{"--histogram", "--report-checkpoints=10,20", "--forced-shutdown=off", "--db-ps-mode=disable"},
		{"--threads=1@2s,2@2s", "--events=0", "--warmup-time=1", "--percentiles=50,99.9"},
		{"--unknown=1", "--threads=x", "--rand-type=none", "--table_size=-5"},
	} {
		f.Add(a[0], a[1], a[2], a[3], uint8(0))
	}
	f.Fuzz(func(t *testing.T, a, b, c, d string, test uint8) {
		var args []string
		for _, x := range []string{a, b, c, d} {
			if strings.TrimSpace(x) == "" || x == "-" || x == "--" {
				return // no test name: sysbench reads its script from standard input
			}
			for _, bad := range []string{"config-file", "metrics-addr", "result-file", "cpu-profile", "mem-profile", "mysql-password-file", "dir", "version", "help"} {
				if strings.HasPrefix(strings.TrimLeft(x, "-"), bad) {
					return
				}
			}
			args = append(args, x)
		}
		names := Names()
		name := names[int(test)%len(names)]
		s := &suite{}
		fs := pflag.NewFlagSet("sysbench", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		ro := &workload.RunOptions{}
		s.Flags(fs, ro)
		fs.Int("threads", 1, "")
		all := append(append([]string{}, args...), name, "run")
		if err := fs.Parse(all); err != nil {
			if e := s.FlagError(err, workload.Invocation{Line: append([]string{"sysbench"}, all...)}, io.Discard); e == nil || e.Error() == "" {
				t.Fatalf("%q: %v gives no error", all, err)
			}
			return
		}
		if _, err := s.Front(workload.Invocation{}, fs.Args(), fs, io.Discard); err != nil {
			return
		}
		s.Setup(&workload.Setup{Command: "run", Args: fs.Args()[:1], Threads: 1})
	})
}
