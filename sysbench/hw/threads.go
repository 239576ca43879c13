package hw

import "sync"

// threadsTest: each event takes one of --thread-locks mutexes (the
// thread's), yields the CPU and lets it go, --thread-yields times: the
// scheduler under contention.
var threadsTest = &Test{
	Name: "threads", Desc: "Threads subsystem performance test",
	Options: []Option{
		{"thread-yields", "N", "number of yields to do per request", "1000", false},
		{"thread-locks", "N", "number of locks per thread", "8", false},
	},
	newRun: func(v Values, _ int) func(int) event {
		yields := v.Int("thread-yields")
		locks := make([]sync.Mutex, max(1, v.Int("thread-locks")))
		return func(tid int) event {
			mu := &locks[tid%len(locks)]
			return func() bool {
				for range yields {
					mu.Lock()
					yield()
					mu.Unlock()
				}
				return false
			}
		}
	},
}
