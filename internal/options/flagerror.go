package options

import (
	"regexp"
	"strings"
)

// FlagError is a command-line parse error of pflag's, read once into what
// went wrong, so that each command words it in its own voice (oltpbench's
// "unknown option", sysbench's "invalid option") without matching pflag's
// text anywhere else.
type FlagError struct {
	Unknown bool   // an option nobody declared (or an unknown shorthand)
	Flag    string // the option as pflag names it, with its dashes ("--foo", "-x")
	Value   string // a bad value, as given
	Text    string // pflag's message
}

var (
	pflagUnknown   = regexp.MustCompile(`^unknown flag: (--\S+)`)
	pflagShorthand = regexp.MustCompile(`^unknown shorthand flag: '(.)'`)
	pflagBad       = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?(--[\w-]+)" flag`)
)

// ReadFlagError reads a parse error; ok is false for an error that is not
// about one option (the error is then only Text).
func ReadFlagError(err error) (e FlagError, ok bool) {
	e.Text = err.Error()
	if m := pflagUnknown.FindStringSubmatch(e.Text); m != nil {
		return FlagError{Unknown: true, Flag: m[1], Text: e.Text}, true
	}
	if m := pflagShorthand.FindStringSubmatch(e.Text); m != nil {
		return FlagError{Unknown: true, Flag: "-" + m[1], Text: e.Text}, true
	}
	if m := pflagBad.FindStringSubmatch(e.Text); m != nil {
		return FlagError{Flag: m[2], Value: m[1], Text: e.Text}, true
	}
	return e, false
}

// Words is the error in oltpbench's words: "unknown option" where pflag
// says "unknown flag", then how to find the options (e.g. "see --help").
func (e FlagError) Words(see string) string {
	if !e.Unknown {
		return e.Text
	}
	return strings.Replace(e.Text, "unknown flag", "unknown option", 1) + " (" + see + ")"
}
