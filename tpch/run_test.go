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
		// The power test: thread 0's first 24 steps, before any other step.
		power := log[:24]
		if power[0] != "0:rf1" || power[1] != "0:q14" || power[23] != "0:rf2" {
			t.Errorf("%d streams: the power test's steps %v", streams, power)
		}
		counts := map[string]int{}
		for i, e := range log {
			if i < 24 && !strings.HasPrefix(e, "0:") {
				t.Fatalf("%d streams: %s ran during the power test: %v", streams, e, log[:24])
			}
			_, op, _ := strings.Cut(e, ":")
			counts[op]++
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
