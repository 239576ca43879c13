// Package term says whether output or input is a person's terminal: hints,
// live progress lines and sysbench's script on standard input depend on it.
// It asks the kernel (golang.org/x/term's isatty), since a character device
// such as /dev/null is no terminal.
package term

import (
	"io"
	"os"

	xterm "golang.org/x/term"
)

// Is says whether v is an *os.File open on a terminal, or a writer that
// wraps one (Unwrap).
func Is(v any) bool {
	for {
		u, ok := v.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		v = u.Unwrap()
	}
	f, ok := v.(*os.File)
	return ok && xterm.IsTerminal(int(f.Fd()))
}

// ForPerson says whether oltpbench's own lines (notes, hints, the loader's
// lines) go beside a peer tool's output on w: when w is a terminal, or when
// asked (--notes). A harness reading the output otherwise sees the peer's
// lines alone, at every verbosity.
func ForPerson(w io.Writer, asked bool) bool {
	return asked || Is(w)
}
