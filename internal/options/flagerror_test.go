package options

import (
	"errors"
	"io"
	"testing"

	"github.com/spf13/pflag"
)

// TestReadFlagError reads pflag's own errors, not strings written here, so
// a pflag upgrade that changes its words fails this test, not a user.
func TestReadFlagError(t *testing.T) {
	for _, c := range []struct {
		args  []string
		want  FlagError
		ok    bool
		words string
	}{
		{[]string{"--tabels=3"}, FlagError{Unknown: true, Flag: "--tabels"}, true, "unknown option: --tabels (see --help)"},
		{[]string{"-q"}, FlagError{Unknown: true, Flag: "-q"}, true, "unknown shorthand flag: 'q' in -q (see --help)"},
		{[]string{"--tables=many"}, FlagError{Flag: "--tables", Value: "many"}, true, `invalid argument "many" for "--tables" flag: must be an integer`},
		{[]string{"--tables"}, FlagError{}, false, "flag needs an argument: --tables"},
	} {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("tables", 1, "")
		err := fs.Parse(c.args)
		if err == nil {
			t.Fatalf("%q parsed", c.args)
		}
		got, ok := ReadFlagError(err)
		if ok != c.ok || got.Unknown != c.want.Unknown || got.Flag != c.want.Flag || got.Value != c.want.Value {
			t.Errorf("%q: %+v %v, want %+v %v", c.args, got, ok, c.want, c.ok)
		}
		if w := got.Words("see --help"); w != c.words {
			t.Errorf("%q: words %q, want %q", c.args, w, c.words)
		}
	}
	if _, ok := ReadFlagError(errors.New("some other error")); ok {
		t.Error("a non-flag error read as one")
	}
}
