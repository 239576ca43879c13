// Package term says whether output or input is a person's terminal: hints,
// live progress lines and sysbench's script on standard input depend on it.
// It asks the kernel (golang.org/x/term's isatty), since a character device
// such as /dev/null is no terminal.
package term

import (
	"os"

	xterm "golang.org/x/term"
)

// Is says whether v is an *os.File open on a terminal.
func Is(v any) bool {
	f, ok := v.(*os.File)
	return ok && xterm.IsTerminal(int(f.Fd()))
}
