package hist

import (
	"fmt"
	"sync"
	"testing"
)

// Splitting samples over two registries and merging their encodings gives
// exactly the single histogram: what makes multi-client results exact.
func TestEncodeMergeExact(t *testing.T) {
	all, a, b := New(), New(), New()
	for i := int64(1); i <= 200000; i++ {
		v := (i * 7919) % 5_000_000
		all.RecordValue(max(v, 1))
		if i%3 == 0 {
			a.RecordValue(max(v, 1))
		} else {
			b.RecordValue(max(v, 1))
		}
	}
	ea, _ := Encode(a)
	eb, _ := Encode(b)
	da, err := Decode(ea)
	if err != nil {
		t.Fatal(err)
	}
	db, _ := Decode(eb)
	da.Merge(db)
	for _, q := range []float64{50, 90, 95, 99, 99.9, 99.99, 100} {
		if da.ValueAtQuantile(q) != all.ValueAtQuantile(q) {
			t.Errorf("p%v: merged %d, single %d", q, da.ValueAtQuantile(q), all.ValueAtQuantile(q))
		}
	}
	if da.TotalCount() != all.TotalCount() {
		t.Errorf("count %d vs %d", da.TotalCount(), all.TotalCount())
	}
}

func TestRegistryConcurrentRecord(t *testing.T) {
	r := NewRegistry([]string{"a", "b"}, 4)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 10000; i++ {
				r.Record(i%2, w, int64(i+1))
			}
		}(w)
	}
	var seen int64
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		for {
			select {
			case <-done:
				return
			default:
				for _, h := range r.Interval() {
					seen += h.TotalCount()
				}
			}
		}
	}()
	wg.Wait()
	close(done)
	<-exited // Interval and Total belong to one reporter goroutine
	tot := r.Total()
	if got := tot[0].TotalCount() + tot[1].TotalCount(); got != 80000 {
		t.Fatalf("total %d, want 80000", got)
	}
	r.Reset()
	if r.Total()[0].TotalCount() != 0 {
		t.Fatal("Reset left samples")
	}
}

func TestRecordClamps(t *testing.T) {
	r := NewRegistry([]string{"x"}, 1)
	r.Record(0, 0, 0)
	r.Record(0, 0, MaxValue*10)
	h := r.Total()[0]
	if h.TotalCount() != 2 || h.Max() < MaxValue/2 {
		t.Fatalf("count %d max %d", h.TotalCount(), h.Max())
	}
}

// Interval returns only what was recorded since the last call, reusing its
// histograms (no new ones per interval), and the total keeps everything.
func TestIntervalReusesHistograms(t *testing.T) {
	r := NewRegistry([]string{"a"}, 4)
	for i := 0; i < 100; i++ {
		r.Record(0, i, 10)
	}
	if n := r.Interval()[0].TotalCount(); n != 100 {
		t.Fatalf("first interval %d samples, want 100", n)
	}
	for i := 0; i < 30; i++ {
		r.Record(0, i, 20)
	}
	iv := r.Interval()[0]
	if iv.TotalCount() != 30 || iv.Min() != 20 {
		t.Errorf("second interval: %d samples, min %d; want 30 of 20", iv.TotalCount(), iv.Min())
	}
	if n := r.Total()[0].TotalCount(); n != 130 {
		t.Errorf("total %d, want 130", n)
	}
	r.Record(0, 1, 5)
	allocs := testing.AllocsPerRun(20, func() { r.Interval() })
	if allocs > 1 {
		t.Errorf("Interval allocates %.0f times per call, want only its result slice", allocs)
	}
}

// A checkpoint takes nothing from the interval in
// progress: the next Interval still has every sample since the last one.
func TestCheckpointKeepsTheInterval(t *testing.T) {
	r := NewRegistry([]string{"a"}, 2)
	for i := 0; i < 50; i++ {
		r.Record(0, i, 10)
	}
	if n := r.Checkpoint()[0].TotalCount(); n != 50 {
		t.Fatalf("checkpoint total %d, want 50", n)
	}
	for i := 0; i < 20; i++ {
		r.Record(0, i, 30)
	}
	if n := r.Interval()[0].TotalCount(); n != 70 {
		t.Errorf("interval after a checkpoint: %d samples, want all 70", n)
	}
	if n := r.Total()[0].TotalCount(); n != 20 {
		t.Errorf("total after the checkpoint: %d, want the 20 since", n)
	}
	r.Reset()
	if r.Interval()[0].TotalCount() != 0 || r.Total()[0].TotalCount() != 0 {
		t.Error("Reset left samples")
	}
}

// Snapshot sees every sample recorded so far, folded or still in a stripe,
// and leaves the intervals whole; it may run beside Record and Interval.
func TestSnapshot(t *testing.T) {
	r := NewRegistry([]string{"a"}, 4)
	for i := 0; i < 10; i++ {
		r.Record(0, i, 100)
	}
	r.Interval()
	for i := 0; i < 5; i++ {
		r.Record(0, i, 200)
	}
	if n := r.Snapshot()[0].TotalCount(); n != 15 {
		t.Errorf("snapshot counts %d samples, want 15", n)
	}
	if n := r.Interval()[0].TotalCount(); n != 5 {
		t.Errorf("the interval after a snapshot has %d samples, want 5", n)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 1000; i++ {
			r.Record(0, i, 300)
		}
	}()
	for i := 0; i < 20; i++ {
		r.Snapshot()
		r.Interval()
	}
	<-done
	if n := r.Total()[0].TotalCount(); n != 1015 {
		t.Errorf("total %d, want 1015", n)
	}
}

// TestAddWhileRecording: operations added while others are recorded into
// (threads preparing statements on new connections) are there for Record
// at once, and no sample of the others is lost; each keeps its precision.
func TestAddWhileRecording(t *testing.T) {
	r := NewRegistryOf(4, 2)
	first := r.Add("a")
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				r.Record(first, g, 100)
			}
		}()
	}
	var added []int
	for i := range 20 {
		op := r.Add(fmt.Sprintf("s%d", i))
		r.Record(op, i, 250)
		added = append(added, op)
	}
	wg.Wait()
	tot := r.Total()
	if len(tot) != 21 || tot[first].TotalCount() != 4000 || r.Names()[20] != "s19" {
		t.Fatalf("%d ops, first %d, names %v", len(tot), tot[first].TotalCount(), r.Names())
	}
	for _, op := range added {
		if tot[op].TotalCount() != 1 || tot[op].SignificantFigures() != 2 {
			t.Fatalf("op %d: %d samples at %d figures", op, tot[op].TotalCount(), tot[op].SignificantFigures())
		}
	}
	if s := r.Snapshot(); len(s) != 21 || s[first].TotalCount() != 4000 {
		t.Fatalf("snapshot %d ops", len(s))
	}
}
