package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/result"
)

func TestShares(t *testing.T) {
	for _, tc := range []struct {
		n, clients int
		want       []int
	}{
		{24, 3, []int{8, 8, 8}}, {10, 3, []int{4, 3, 3}}, {2, 3, []int{1, 1, 0}}, {7, 1, []int{7}},
	} {
		var got []int
		sum := 0
		for i := range tc.clients {
			got = append(got, Share(tc.n, tc.clients, i))
			sum += got[i]
		}
		if !slices.Equal(got, tc.want) || sum != tc.n {
			t.Errorf("Share(%d, %d): %v, want %v", tc.n, tc.clients, got, tc.want)
		}
	}
	if r := RateShare(300, 10, 3, 0) + RateShare(300, 10, 3, 1) + RateShare(300, 10, 3, 2); r != 300 || RateShare(300, 10, 3, 0) != 120 {
		t.Errorf("rate shares of 300 over 4+3+3 threads: %v in all, %v first", r, RateShare(300, 10, 3, 0))
	}
	hosts := []string{"a", "b", "c"}
	if got := [][]string{Rotate(hosts, 0), Rotate(hosts, 1), Rotate(hosts, 4)}; !slices.Equal(got[0], hosts) ||
		!slices.Equal(got[1], []string{"b", "c", "a"}) || !slices.Equal(got[2], []string{"b", "c", "a"}) {
		t.Errorf("rotations: %v", got)
	}
}

func leader(t *testing.T, clients int) *Leader {
	t.Helper()
	l, err := Listen("127.0.0.1:0", clients, "plan-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func follower(l *Leader, index int, plan string) *Follower {
	return &Follower{Leader: l.Addr(), Join: Join{Index: index, Clients: l.clients, Plan: plan}, JoinTimeout: 2 * time.Second}
}

// TestJoin: the followers join; a second client of one index, another
// plan, another --clients and an index out of range are refused in one
// line; the leader names who did not join in time.
func TestJoin(t *testing.T) {
	l := leader(t, 3)
	ctx := context.Background()
	if err := follower(l, 1, "plan-1").Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.WaitJoined(ctx, 300*time.Millisecond); err == nil || !strings.Contains(err.Error(), "client 2 did not join within --join-timeout=300ms") {
		t.Errorf("waiting for client 2: %v", err)
	}
	for _, tc := range []struct {
		f    *Follower
		want string
	}{
		{follower(l, 1, "plan-1"), "client index 1 has joined already: give each client its own --client-index"},
		{follower(l, 2, "plan-2"), "client 2's plan differs from the leader's"},
		{&Follower{Leader: l.Addr(), Join: Join{Index: 2, Clients: 4, Plan: "plan-1"}, JoinTimeout: time.Second}, "client 2 runs --clients=4, the leader --clients=3"},
		{follower(l, 3, "plan-1"), "client index 3 is not one of 1..2"},
	} {
		err := tc.f.Connect(ctx)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v, want a refusal with %q", tc.f.Join, err, tc.want)
		}
	}
	if err := follower(l, 2, "plan-1").Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.WaitJoined(ctx, time.Second); err != nil || !slices.Equal(l.Joined(), []int{1, 2}) {
		t.Errorf("all joined: %v %v", err, l.Joined())
	}
	// A leader nobody runs.
	gone := &Follower{Leader: "127.0.0.1:1", Join: Join{Index: 1, Clients: 3}, JoinTimeout: 300 * time.Millisecond}
	if err := gone.Connect(ctx); err == nil || !strings.Contains(err.Error(), "cannot reach the leader at 127.0.0.1:1 within --join-timeout=300ms") {
		t.Errorf("no leader: %v", err)
	}
}

