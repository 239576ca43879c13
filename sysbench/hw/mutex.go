package hw

import (
	"math/rand/v2"
	"sync"
)

// mutexTest: each thread runs one event: --mutex-locks times, an empty
// loop of --mutex-loops, then a random one of --mutex-num mutexes taken,
// a shared counter raised, the mutex let go.
var mutexTest = &Test{
	Name: "mutex", Desc: "Mutex performance test",
	Options: []Option{
		{"mutex-num", "N", "total size of mutex array", "4096", false},
		{"mutex-locks", "N", "number of mutex locks to do per thread", "50000", false},
		{"mutex-loops", "N", "number of empty loops to do outside mutex lock", "10000", false},
	},
	newRun: func(v Values, _ int) func(int) event {
		locks, loops := v.Int("mutex-locks"), v.Int("mutex-loops")
		mus := make([]sync.Mutex, max(1, v.Int("mutex-num")))
		var counter int64
		return func(tid int) event {
			r := rand.New(rand.NewPCG(uint64(tid), 2))
			return func() bool {
				for range locks {
					var spin int64
					for k := int64(0); k < loops; k++ {
						spin += k
					}
					mu := &mus[r.IntN(len(mus))]
					mu.Lock()
					counter += spin&1 + 1
					mu.Unlock()
				}
				return true // one event per thread, as sysbench
			}
		}
	},
}
