// Package fleet runs one plan on several client machines: client 0, the
// leader, runs the plan and hands each cell's share to the followers over
// HTTP; every client starts its share's measured window at one instant the
// leader names, and sends its result back, which the leader merges. The
// followers ask (long polls), so only the leader listens; a follower that
// stops asking or beating during a cell is lost. No password travels: the
// cells' command lines carry no connection, each client has its own.
package fleet

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Assignment is what the leader tells a follower: a cell's share, or that
// the plan is over.
type Assignment struct {
	ID      string   `json:"id"`   // the cell's result file
	Step    string   `json:"step"` // for the metrics' labels
	Repeat  int      `json:"repeat"`
	Args    []string `json:"args"`    // the cell's command line, threads and rate this client's share
	Threads int      `json:"threads"` // this client's share (0: it sits the cell out)
	// StartIn is how long after Sent the measured window starts: a
	// follower adds it to when it received the assignment, so the clients'
	// clocks need not agree.
	StartIn time.Duration `json:"start_in"`
	Sent    time.Time     `json:"sent"`
	Done    bool          `json:"done,omitempty"` // the plan is over: exit 0
	Stop    string        `json:"stop,omitempty"` // the plan stopped: exit 1 with this
}

// Join is a follower's hello.
type Join struct {
	Index   int    `json:"index"`
	Clients int    `json:"clients"`
	Plan    string `json:"plan"` // the plan's identity (its file's hash and scale)
}

// Lost is how long the leader waits to hear from a follower before it
// counts it lost; followers poll and beat well within it.
const Lost = 6 * time.Second

// beat is how often a follower says it is alive during a cell, and how long
// the leader holds a poll open.
const beat = time.Second

// Share is client index's part of n (threads, or a rate) split among
// clients as evenly as can be, the remainder to the first clients.
func Share(n, clients, index int) int {
	s := n / clients
	if index < n%clients {
		s++
	}
	return s
}

// RateShare is client index's part of a rate split the same way: in
// proportion to its threads' share.
func RateShare(rate float64, threads, clients, index int) float64 {
	if threads == 0 {
		return rate / float64(clients)
	}
	return rate * float64(Share(threads, clients, index)) / float64(threads)
}

// Cell is a cell of the plan to split among the clients.
type Cell struct {
	ID     string // its result file
	Step   string
	Repeat int
	// Threads are the cell's, split among the clients; Args is a client's
	// command line at its share of them.
	Threads int
	Args    func(threads int) []string
	// Rate, when above 0, is the cell's rate (option RateFlag), split in
	// proportion to the threads.
	RateFlag string
	Rate     float64
	// Share, when set, is the options a client's share adds: it runs
	// threads first to first+n-1 of all (from 0).
	Share func(first, n, all int) []string
}

// Assign splits a cell among clients: each client's assignment, and the
// names of the options only the parts have (which the merged result has
// none of).
func Assign(c Cell, clients int) (as []Assignment, perPart []string) {
	as = make([]Assignment, clients)
	first := 0
	for i := range as {
		share := Share(c.Threads, clients, i)
		args := c.Args(share)
		if c.Rate > 0 {
			args = append(args, fmt.Sprintf("--%s=%g", c.RateFlag, RateShare(c.Rate, c.Threads, clients, i)))
		}
		if c.Share != nil {
			extra := c.Share(first, share, c.Threads)
			for _, a := range extra {
				if k, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "="); !slices.Contains(perPart, k) {
					perPart = append(perPart, k)
				}
			}
			args = append(args, extra...)
		}
		first += share
		as[i] = Assignment{ID: c.ID, Step: c.Step, Repeat: c.Repeat, Args: args, Threads: share}
	}
	return as, perPart
}

// Rotate is a list of servers started at client index's turn, so that the
// clients' first threads (which take the first server) spread over all.
func Rotate(list []string, index int) []string {
	if len(list) < 2 {
		return list
	}
	k := index % len(list)
	return append(append([]string(nil), list[k:]...), list[:k]...)
}
