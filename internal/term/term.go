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
