package pipeline

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/internal/deadline"
)

// pingEvery is how often a long command's watch pings the server.
const pingEvery = time.Second

// watched runs a long command (a load, a check, a cleanup, a reset) with a
// ping beside it on a connection of its own: a server that stops answering
// ends the command at the ping's bound, in one line that says so, where
// the command's own statements would wait for it forever. Its length is
// the dataset's, so it has no bound of its own.
func (p *Pipeline) watched(ctx context.Context, co conn.Options, command string, f func(context.Context) error) error {
	// A load by the loader resumes; a workload's own prepare (a script's) does not.
	resumable := command == "prepare" && p.w.Hooks().Peer.Command == nil
	return Watched(ctx, co, command, resumable, f)
}

// Watched is watched for a command outside a workload's pipeline (import);
// resumable says the command finishes what it did with --resume.
func Watched(ctx context.Context, co conn.Options, command string, resumable bool, f func(context.Context) error) error {
	pool, err := conn.Open(co, 1)
	if err != nil {
		return err
	}
	defer pool.Close()
	wctx, stop := deadline.Watch(ctx, deadline.Ping, pingEvery, func(ctx context.Context) error { return pool.DB(0).PingContext(ctx) })
	err = f(wctx)
	stop()
	m := deadline.Cause(wctx)
	if m == nil || err == nil {
		return err
	}
	// The statements' own error is the cancel the watch caused: the line
	// says why, and keeps what the command adds (a load's --resume).
	why := "the server did not answer within " + deadline.Seconds(m.Within)
	msg := err.Error()
	if i := strings.Index(msg, context.Canceled.Error()); i >= 0 {
		msg = msg[:i] + why + msg[i+len(context.Canceled.Error()):]
	} else {
		msg = why + " (" + msg + ")"
	}
	if resumable && !strings.Contains(msg, "--resume") {
		msg += "; the units loaded are kept: once it answers, run the same command with --resume to finish"
	}
	return fmt.Errorf("%s stopped: %s", command, msg)
}

// newGate is a run's gate for its reads beside it: each read the server
// misses is said once (a note), and the result keeps them (Gate.Said).
func (p *Pipeline) newGate() *deadline.Gate {
	return &deadline.Gate{Say: func(m *deadline.Missed) { p.note(m.Error()) }}
}
