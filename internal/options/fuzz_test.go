package options

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// FuzzConfig: a --config-file sets known options or fails with one line
// naming the file and line.
func FuzzConfig(f *testing.F) {
	f.Add([]byte("# sysbench options\nthreads=16\ntime=60\nhistogram\n--tables = 4\nmysql-host=a,b\n"))
	f.Add([]byte("unknown=1\n"))
	f.Add([]byte("threads\n"))
	f.Add([]byte("size=10G\n\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		fs.Int("threads", 1, "")
		fs.String("time", "10", "")
		var hosts []string
		AddList(fs, &hosts, "mysql-host", nil, "")
		var on bool
		AddBool(fs, &on, "histogram", false, "")
		fs.Int("tables", 1, "")
		fs.String("size", "1G", "")
		err := ApplyConfig(fs, "sb.cfg", bytes.NewReader(b))
		if err != nil {
			if m := err.Error(); m == "" || strings.Contains(m, "\n") {
				t.Fatalf("want one error line, got %q", m)
			}
			return
		}
		if s, _ := fs.GetString("size"); s != "" {
			ParseSize(s)
		}
	})
}

// FuzzShown: what Shown gives is one line.
func FuzzShown(f *testing.F) {
	f.Add("plain")
	f.Add("two\nlines")
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(Shown(s), "\n\r") {
			t.Fatalf("%q shown as %q", s, Shown(s))
		}
	})
}
