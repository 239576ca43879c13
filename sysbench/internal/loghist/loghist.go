// Package loghist is sysbench's histogram: a fixed number of buckets spaced
// logarithmically between a low and a high value, printed as sysbench
// prints its latency histogram (--histogram) and sysbench.histogram's
// print().
package loghist

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Histogram counts values in size buckets from lo to hi; values outside
// fall in the first or last bucket.
type Histogram struct {
	deduct, mult float64
	counts       []int64
}

// New returns an empty histogram; size is at least 2, 0 < lo < hi.
func New(size int, lo, hi float64) *Histogram {
	deduct := math.Log(lo)
	return &Histogram{deduct: deduct, mult: float64(size-1) / (math.Log(hi) - deduct), counts: make([]int64, size)}
}

// Add counts n values v, in the bucket whose value is nearest on the
// logarithmic scale.
func (h *Histogram) Add(v float64, n int64) {
	i := 0
	if v > 0 {
		i = int(math.Floor((math.Log(v)-h.deduct)*h.mult + 0.5))
	}
	h.counts[min(max(i, 0), len(h.counts)-1)] += n
}

// Print writes the header line and one line per non-empty bucket: its
// value, a bar of up to 40 stars scaled to the fullest bucket (rounded), its
// count.
func (h *Histogram) Print(w io.Writer) {
	var top int64
	for _, c := range h.counts {
		top = max(top, c)
	}
	fmt.Fprintf(w, "       value  ------------- distribution ------------- count\n")
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		stars := int(math.Round(float64(c) / float64(top) * 40))
		fmt.Fprintf(w, "%12.3f |%-40s %d\n", math.Exp(float64(i)/h.mult+h.deduct), strings.Repeat("*", stars), c)
	}
}