// TestCell: a cell's shares reach the followers with the instant to start
// at, their results come back to Collect, and the end of the plan reaches
// them; a follower that errs fails the cell.
func TestCell(t *testing.T) {
	l := leader(t, 3)
	ctx := context.Background()
	fs := []*Follower{nil, follower(l, 1, "plan-1"), follower(l, 2, "plan-1")}
	for _, f := range fs[1:] {
		if err := f.Connect(ctx); err != nil {
			t.Fatal(err)
		}
	}
	as := []Assignment{{ID: "c1", Threads: 2}, {ID: "c1", Threads: 2, Args: []string{"x", "--threads=2"}}, {ID: "c1", Threads: 1}}
	at := time.Now().Add(time.Second)
	l.Dispatch(as, at)
	for i, f := range fs[1:] {
		a, got, err := f.Next(ctx)
		if err != nil || a.ID != "c1" || a.Threads != as[i+1].Threads {
			t.Fatalf("follower %d: %+v %v", i+1, a, err)
		}
		// Off by the time the assignment took to arrive: a busy machine
		// (the race detector beside make test's shards) may take a tenth
		// of a second and more; a start not carried over is a second off.
		if d := got.Add(a.StartIn).Sub(at); d > 300*time.Millisecond || d < -300*time.Millisecond {
			t.Errorf("follower %d starts %s from the leader's instant", i+1, d)
		}
		r := &result.Result{Format: result.Format, Workload: "w", Threads: a.Threads, Share: &result.Share{Index: i + 1}}
		if err := f.Send(ctx, a.ID, r, nil); err != nil {
			t.Fatal(err)
		}
	}
	got, err := l.Collect(ctx, "c1", as, time.Now().Add(time.Second))
	if err != nil || len(got) != 2 || got[2].Threads != 1 {
		t.Fatalf("collected %v, %v", got, err)
	}
	// A share that fails fails the cell.
	l.Dispatch(as, time.Now())
	for _, f := range fs[1:] {
		a, _, _ := f.Next(ctx)
		var runErr error
		if f.Join.Index == 2 {
			runErr = errors.New("connecting: too many connections\nmore")
		}
		f.Send(ctx, a.ID+"b", &result.Result{Format: result.Format, Workload: "w"}, runErr)
	}
	if _, err := l.Collect(ctx, "c1b", as, time.Now().Add(time.Second)); err == nil || err.Error() != "client 2's share failed: connecting: too many connections" {
		t.Errorf("a failed share: %v", err)
	}
	done := make(chan Assignment, 2)
	for _, f := range fs[1:] {
		go func() { a, _, _ := f.Next(ctx); done <- a }()
	}
	l.Finish("", 2*time.Second)
	for range 2 {
		if a := <-done; !a.Done {
			t.Errorf("the end of the plan: %+v", a)
		}
	}
}

// TestLost: a follower that stops beating during a cell is lost, and the
// cell fails; a late one fails it at the deadline.
func TestLost(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a follower to be lost")
	}
	l := leader(t, 2)
	ctx := context.Background()
	f := follower(l, 1, "plan-1")
	if err := f.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	as := []Assignment{{ID: "c", Threads: 1}, {ID: "c", Threads: 1}}
	l.Dispatch(as, time.Now())
	if _, _, err := f.Next(ctx); err != nil {
		t.Fatal(err)
	}
	// It beats for a while, then goes silent.
	stop := f.Beating(ctx)
	time.Sleep(1500 * time.Millisecond)
	stop()
	start := time.Now()
	_, err := l.Collect(ctx, "c", as, time.Now().Add(time.Minute))
	if err == nil || !strings.Contains(err.Error(), "client 1 was lost during the cell") || time.Since(start) > Lost+2*time.Second {
		t.Errorf("a silent follower: %v after %s", err, time.Since(start))
	}
}

// A cell of 7 threads at 700 ops/s among 3 clients: each client's threads,
// rate and own options, numbered on from the clients before it.
func TestAssign(t *testing.T) {
	args := func(n int) []string { return []string{"tpch", "run", fmt.Sprintf("--threads=%d", n)} }
	share := func(first, n, all int) []string {
		return []string{fmt.Sprintf("--first-stream=%d", first+1), fmt.Sprintf("--all-streams=%d", all)}
	}
	as, perPart := Assign(Cell{ID: "c", Step: "s", Repeat: 2, Threads: 7, Args: args, RateFlag: "rate", Rate: 700, Share: share}, 3)
	want := [][]string{
		{"tpch", "run", "--threads=3", "--rate=300", "--first-stream=1", "--all-streams=7"},
		{"tpch", "run", "--threads=2", "--rate=200", "--first-stream=4", "--all-streams=7"},
		{"tpch", "run", "--threads=2", "--rate=200", "--first-stream=6", "--all-streams=7"},
	}
	for i, a := range as {
		if !slices.Equal(a.Args, want[i]) || a.Threads != []int{3, 2, 2}[i] || a.ID != "c" || a.Step != "s" || a.Repeat != 2 {
			t.Errorf("client %d: %+v, want args %v", i, a, want[i])
		}
	}
	if !slices.Equal(perPart, []string{"first-stream", "all-streams"}) {
		t.Errorf("per-part options %v", perPart)
	}
	// No rate, no share options: the command line at each share only.
	as, perPart = Assign(Cell{ID: "c", Threads: 2, Args: args}, 3)
	if len(as) != 3 || as[2].Threads != 0 || !slices.Equal(as[2].Args, args(0)) || perPart != nil {
		t.Errorf("without rate or share: %+v, %v", as, perPart)
	}
}
