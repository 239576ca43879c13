//go:build !linux

package hw

import "runtime"

// yield gives up the CPU; where sched_yield(2) is not at hand, the
// goroutine's.
func yield() { runtime.Gosched() }
