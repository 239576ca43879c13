package options

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

type vals struct {
	threads int
	tables  int
	on      bool
	hosts   []string
	user    string
}

func newFS(v *vals) *pflag.FlagSet {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.SetNormalizeFunc(Normalize(map[string]string{"num-threads": "threads"}))
	fs.IntVar(&v.threads, "threads", 1, "")
	fs.Var(Int{&v.tables}, "tables", "")
	AddBool(fs, &v.on, "auto-inc", true, "")
	AddList(fs, &v.hosts, "mysql-host", []string{"localhost"}, "")
	fs.StringVar(&v.user, "mysql-user", "sbtest", "")
	return fs
}

func TestCommandLineSpellings(t *testing.T) {
	for _, c := range []struct {
		args  []string
		check func(v *vals) bool
	}{
		{[]string{"--num_threads=4"}, func(v *vals) bool { return v.threads == 4 }},
		{[]string{"--auto_inc=off"}, func(v *vals) bool { return !v.on }},
		{[]string{"--auto-inc=false"}, func(v *vals) bool { return !v.on }},
		{[]string{"--auto-inc"}, func(v *vals) bool { return v.on }},
		{[]string{"--mysql-host=a,b", "--mysql-host=c"}, func(v *vals) bool { return strings.Join(v.hosts, ",") == "c" }},
		{[]string{"run", "--tables", "16"}, func(v *vals) bool { return v.tables == 16 }},
	} {
		v := &vals{}
		fs := newFS(v)
		if err := fs.Parse(c.args); err != nil {
			t.Errorf("%v: %v", c.args, err)
			continue
		}
		if !c.check(v) {
			t.Errorf("%v: got %+v", c.args, *v)
		}
	}
}

func TestBadValues(t *testing.T) {
	for _, args := range [][]string{{"--auto-inc=maybe"}, {"--tables=x"}, {"--bogus=1"}} {
		v := &vals{}
		if err := newFS(v).Parse(args); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

func writeFile(t *testing.T, text string) string {
	p := filepath.Join(t.TempDir(), "sb.conf")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConfigFile(t *testing.T) {
	// seed 003's format; the command line wins.
	p := writeFile(t, "# comment\nmysql-host=10.0.0.1\nthreads=100\ntables=4\nauto-inc=false\nmysql_user=root\n")
	v := &vals{}
	fs := newFS(v)
	if err := fs.Parse([]string{"--threads=8"}); err != nil {
		t.Fatal(err)
	}
	if err := ApplyConfigFile(fs, p); err != nil {
		t.Fatal(err)
	}
	if v.threads != 8 || v.tables != 4 || v.on || v.user != "root" || strings.Join(v.hosts, ",") != "10.0.0.1" {
		t.Fatalf("got %+v", *v)
	}
}

func TestConfigFileErrorsNameFileAndLine(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"threads=4\nbogus=1\n", ":2: unknown option \"bogus\""},
		{"tables=4\n\nauto-inc=perhaps\n", ":3: bad value for auto-inc"},
		{"mysql-user\n", ":1: option \"mysql-user\" needs a value"},
	} {
		v := &vals{}
		fs := newFS(v)
		fs.Parse(nil)
		err := ApplyConfigFile(fs, writeFile(t, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
	v := &vals{}
	fs := newFS(v)
	if err := ApplyConfigFile(fs, "/nonexistent/file"); err == nil || !strings.Contains(err.Error(), "/nonexistent/file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestTakesValue: a scan of the arguments before parsing skips exactly the
// values pflag will consume, so it finds the same positional arguments.
func TestTakesValue(t *testing.T) {
	for _, c := range []struct {
		args []string
		pos  string
	}{
		{[]string{"--tables", "16", "x.lua", "run"}, "x.lua run"},
		{[]string{"--tables=16", "x.lua", "run"}, "x.lua run"},
		{[]string{"--num_threads", "4", "x.lua", "run"}, "x.lua run"},
		{[]string{"--auto-inc", "x.lua", "run"}, "x.lua run"},
		{[]string{"--mysql-user", "root", "--mysql-host", "h", "t", "prepare"}, "t prepare"},
		{[]string{"--bogus", "x.lua", "run"}, "x.lua run"},
	} {
		v := &vals{}
		fs := newFS(v)
		var pos []string
		for i := 0; i < len(c.args); i++ {
			if strings.HasPrefix(c.args[i], "-") {
				if TakesValue(fs, c.args[i]) {
					i++
				}
				continue
			}
			pos = append(pos, c.args[i])
		}
		if got := strings.Join(pos, " "); got != c.pos {
			t.Errorf("%v: scan found %q, want %q", c.args, got, c.pos)
		}
		if err := newFS(&vals{}).Parse(c.args); err == nil {
			parsed := newFS(&vals{})
			parsed.Parse(c.args)
			if got := strings.Join(parsed.Args(), " "); got != c.pos {
				t.Errorf("%v: pflag found %q, want %q", c.args, got, c.pos)
			}
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]uint64{"1K": 1024, "4k": 4096, "100G": 100 << 30, "1M": 1 << 20, "512": 512, "2b": 2} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("%s: %d %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1X", "K"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}
