package dbgen

import "golang.org/x/sys/unix"

// poolBuffer is the text pool's memory, and how to give it back (a
// benchmark making many pools): on Linux, anonymous memory the kernel is
// asked to back with huge pages (MADV_HUGEPAGE; "madvise" is the usual
// transparent huge page setting), since comments are read at random places
// of its 300 MiB and 4 KiB pages cost a TLB miss at nearly each one; out of
// the GC's heap, it does not let the heap grow to twice it. Ordinary memory
// where that fails.
func poolBuffer(n int) ([]byte, func()) {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return make([]byte, 0, n), func() {}
	}
	unix.Madvise(b, unix.MADV_HUGEPAGE) // advice: ignored where huge pages are off
	// The pages are faulted in on the other core while the pool is made: a
	// huge page's fault zeroes 2 MiB, and may first compact memory (up to a
	// second of system time after gigabytes of files went through the page
	// cache). Kernels before 5.14 refuse the advice; the pool's own writes
	// fault the pages in then.
	populated := make(chan struct{})
	go func() {
		unix.Madvise(b, unix.MADV_POPULATE_WRITE)
		close(populated)
	}()
	return b[:0], func() { <-populated; unix.Munmap(b) }
}
