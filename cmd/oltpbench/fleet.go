package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/engine/cells"
	"github.com/oltpbench/oltpbench/internal/engine/fleet"
	"github.com/oltpbench/oltpbench/internal/engine/pipeline"
	"github.com/oltpbench/oltpbench/internal/result"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// startMargin is how long after the leader hands out a cell its measured
// window starts (beyond the cell's warm-up): every client parses the cell,
// checks the dataset and connects its threads in it.
const startMargin = 2 * time.Second

// fleetFlags are plan run's options for several client machines.
type fleetFlags struct {
	clients     int
	index       int
	leader      string
	joinTimeout time.Duration
}

func (f *fleetFlags) register(fs *pflag.FlagSet) {
	fs.IntVar(&f.clients, "clients", 1, "run the plan on this many client machines (processes), each with --client-index and --leader")
	index := 0
	if v, err := strconv.Atoi(os.Getenv("JOB_COMPLETION_INDEX")); err == nil {
		index = v // a Kubernetes Indexed Job's pod
	}
	fs.IntVar(&f.index, "client-index", index, "this client's index, 0 (the leader, which runs the plan) to --clients - 1 (default: $JOB_COMPLETION_INDEX, else 0)")
	fs.StringVar(&f.leader, "leader", "", "HOST:PORT of client 0, which listens on that port (with --clients)")
	fs.DurationVar(&f.joinTimeout, "join-timeout", 5*time.Minute, "how long the leader waits for every client to join, and a client for the leader")
}

// check refuses options that do not make a fleet.
func (f *fleetFlags) check() error {
	switch {
	case f.clients < 1:
		return fmt.Errorf("invalid --clients=%d: at least 1", f.clients)
	case f.clients == 1 && f.leader != "":
		return errors.New("--leader goes with --clients=N (N > 1)")
	case f.clients == 1:
		return nil
	case f.leader == "":
		return fmt.Errorf("--clients=%d needs --leader=HOST:PORT: client 0's address (it listens on that port)", f.clients)
	case f.index < 0 || f.index >= f.clients:
		return fmt.Errorf("invalid --client-index=%d: 0 (the leader) to %d", f.index, f.clients-1)
	case f.joinTimeout <= 0:
		return fmt.Errorf("invalid --join-timeout=%s: a positive duration", f.joinTimeout)
	}
	if _, port, err := net.SplitHostPort(f.leader); err != nil || port == "" {
		return fmt.Errorf("invalid --leader=%s: HOST:PORT", f.leader)
	}
	return nil
}

// planID is what the clients of one plan must share: the plan file's
// content and the scale it runs at.
func planID(path string, scale float64) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(append(b, []byte(strconv.FormatFloat(scale, 'g', -1, 64))...))
	return hex.EncodeToString(h[:8]), nil
}

// shared is the leader's side of a plan on several clients.
type shared struct {
	l       *fleet.Leader
	clients int
	dir     string // the plan's result folder: the parts go in its .parts/
	seq     int
}

// measureShared runs a cell at threads on every client: each its share,
// its measured window from one instant; the followers' results merged
// with the leader's into the cell's. A client that fails or is lost fails
// the cell.
func (pr *planRunner) measureShared(ctx context.Context, c *cells.Cell, threads int, out io.Writer) (*result.Result, error) {
	sh := pr.shared
	spec, _ := workload.Lookup(c.Args()[0])
	split := spec.Clients
	if split == nil {
		split = &workload.Clients{}
	}
	if split.Whole != nil && split.Whole(c.Args()) {
		// A run that is one whole (TPC-H's power test before its
		// streams): the leader runs it as one client would, the others
		// sit the cell out.
		fmt.Fprintf(out, "Clients: a %s run is one whole: client 0 runs all %d threads, the others sit this cell out\n", spec.Name, threads)
		return pr.measure(ctx, c, threads, out)
	}
	sh.seq++
	_, _, rateFlag := pipeline.TimingFlags(c.Args()[0])
	key, err := c.Key()
	if err != nil {
		return nil, err
	}
	rate := 0.0
	for _, a := range c.Args() {
		if v, ok := strings.CutPrefix(a, "--"+rateFlag+"="); ok && rateFlag != "" {
			rate, _ = strconv.ParseFloat(v, 64)
		}
	}
	n := sh.clients
	id := fmt.Sprintf("%d-%s-%d", sh.seq, strings.TrimSuffix(c.File, ".json"), threads)
	as, perPart := fleet.Assign(fleet.Cell{ID: id, Step: c.Series.Step, Repeat: c.Repeat, Threads: threads,
		Args: c.Series.LevelArgs, RateFlag: rateFlag, Rate: rate, Share: split.Share}, n)
	at := time.Now().Add(startMargin + time.Duration(key.Warmup)*time.Second)
	fmt.Fprintf(out, "Clients: %d, threads %s, measured from %s\n", n, sharesText(as), at.Format("15:04:05.000"))
	sh.l.Dispatch(as, at)
	own, err := pr.runShare(ctx, as[0], at, 0, n, out)
	if err != nil {
		return nil, err
	}
	deadline := at.Add(time.Duration(key.Time)*time.Second + time.Minute)
	got, err := sh.l.Collect(ctx, id, as, deadline)
	if err != nil {
		return nil, err
	}
	parts := []*result.Result{own}
	for i := 1; i < n; i++ {
		if r := got[i]; r != nil {
			parts = append(parts, r)
		}
	}
	whole := map[string]string{result.FlagThreads: strconv.Itoa(threads)}
	if rate > 0 {
		whole[rateFlag] = strconv.FormatFloat(rate, 'g', -1, 64)
	}
	m, err := result.MergeParts(parts, result.Split{Whole: whole, PerPart: perPart})
	if err != nil {
		return nil, fmt.Errorf("merging the clients' results: %w", err)
	}
	if split.Figures != nil {
		m.Figures, m.NotApplicable = split.Figures(parts)
	}
	// What the server did and how the leader's client fared: the leader's.
	m.Evidence, m.DatasetState, m.ClientHealth = own.Evidence, own.DatasetState, own.ClientHealth
	for _, p := range parts[1:] {
		if h := p.ClientHealth; h != nil && h.ClientBound && m.ClientHealth != nil && !m.ClientHealth.ClientBound {
			cp := *m.ClientHealth
			cp.ClientBound, cp.ClientBoundWhy = true, fmt.Sprintf("client %d: %s", p.Share.Index, h.ClientBoundWhy)
			m.ClientHealth = &cp
		}
	}
	if err := sh.keepParts(id, parts); err != nil {
		return nil, err
	}
	var offsets []string
	for _, p := range m.Parts {
		offsets = append(offsets, fmt.Sprintf("%+.1f ms", p.OffsetMs))
	}
	fmt.Fprintf(out, "Clients' windows started at %s from the instant; merged: %d threads\n", strings.Join(offsets, ", "), m.Threads)
	return m, nil
}

