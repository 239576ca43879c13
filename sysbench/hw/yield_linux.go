package hw

import "syscall"

// yield gives up the CPU as sched_yield(2) does, as sysbench's threads test
// does: the thread, not only the goroutine.
func yield() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
