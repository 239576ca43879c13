// Package options gives pflag the habits of sysbench's command line: '_' and
// '-' interchangeable, on/off booleans, comma lists, deprecated aliases, and
// --config-file with key=value lines that the command line overrides.
package options

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// Normalize maps '_' to '-' and sysbench's deprecated aliases to their names.
func Normalize(aliases map[string]string) func(*pflag.FlagSet, string) pflag.NormalizedName {
	return func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		name = strings.ReplaceAll(name, "_", "-")
		if a, ok := aliases[name]; ok {
			name = a
		}
		return pflag.NormalizedName(name)
	}
}

// Bool is an on/off flag value.
type Bool struct{ P *bool }

// ParseBool accepts sysbench's spellings.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on", "true", "1", "yes":
		return true, nil
	case "off", "false", "0", "no":
		return false, nil
	}
	return false, fmt.Errorf("%q is not on or off", s)
}

func (b Bool) Set(s string) error {
	v, err := ParseBool(s)
	if err != nil {
		return err
	}
	*b.P = v
	return nil
}

func (b Bool) String() string {
	if b.P != nil && *b.P {
		return "on"
	}
	return "off"
}

func (b Bool) Type() string { return "on|off" }

// AddBool registers an on/off flag; a bare --name means on.
func AddBool(fs *pflag.FlagSet, p *bool, name string, def bool, usage string) {
	*p = def
	f := fs.VarPF(Bool{p}, name, "", usage)
	f.NoOptDefVal = "on"
}

// Int64 is an integer flag that names the option in its error.
type Int64 struct{ P *int64 }

func (v Int64) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not an integer", s)
	}
	*v.P = n
	return nil
}
func (v Int64) String() string { return strconv.FormatInt(*v.P, 10) }
func (v Int64) Type() string   { return "N" }

// Int is Int64 for int.
type Int struct{ P *int }

func (v Int) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("%q is not an integer", s)
	}
	*v.P = n
	return nil
}
func (v Int) String() string { return strconv.Itoa(*v.P) }
func (v Int) Type() string   { return "N" }

// List is a comma-separated list; a repeat replaces the list given before
// (sysbench's --mysql-host=a,b --mysql-host=c is c alone).
type List struct {
	P *[]string
}

func (l *List) Set(s string) error {
	*l.P = nil
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			*l.P = append(*l.P, f)
		}
	}
	return nil
}
func (l *List) String() string { return strings.Join(*l.P, ",") }
func (l *List) Type() string   { return "LIST" }

// AddList registers a list flag.
func AddList(fs *pflag.FlagSet, p *[]string, name string, def []string, usage string) {
	*p = def
	fs.Var(&List{P: p}, name, usage)
}

// ApplyConfigFile sets every flag named in the file that the command line did
// not set. Lines are key=value (or a bare key meaning on), '#' comments.
func ApplyConfigFile(fs *pflag.FlagSet, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("cannot open --config-file: %w", unwrapPath(err))
	}
	defer f.Close()
	return ApplyConfig(fs, path, f)
}

// ApplyConfig is ApplyConfigFile on the file's contents, r (named path in
// errors).
func ApplyConfig(fs *pflag.FlagSet, path string, r io.Reader) error {
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		k, v, hasValue := strings.Cut(s, "=")
		k = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(k), "--"))
		v = strings.TrimSpace(v)
		fl := fs.Lookup(k)
		if k == "" || fl == nil {
			return fmt.Errorf("%s:%d: unknown option %q: remove the line or fix its name (see --help)", path, line, k)
		}
		if fl.Changed {
			continue // the command line wins
		}
		if !hasValue {
			if fl.NoOptDefVal == "" {
				return fmt.Errorf("%s:%d: option %q needs a value (key=value)", path, line, k)
			}
			v = fl.NoOptDefVal
		}
		if err := fs.Set(k, v); err != nil {
			return fmt.Errorf("%s:%d: bad value for %s: %w", path, line, k, err)
		}
	}
	return sc.Err()
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// TakesValue says whether arg, an option as typed, is one that pflag would
// give the next argument as its value ("--dir /data", not "--dir=/data",
// nor a boolean such as "--analyze"), so that a scan of the command line
// before parsing does not take that value for a positional argument.
func TakesValue(fs *pflag.FlagSet, arg string) bool {
	if !strings.HasPrefix(arg, "--") || strings.Contains(arg, "=") {
		return false
	}
	f := fs.Lookup(strings.TrimPrefix(arg, "--"))
	return f != nil && f.NoOptDefVal == ""
}

// ParseSize reads a size as sysbench's SIZE options take it: a whole
// number with an optional b, k, m, g, t or p suffix (powers of 1024).
func ParseSize(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	mult := uint64(1)
	if s != "" {
		if i := strings.IndexByte("bkmgtp", lower(s[len(s)-1])); i >= 0 {
			mult = 1 << (10 * i)
			s = s[:len(s)-1]
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q: a number with an optional K, M, G, T or P", s)
	}
	return n * mult, nil
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Shown is a value as an error message echoes it: as typed when it is one
// line of printable text, else Go-quoted, so that a message about any
// input stays one line.
func Shown(s string) string {
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
