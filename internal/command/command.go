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
	return ExecGroup(ctx, command, dir, env, out, nil)
}

// ExecGroup is Exec that tells started (if not nil) the command's process
// group as it starts: a caller that may be killed keeps it, so that its
// next run can end a command its death left running (KillGroup).
func ExecGroup(ctx context.Context, command, dir string, env []string, out io.Writer, started func(pgid int)) error {
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second // output a killed command's children still hold
	err := cmd.Start()
	if err == nil {
		if started != nil {
			started(cmd.Process.Pid)
		}
		err = cmd.Wait()
	}
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

// KillGroup kills the process group pgid, if any of it still runs, and
// waits (up to wait) until it is gone; it says whether there was one.
func KillGroup(pgid int, wait time.Duration) bool {
	if pgid <= 1 || syscall.Kill(-pgid, 0) != nil {
		return false
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	for end := time.Now().Add(wait); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(-pgid, 0) != nil {
			break
		}
	}
	return true
}
