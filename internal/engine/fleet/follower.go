package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/oltpbench/oltpbench/internal/result"
)

// ErrRefused is a join the leader refused: the follower's command line is
// wrong, and trying again will not help.
var ErrRefused = errors.New("refused by the leader")

// Follower is client 1..n-1: it joins the leader and runs what it is given.
type Follower struct {
	Leader      string // HOST:PORT
	Join        Join
	JoinTimeout time.Duration
	http        *http.Client
}

func (f *Follower) client() *http.Client {
	if f.http == nil {
		f.http = &http.Client{Timeout: 10 * time.Second}
	}
	return f.http
}

func (f *Follower) url(path string, q url.Values) string {
	if q == nil {
		q = url.Values{}
	}
	q.Set("index", strconv.Itoa(f.Join.Index))
	return "http://" + f.Leader + path + "?" + q.Encode()
}

// Connect joins the leader, trying again until JoinTimeout while it cannot
// be reached; a refusal is returned at once (wrapping ErrRefused).
func (f *Follower) Connect(ctx context.Context) error {
	body, _ := json.Marshal(f.Join)
	deadline := time.Now().Add(f.JoinTimeout)
	var last error
	for {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		req, _ := http.NewRequestWithContext(rctx, http.MethodPost, f.url("/join", nil), bytes.NewReader(body))
		resp, err := f.client().Do(req)
		if err == nil {
			refused := resp.StatusCode != http.StatusOK
			if refused {
				err = fmt.Errorf("%w: %w", ErrRefused, errorBody(resp))
			}
			resp.Body.Close()
			cancel()
			if refused {
				return err
			}
			return nil
		}
		cancel()
		last = err
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cannot reach the leader at %s within --join-timeout=%s (%v): check --leader and that client 0 runs", f.Leader, f.JoinTimeout, last)
		}
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Next waits for the leader's next assignment, and when it arrived: a
// leader that went away is joined again (within JoinTimeout).
func (f *Follower) Next(ctx context.Context) (Assignment, time.Time, error) {
	for {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		req, _ := http.NewRequestWithContext(rctx, http.MethodGet, f.url("/next", nil), nil)
		resp, err := f.client().Do(req)
		if err != nil {
			cancel()
			if ctx.Err() != nil {
				return Assignment{}, time.Time{}, ctx.Err()
			}
			if err := f.Connect(ctx); err != nil {
				return Assignment{}, time.Time{}, err
			}
			continue
		}
		got := time.Now()
		var a Assignment
		switch resp.StatusCode {
		case http.StatusOK:
			err = json.NewDecoder(resp.Body).Decode(&a)
		case http.StatusNoContent:
		case http.StatusConflict: // a leader that started again: join it
			resp.Body.Close()
			cancel()
			if err := f.Connect(ctx); err != nil {
				return Assignment{}, time.Time{}, err
			}
			continue
		default:
			err = errorBody(resp)
		}
		resp.Body.Close()
		cancel()
		if err != nil {
			return Assignment{}, time.Time{}, fmt.Errorf("the leader's assignment: %w", err)
		}
		if resp.StatusCode == http.StatusOK {
			return a, got, nil
		}
	}
}

// Beat tells the leader this follower is alive (during a cell).
func (f *Follower) Beat(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(rctx, http.MethodPost, f.url("/beat", nil), nil)
	if resp, err := f.client().Do(req); err == nil {
		resp.Body.Close()
	}
}

// Beating beats every second until the returned stop is called.
func (f *Follower) Beating(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(beat)
		defer t.Stop()
		for {
			f.Beat(ctx)
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { cancel(); <-done }
}

// Send gives the leader this follower's result of cell id, or why its
// share failed.
func (f *Follower) Send(ctx context.Context, id string, r *result.Result, runErr error) error {
	var body bytes.Buffer
	if runErr == nil {
		if err := r.Encode(&body); err != nil {
			return err
		}
	}
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(rctx, http.MethodPost, f.url("/result", url.Values{"id": {id}}), &body)
	if runErr != nil {
		req.Header.Set("X-Run-Error", firstLine(runErr.Error()))
	}
	resp, err := f.client().Do(req)
	if err != nil {
		return fmt.Errorf("cannot send the result to the leader: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the leader refused the result: %w", errorBody(resp))
	}
	return nil
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}
