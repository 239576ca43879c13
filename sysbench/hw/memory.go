package hw

import (
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/oltpbench/oltpbench/internal/options"
)

// memoryTest: each event reads or writes one block of --memory-block-size
// bytes, a word at a time, until --memory-total-size has been moved; the
// block is one for all threads (global) or each thread's own (local), and
// is walked in order (seq) or at a random block of the total (rnd).
var memoryTest = &Test{
	Name: "memory", Desc: "Memory functions speed test",
	Options: []Option{
		{"memory-block-size", "SIZE", "size of memory block for test", "1K", false},
		{"memory-total-size", "SIZE", "total size of data to transfer", "100G", false},
		{"memory-scope", "STRING", "memory access scope {global,local}", "global", false},
		{"memory-hugetlb", "[=on|off]", "allocate memory from HugeTLB pool", "off", false},
		{"memory-oper", "STRING", "type of memory operations {read, write, none}", "write", false},
		{"memory-access-mode", "STRING", "memory access mode {seq,rnd}", "seq", false},
	},
	Check: func(v Values) error {
		b, err := options.ParseSize(v["memory-block-size"])
		if err != nil || b < 8 || b%8 != 0 {
			return fmt.Errorf("FATAL: Invalid value for memory-block-size: %s", v["memory-block-size"])
		}
		if _, err := options.ParseSize(v["memory-total-size"]); err != nil {
			return fmt.Errorf("FATAL: Invalid value for memory-total-size: %s", v["memory-total-size"])
		}
		for opt, ok := range map[string]map[string]bool{
			"memory-scope":       {"global": true, "local": true},
			"memory-oper":        {"read": true, "write": true, "none": true},
			"memory-access-mode": {"seq": true, "rnd": true},
		} {
			if !ok[v[opt]] {
				return fmt.Errorf("FATAL: Invalid value for %s: %s", opt, v[opt])
			}
		}
		return nil
	},
	Events: func(v Values) int64 {
		b, _ := options.ParseSize(v["memory-block-size"])
		t, _ := options.ParseSize(v["memory-total-size"])
		return int64(t / b)
	},
	Preamble: func(w io.Writer, v Values) {
		b, _ := options.ParseSize(v["memory-block-size"])
		t, _ := options.ParseSize(v["memory-total-size"])
		fmt.Fprintf(w, "Running memory speed test with the following options:\n  block size: %dKiB\n  total size: %dMiB\n  operation: %s\n  scope: %s\n\n",
			b>>10, t>>20, v["memory-oper"], v["memory-scope"])
	},
	BytesPerEvent: func(v Values) float64 {
		b, _ := options.ParseSize(v["memory-block-size"])
		return float64(b)
	},
	Summary: func(w io.Writer, v Values, events int64, secs float64) {
		b, _ := options.ParseSize(v["memory-block-size"])
		mib := float64(events) * float64(b) / (1 << 20)
		fmt.Fprintf(w, "Total operations: %d (%8.2f per second)\n\n%4.2f MiB transferred (%4.2f MiB/sec)\n\n", events, float64(events)/secs, mib, mib/secs)
	},
	newRun: func(v Values, _ int) func(int) event {
		b, _ := options.ParseSize(v["memory-block-size"])
		words := int(b / 8)
		rnd := v["memory-access-mode"] == "rnd"
		blocks := 1
		if rnd { // random blocks of a buffer of up to 64 MiB
			blocks = max(1, min(64<<20/int(b), 1<<16))
		}
		global := make([]uint64, words*blocks)
		oper := v["memory-oper"]
		return func(tid int) event {
			buf := global
			if v["memory-scope"] == "local" {
				buf = make([]uint64, words*blocks)
			}
			r := rand.New(rand.NewPCG(uint64(tid), 1))
			return func() bool {
				blk := buf[:words]
				if rnd {
					i := r.IntN(blocks) * words
					blk = buf[i : i+words]
				}
				switch oper {
				case "write":
					for i := range blk {
						blk[i] = uint64(i)
					}
				case "read":
					var s uint64
					for _, x := range blk {
						s += x
					}
					sink += int64(s)
				}
				return false
			}
		}
	},
}
