package ycsb

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/oltpbench/oltpbench/internal/hist"
	"github.com/oltpbench/oltpbench/internal/measure"
	"github.com/oltpbench/oltpbench/internal/workload"
)

// OutputGoYCSB is go-ycsb's output: the request distribution and the
// properties first, every interval each operation's figures since the
// start, then "Run finished" and the figures of the whole run.
const OutputGoYCSB = "go-ycsb"

// peerNames are go-ycsb's names of the operations.
var peerNames = map[string]string{"ycsb_read": "READ", "ycsb_update": "UPDATE", "ycsb_insert": "INSERT", "ycsb_scan": "SCAN",
	"ycsb_read_modify_write": "READ_MODIFY_WRITE"}

const stars = "**********************************************"

// peerReport writes go-ycsb's lines; sums are the interval histograms
// added up since the start.
type peerReport struct {
	w    io.Writer
	ops  []string
	sums []*hdr.Histogram

	mu    sync.Mutex
	parts []*rmwParts
}

// rmwParts are one thread's read-modify-writes' reads and updates, since
// the start: go-ycsb counts them under READ and UPDATE as well (each
// database call is measured, and TOTAL is the calls).
type rmwParts struct {
	mu           sync.Mutex
	read, update *hdr.Histogram
}

func (p *peerReport) newParts() *rmwParts {
	r := &rmwParts{read: hist.New(), update: hist.New()}
	p.mu.Lock()
	p.parts = append(p.parts, r)
	p.mu.Unlock()
	return r
}

func (r *rmwParts) record(read, update time.Duration) {
	r.mu.Lock()
	r.read.RecordValue(read.Microseconds())
	r.update.RecordValue(update.Microseconds())
	r.mu.Unlock()
}

// partSums are every thread's read-modify-write parts so far.
func (p *peerReport) partSums() (read, update *hdr.Histogram) {
	read, update = hist.New(), hist.New()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.parts {
		r.mu.Lock()
		read.Merge(r.read)
		update.Merge(r.update)
		r.mu.Unlock()
	}
	return read, update
}

// header is go-ycsb's opening: the distribution and the properties given.
func (p *peerReport) header(y *ycsb) {
	fmt.Fprintf(p.w, "Using request distribution '%s' a keyrange of [%d %d]\n", y.p.str("requestdistribution"), y.start, y.start+y.records-1)
	fmt.Fprintln(p.w, "***************** properties *****************")
	for _, k := range y.p.shown() {
		fmt.Fprintf(p.w, "%q=%q\n", k, y.p.str(k))
	}
	fmt.Fprintln(p.w, stars)
}

// interval prints the figures since the start, every operation that ran.
func (p *peerReport) interval(iv measure.Interval) {
	if p.sums == nil {
		p.sums = make([]*hdr.Histogram, len(iv.Hists))
		for i := range p.sums {
			p.sums[i] = hist.New()
		}
	}
	for i, h := range iv.Hists {
		if i < len(p.sums) {
			p.sums[i].Merge(h)
		}
	}
	p.lines(p.sums, iv.Elapsed)
}

// final prints the end of the run.
func (p *peerReport) final(f *measure.Final) {
	fmt.Fprintln(p.w, stars)
	fmt.Fprintf(p.w, "Run finished, takes %s\n", f.Elapsed)
	p.lines(f.Hists, f.Elapsed)
}

// loaded prints a load's figures as go-ycsb does, every interval since
// the start and at the end after "Run finished": INSERT, with a row a
// statement (batch 1), BATCH_INSERT with more, then TOTAL. The loader
// writes units of many rows (20,000, or the batch): a BATCH_INSERT is one
// unit and its time; an INSERT is one row, and its time its share of its
// unit's (the unit's time over its rows).
func (p *peerReport) loaded(l workload.LoadFigures, batch int64) {
	h := hist.New()
	name := "INSERT"
	if batch > 1 {
		name = "BATCH_INSERT"
	}
	for _, u := range l.Units {
		if batch > 1 {
			h.RecordValue(u.Took.Microseconds())
		} else if u.Rows > 0 {
			h.RecordValues(u.Took.Microseconds()/u.Rows, u.Rows)
		}
	}
	if l.Done {
		fmt.Fprintln(p.w, stars)
		fmt.Fprintf(p.w, "Run finished, takes %s\n", l.Took)
	}
	if h.TotalCount() == 0 {
		return
	}
	p.line(name, h, l.Took)
	p.line("TOTAL", h, l.Took)
}

// lines are one line per operation that ran and the TOTAL, by name, as
// go-ycsb counts them: READ and UPDATE with a read-modify-write's read and
// update, TOTAL the database calls (not READ_MODIFY_WRITE).
func (p *peerReport) lines(hs []*hdr.Histogram, took time.Duration) {
	type line struct {
		name string
		h    *hdr.Histogram
	}
	rmwRead, rmwUpdate := p.partSums()
	var ls []line
	total := hist.New()
	for i, h := range hs {
		if i >= len(p.ops) {
			continue
		}
		name := peerNames[p.ops[i]]
		extra := map[string]*hdr.Histogram{"READ": rmwRead, "UPDATE": rmwUpdate}[name]
		if extra != nil && extra.TotalCount() > 0 {
			m := hist.New()
			m.Merge(h)
			m.Merge(extra)
			h = m
		}
		if h.TotalCount() == 0 {
			continue
		}
		ls = append(ls, line{name, h})
		if name != "READ_MODIFY_WRITE" {
			total.Merge(h)
		}
	}
	if len(ls) == 0 {
		return
	}
	ls = append(ls, line{"TOTAL", total})
	sort.Slice(ls, func(i, j int) bool { return ls[i].name < ls[j].name })
	for _, l := range ls {
		p.line(l.name, l.h, took)
	}
}

// line is one operation's go-ycsb line.
func (p *peerReport) line(name string, h *hdr.Histogram, took time.Duration) {
	s := took.Seconds()
	fmt.Fprintf(p.w, "%-6s - Takes(s): %.1f, Count: %d, OPS: %.1f, Avg(us): %d, Min(us): %d, Max(us): %d, 50th(us): %d, 90th(us): %d, 95th(us): %d, 99th(us): %d, 99.9th(us): %d, 99.99th(us): %d\n",
		name, s, h.TotalCount(), float64(h.TotalCount())/s, int64(h.Mean()), h.Min(), h.Max(), h.ValueAtQuantile(50), h.ValueAtQuantile(90),
		h.ValueAtQuantile(95), h.ValueAtQuantile(99), h.ValueAtQuantile(99.9), h.ValueAtQuantile(99.99))
}

// shown are the properties go-ycsb prints: those the files and -p gave,
// and the command's own.
func (p *props) shown() []string {
	var out []string
	for k := range p.given {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
