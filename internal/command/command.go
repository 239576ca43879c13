// Package command runs a user's shell command beside a benchmark (a plan's
// reset_command, an event's command): in its own process group, killed as
// a group when its context ends, and with its shell when this process dies.
package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// ExitError is a command that ran and failed: its exit status in words.
type ExitError struct{ Status string }

func (e *ExitError) Error() string { return e.Status }

// Exec runs command by sh -c in dir, with env beside the process's
// environment, its output and errors on out. It returns ctx's error when ctx
// ended first (a timeout, Ctrl-C), an *ExitError when the command failed.
func Exec(ctx context.Context, command, dir string, env []string, out io.Writer) error {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second // output a killed command's children still hold
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return &ExitError{Status: ee.ProcessState.String()}
		}
		return fmt.Errorf("cannot run it: %w", err)
	}
	return nil
}
