package deadline

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// hang is a read of a server that never answers: it waits for its context.
func hang(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

func TestDo(t *testing.T) {
	quick := Read{"counters", 50 * time.Millisecond}
	refused := errors.New("refused")
	for _, c := range []struct {
		name   string
		parent func() (context.Context, context.CancelFunc)
		read   func(context.Context) error
		missed bool
		err    error
	}{
		{"answers", nil, func(context.Context) error { return nil }, false, nil},
		{"refuses", nil, func(context.Context) error { return refused }, false, refused},
		{"never answers", nil, hang, true, nil},
		// The caller's own end (Ctrl-C, the run's end) is the caller's error, not a miss.
		{"parent ends first", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 5*time.Millisecond)
		},
			hang, false, context.DeadlineExceeded},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			if c.parent != nil {
				var cancel context.CancelFunc
				ctx, cancel = c.parent()
				defer cancel()
			}
			start := time.Now()
			err := Do(ctx, quick, c.read)
			if took := time.Since(start); took > quick.Within+time.Second {
				t.Errorf("took %s, bound %s", took, quick.Within)
			}
			var m *Missed
			if got := errors.As(err, &m); got != c.missed {
				t.Fatalf("err %v: missed %v, want %v", err, got, c.missed)
			}
			if c.missed {
				if want := "counters missing: the server did not answer within 0.05 s"; m.Error() != want {
					t.Errorf("%q, want %q", m.Error(), want)
				}
			} else if !errors.Is(err, c.err) {
				t.Errorf("err %v, want %v", err, c.err)
			}
		})
	}
}

// After one miss a Gate waits for nothing more: later reads, of any kind,
// are missing at once for the first miss's reason, and each kind is said
// once.
func TestGate(t *testing.T) {
	var mu sync.Mutex
	var said []string
	g := &Gate{Say: func(m *Missed) { mu.Lock(); said = append(said, m.Error()); mu.Unlock() }}
	a, b := Read{"evidence", 30 * time.Millisecond}, Read{"state", time.Hour}
	if err := g.Do(context.Background(), a, func(context.Context) error { return nil }); err != nil || g.Missed() != nil {
		t.Fatalf("an answer: %v, %v", err, g.Missed())
	}
	select {
	case <-g.Done():
		t.Fatal("Done before a miss")
	default:
	}
	if err := g.Do(context.Background(), a, hang); err == nil {
		t.Fatal("a hang: no error")
	}
	<-g.Done() // closed by the miss
	var wg sync.WaitGroup
	for range 4 { // concurrent reads after the miss (-race)
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			called := false
			err := g.Do(context.Background(), b, func(ctx context.Context) error { called = true; return hang(ctx) })
			if called || time.Since(start) > time.Second {
				t.Errorf("a read after the miss was waited for")
			}
			if want := "state missing: the server did not answer within 0.03 s"; err == nil || err.Error() != want {
				t.Errorf("after the miss: %v, want %q", err, want)
			}
		}()
	}
	wg.Wait()
	g.Do(context.Background(), a, hang)
	want := []string{"evidence missing: the server did not answer within 0.03 s", "state missing: the server did not answer within 0.03 s"}
	if len(said) != 2 || said[0] != want[0] || said[1] != want[1] {
		t.Errorf("said %q, want %q", said, want)
	}
	if got := g.Said(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Said() %q, want %q", got, want)
	}
	var nilGate *Gate // only bounds
	if err := nilGate.Do(context.Background(), a, hang); err == nil || nilGate.Missed() != nil {
		t.Errorf("nil gate: %v", err)
	}
}

// Watch ends its context when a ping hangs past its bound, not when a
// ping fails at once, and stop ends the watch.
func TestWatch(t *testing.T) {
	r := Read{"server", 40 * time.Millisecond}
	var mu sync.Mutex
	pings, frozen := 0, false
	ping := func(ctx context.Context) error {
		mu.Lock()
		pings++
		f := frozen
		mu.Unlock()
		if f {
			return hang(ctx)
		}
		return errors.New("connection refused") // a restart: not a miss
	}
	ctx, stop := Watch(context.Background(), r, 5*time.Millisecond, ping)
	defer stop()
	for {
		mu.Lock()
		n := pings
		mu.Unlock()
		if n >= 3 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if ctx.Err() != nil {
		t.Fatal("ended by pings that failed at once")
	}
	mu.Lock()
	frozen = true
	mu.Unlock()
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a frozen server's ping did not end the watch")
	}
	if m := Cause(ctx); m == nil || m.Error() != "server missing: the server did not answer within 0.04 s" {
		t.Errorf("cause %v", context.Cause(ctx))
	}

	// Pings that time out on their own before the bound (a connect timeout)
	// end it once the server has not answered for the bound.
	start := time.Now()
	ctx3, stop3 := Watch(context.Background(), r, time.Millisecond, func(context.Context) error { return context.DeadlineExceeded })
	defer stop3()
	select {
	case <-ctx3.Done():
		if time.Since(start) < r.Within || Cause(ctx3) == nil {
			t.Errorf("timed-out pings: ended after %s (bound %s), cause %v", time.Since(start), r.Within, context.Cause(ctx3))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("pings that time out did not end the watch")
	}

	ctx2, stop2 := Watch(context.Background(), r, time.Millisecond, func(context.Context) error { return nil })
	stop2()
	if Cause(ctx2) != nil {
		t.Errorf("stopped watch: cause %v", Cause(ctx2))
	}
}

// Await reads until one read answers, each within its bound, and gives
// the last error when its context ends first.
func TestAwait(t *testing.T) {
	n := 0
	err := Await(context.Background(), Read{"x", time.Second}, time.Millisecond, func(ctx context.Context) error {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("a read without its bound")
		}
		if n++; n < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Errorf("Await: %v after %d reads", err, n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = Await(ctx, Read{"x", 10 * time.Millisecond}, time.Millisecond, func(ctx context.Context) error {
		<-ctx.Done() // a frozen server: every read runs to its bound
		return errors.New("frozen")
	})
	if err == nil || err.Error() != "frozen" || time.Since(start) > 2*time.Second {
		t.Errorf("Await on a frozen server: %v after %s", err, time.Since(start))
	}
}
