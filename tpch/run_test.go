package tpch

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/worker"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// TestRunOrder drives a dry run's streams as the runner does, each on its
// own goroutine: the power test runs alone first (no throughput step
// starts before its last step), every query stream then runs its own
// order, the refresh stream its pairs, and no query stream ends before the
// refresh stream; the figures come out of the steps' times.
func TestRunOrder(t *testing.T) {
	for _, streams := range []int{1, 3, 6} {
		w := &tpch{sf: 1, queryList: "all", paramKind: "default", test: "both", refresh: true, first: 1}
		s := &workload.Setup{Command: "run", Threads: streams, ThreadsSet: true}
		if err := w.Setup(s); err != nil {
			t.Fatal(err)
		}
		nr, err := w.NewRun(workload.RunConfig{Threads: streams, Seed: 1, Out: io.Discard, Options: &workload.RunOptions{DryRun: true}})
		if err != nil {
			t.Fatal(err)
		}
		r := nr.(*run)
		var mu sync.Mutex
		var log []string // "thread:op", in the order the steps ended
		hists := make([]*hdr.Histogram, len(r.Ops()))
		for i := range hists {
			hists[i] = hdr.New(1, 3_600_000_000, 3)
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for id := 0; id <= streams; id++ { // the last: the refresh stream
			wk, err := r.NewWorker(nil, &worker.Thread{ID: id})
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for wk.(worker.Waiter).Wait(stop) {
					if id != 0 {
						// Another stream steps only once the power test is done
						// (checked as it starts: the log below is in the order
						// the goroutines took the lock after their steps).
						select {
						case <-r.powerDone:
						default:
							t.Errorf("%d streams: stream %d stepped during the power test", streams, id)
						}
					}
					op, err := wk.Event()
					if errors.Is(err, worker.ErrEnd) {
						if id < streams {
							select {
							case <-r.refreshDone:
							default:
								t.Errorf("%d streams: stream %d ended before the refresh stream ran its pairs", streams, id)
							}
						}
						mu.Lock()
						log = append(log, itoa(id)+":end")
						mu.Unlock()
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					log = append(log, itoa(id)+":"+r.Ops()[op])
					hists[op].RecordValue(1000)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		// The power test: thread 0's first 24 steps (no other stream
		// stepped before their end: above).
		var power []string
		counts := map[string]int{}
		for _, e := range log {
			if strings.HasPrefix(e, "0:") && len(power) < 24 {
				power = append(power, e)
			}
			_, op, _ := strings.Cut(e, ":")
			counts[op]++
		}
		if len(power) < 24 || power[0] != "0:rf1" || power[1] != "0:q14" || power[23] != "0:rf2" {
			t.Errorf("%d streams: the power test's steps %v", streams, power)
		}
		if counts["q1"] != 1+streams || counts["rf1"] != 1+streams || counts["rf2"] != 1+streams || counts["end"] != 1+streams {
			t.Errorf("%d streams: counts %v", streams, counts)
		}
		figs, na := r.Final(&measure.Final{Hists: hists})
		if figs["Power"] <= 0 || figs["Throughput"] <= 0 || figs["QphH"] <= 0 || len(na) > 0 {
			t.Errorf("%d streams: figures %v, not applicable %v", streams, figs, na)
		}
		close(stop)
	}
}

func itoa(i int) string { return string(rune('0' + i)) }