func sharesText(as []fleet.Assignment) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = strconv.Itoa(a.Threads)
	}
	return strings.Join(s, "+")
}

// keepParts writes each client's result of a cell into the folder's
// .parts/ (hidden from reports, which read the merged result).
func (sh *shared) keepParts(id string, parts []*result.Result) error {
	dir := filepath.Join(sh.dir, ".parts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot keep the clients' parts: %w", err)
	}
	for _, p := range parts {
		if err := p.Write(filepath.Join(dir, fmt.Sprintf("%s-client%d.json", id, p.Share.Index))); err != nil {
			return err
		}
	}
	return nil
}

// runShare runs one client's share of a cell in this process, its
// measured window from at.
func (pr *planRunner) runShare(ctx context.Context, a fleet.Assignment, at time.Time, index, clients int, out io.Writer) (*result.Result, error) {
	if a.Threads == 0 {
		return nil, fmt.Errorf("client %d has no thread of the cell: give the cell at least --clients threads", index)
	}
	p, co, err := pr.command(a.Args, "run", true, out)
	if err != nil {
		return nil, err
	}
	c := &cells.Cell{Series: &cells.Series{Plan: pr.p.Name, Step: a.Step, Args: a.Args}, Threads: a.Threads, Repeat: a.Repeat}
	r, err := p.Describe(co, c, a.Threads)
	if err != nil {
		return nil, err
	}
	r.MeasureAt = at
	res, err := p.Measure(ctx, r)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	res.Share = &result.Share{Index: index, Clients: clients, Host: host, Threads: a.Threads, Rate: r.Options.Rate,
		OffsetMs: float64(res.Start.Sub(at).Microseconds()) / 1000}
	return res, nil
}

// follow is a follower's plan run: join the leader, run each share it
// hands out, send the result back, until the leader says the plan is over.
func (pr *planRunner) follow(ctx context.Context, ff fleetFlags, id string) error {
	f := &fleet.Follower{Leader: ff.leader, Join: fleet.Join{Index: ff.index, Clients: ff.clients, Plan: id}, JoinTimeout: ff.joinTimeout}
	if err := f.Connect(ctx); err != nil {
		return err
	}
	fmt.Fprintf(pr.out, "Client %d of %d: joined the leader at %s\n", ff.index, ff.clients, ff.leader)
	for {
		a, got, err := f.Next(ctx)
		if err != nil {
			return err
		}
		switch {
		case a.Done:
			fmt.Fprintf(pr.out, "The leader's plan is done\n")
			return nil
		case a.Stop != "":
			return fmt.Errorf("the leader stopped the plan: %s", a.Stop)
		}
		at := got.Add(a.StartIn)
		fmt.Fprintf(pr.out, "\n== %s, %d threads (this client's share), measured from %s\n", a.ID, a.Threads, at.Format("15:04:05.000"))
		stop := f.Beating(ctx)
		res, runErr := pr.runShare(ctx, a, at, ff.index, ff.clients, pr.out)
		stop()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := f.Send(ctx, a.ID, res, runErr); err != nil {
			fmt.Fprintf(pr.out, "%v: joining the leader again\n", err)
		}
	}
}

// rotateServers starts client index's lists of servers (--mysql-host,
// --mysql-port, --mysql-socket after --) at its own turn, so that the
// clients' first threads spread over every server (a port list of one
// entry, for every host, stays as it is).
func rotateServers(extra []string, index int) []string {
	out := append([]string(nil), extra...)
	for i := 0; i < len(out); i++ {
		for _, name := range []string{"--mysql-host", "--mysql-port", "--mysql-socket"} {
			switch {
			case strings.HasPrefix(out[i], name+"="):
				list := strings.Split(strings.TrimPrefix(out[i], name+"="), ",")
				out[i] = name + "=" + strings.Join(fleet.Rotate(list, index), ",")
			case out[i] == name && i+1 < len(out):
				out[i+1] = strings.Join(fleet.Rotate(strings.Split(out[i+1], ","), index), ",")
				i++
			}
		}
	}
	return out
}
