package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/oltpbench/oltpbench/internal/result"
)

// Leader is client 0: it listens for the followers and hands them cells.
type Leader struct {
	clients int
	plan    string
	ln      net.Listener
	srv     *http.Server

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change
	seen    map[int]time.Time
	pending map[int]*pendingCell
	parts   map[string]map[int]part // cell -> client -> what it sent
	end     *Assignment             // the plan is over (Done) or stopped (Stop)
	told    map[int]bool            // followers told the end
}

type pendingCell struct {
	a  Assignment
	at time.Time // the measured window's start, the leader's clock
}

type part struct {
	r   *result.Result
	err string
}

// Listen starts the leader on addr (":7070") for a plan of clients
// clients, identified by plan.
func Listen(addr string, clients int, plan string) (*Leader, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("the leader cannot listen on %s: %w", addr, err)
	}
	l := &Leader{clients: clients, plan: plan, ln: ln, changed: make(chan struct{}), seen: map[int]time.Time{},
		pending: map[int]*pendingCell{}, parts: map[string]map[int]part{}, told: map[int]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /join", l.join)
	mux.HandleFunc("GET /next", l.next)
	mux.HandleFunc("POST /beat", l.beat)
	mux.HandleFunc("POST /result", l.result)
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go l.srv.Serve(ln)
	return l, nil
}

// Addr is where the leader listens.
func (l *Leader) Addr() string { return l.ln.Addr().String() }

// Close stops listening.
func (l *Leader) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return l.srv.Shutdown(ctx)
}

// broadcast wakes every waiter; l.mu held.
func (l *Leader) broadcast() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// wait returns a channel closed at the next change.
func (l *Leader) wait() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.changed
}

func (l *Leader) index(w http.ResponseWriter, r *http.Request) (int, bool) {
	i, err := strconv.Atoi(r.URL.Query().Get("index"))
	if err != nil || i < 1 || i >= l.clients {
		http.Error(w, fmt.Sprintf("client index %q is not one of 1..%d (--clients=%d)", r.URL.Query().Get("index"), l.clients-1, l.clients), http.StatusBadRequest)
		return 0, false
	}
	return i, true
}

func (l *Leader) join(w http.ResponseWriter, r *http.Request) {
	var j Join
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&j); err != nil {
		http.Error(w, "a join the leader cannot read: "+err.Error(), http.StatusBadRequest)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case j.Clients != l.clients:
		http.Error(w, fmt.Sprintf("client %d runs --clients=%d, the leader --clients=%d: give every client the same", j.Index, j.Clients, l.clients), http.StatusConflict)
	case j.Index < 1 || j.Index >= l.clients:
		http.Error(w, fmt.Sprintf("client index %d is not one of 1..%d (--clients=%d; 0 is the leader)", j.Index, l.clients-1, l.clients), http.StatusConflict)
	case j.Plan != l.plan:
		http.Error(w, fmt.Sprintf("client %d's plan differs from the leader's (another file, or another --scale): give every client the same plan", j.Index), http.StatusConflict)
	case time.Since(l.seen[j.Index]) < Lost:
		http.Error(w, fmt.Sprintf("client index %d has joined already: give each client its own --client-index", j.Index), http.StatusConflict)
	default:
		l.seen[j.Index] = time.Now()
		delete(l.told, j.Index)
		l.broadcast()
	}
}

func (l *Leader) next(w http.ResponseWriter, r *http.Request) {
	i, ok := l.index(w, r)
	if !ok {
		return
	}
	hold := time.NewTimer(2 * beat)
	defer hold.Stop()
	for {
		l.mu.Lock()
		if _, joined := l.seen[i]; !joined {
			l.mu.Unlock()
			http.Error(w, "join first", http.StatusConflict)
			return
		}
		l.seen[i] = time.Now()
		var a *Assignment
		if p := l.pending[i]; p != nil {
			a = &p.a
			a.Sent = time.Now()
			a.StartIn = p.at.Sub(a.Sent)
			delete(l.pending, i)
		} else if l.end != nil {
			a = l.end
			l.told[i] = true
			l.broadcast()
		}
		ch := l.changed
		l.mu.Unlock()
		if a != nil {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(a)
			return
		}
		select {
		case <-ch:
		case <-hold.C:
			w.WriteHeader(http.StatusNoContent)
			return
		case <-r.Context().Done():
			return
		}
	}
}

