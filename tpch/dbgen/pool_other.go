//go:build !linux

package dbgen

// poolBuffer is the text pool's memory.
func poolBuffer(n int) []byte { return make([]byte, 0, n) }

// freePool returns a pool's memory (a benchmark making many): the GC's.
func freePool([]byte) {}