func (l *Leader) beat(w http.ResponseWriter, r *http.Request) {
	i, ok := l.index(w, r)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, joined := l.seen[i]; !joined {
		http.Error(w, "join first", http.StatusConflict)
		return
	}
	l.seen[i] = time.Now()
}

func (l *Leader) result(w http.ResponseWriter, r *http.Request) {
	i, ok := l.index(w, r)
	if !ok {
		return
	}
	id := r.URL.Query().Get("id")
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<30))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var p part
	if msg := r.Header.Get("X-Run-Error"); msg != "" {
		p.err = msg
	} else if p.r, err = result.Decode("client "+strconv.Itoa(i)+"'s result", b, nil); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.parts[id] == nil {
		l.parts[id] = map[int]part{}
	}
	l.parts[id][i] = p
	l.seen[i] = time.Now()
	l.broadcast()
}

// WaitJoined waits until every follower has joined, at most timeout.
func (l *Leader) WaitJoined(ctx context.Context, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		ch := l.wait()
		l.mu.Lock()
		var missing []string
		for i := 1; i < l.clients; i++ {
			if _, ok := l.seen[i]; !ok {
				missing = append(missing, strconv.Itoa(i))
			}
		}
		l.mu.Unlock()
		if len(missing) == 0 {
			return nil
		}
		select {
		case <-ch:
		case <-deadline.C:
			return fmt.Errorf("client %s did not join within --join-timeout=%s: start it with --clients=%d --client-index=N --leader=HOST:%s",
				strings.Join(missing, ", "), timeout, l.clients, portOf(l.Addr()))
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// Dispatch hands each follower its share of a cell (indexes 1..n-1 of as;
// a share of no threads is not sent), its measured window to start at.
func (l *Leader) Dispatch(as []Assignment, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := 1; i < len(as); i++ {
		if as[i].Threads > 0 {
			l.pending[i] = &pendingCell{a: as[i], at: at}
		}
	}
	l.broadcast()
}

// Collect waits for the results of cell id from the followers of shares
// as, until deadline; a follower that errs, is lost, or is late fails it.
func (l *Leader) Collect(ctx context.Context, id string, as []Assignment, deadline time.Time) (map[int]*result.Result, error) {
	tick := time.NewTicker(beat / 2)
	defer tick.Stop()
	for {
		ch := l.wait()
		l.mu.Lock()
		got := map[int]*result.Result{}
		var fail error
		for i := 1; i < len(as); i++ {
			if as[i].Threads == 0 {
				continue
			}
			p, ok := l.parts[id][i]
			switch {
			case ok && p.err != "":
				fail = fmt.Errorf("client %d's share failed: %s", i, p.err)
			case ok:
				got[i] = p.r
			case time.Since(l.seen[i]) > Lost:
				fail = fmt.Errorf("client %d was lost during the cell (nothing from it for %s): the cell is not kept; run the same commands again to resume", i, Lost)
			case time.Now().After(deadline):
				fail = fmt.Errorf("client %d sent no result by %s: the cell is not kept", i, deadline.Format(time.TimeOnly))
			}
			if fail != nil {
				break
			}
		}
		if fail == nil && len(got) == countShares(as) {
			delete(l.parts, id)
		}
		l.mu.Unlock()
		if fail != nil {
			return nil, fail
		}
		if len(got) == countShares(as) {
			return got, nil
		}
		select {
		case <-ch:
		case <-tick.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func countShares(as []Assignment) int {
	n := 0
	for i := 1; i < len(as); i++ {
		if as[i].Threads > 0 {
			n++
		}
	}
	return n
}

// Finish tells the followers the plan is over (stop "" : done), and waits
// up to wait for each one still there to hear it.
func (l *Leader) Finish(stop string, wait time.Duration) {
	l.mu.Lock()
	l.end = &Assignment{Done: stop == "", Stop: stop}
	l.pending = map[int]*pendingCell{}
	l.broadcast()
	l.mu.Unlock()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		ch := l.wait()
		l.mu.Lock()
		left := 0
		for i, at := range l.seen {
			if !l.told[i] && time.Since(at) < Lost {
				left++
			}
		}
		l.mu.Unlock()
		if left == 0 {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			return
		}
	}
}

// Joined is the followers that have joined, in order.
func (l *Leader) Joined() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []int
	for i := range l.seen {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// errorBody is a refusal's text.
func errorBody(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	msg := strings.TrimSpace(string(b))
	if msg == "" {
		msg = resp.Status
	}
	return errors.New(msg)
}
