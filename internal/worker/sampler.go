package worker

import (
	"database/sql/driver"
	"sync"
)

// Sampler keeps the first execution of each distinct statement of one
// thread: its text and the arguments first drawn for it, so that its plan
// can be read (EXPLAIN) outside the run. Only the sampled thread's session
// pays for it, once per statement.
type Sampler struct {
	mu      sync.Mutex
	seen    map[string]bool
	samples []Sample
}

// Sample is a statement as first executed.
type Sample struct {
	Query string
	Args  []driver.Value // copies
}

// NewSampler makes an empty sampler.
func NewSampler() *Sampler { return &Sampler{seen: map[string]bool{}} }

// Samples are the statements kept, in the order first executed.
func (s *Sampler) Samples() []Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sample(nil), s.samples...)
}

// first keeps st's execution when its text is new.
func (s *Sampler) first(query string, args []driver.Value) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[query] {
		return
	}
	s.seen[query] = true
	cp := make([]driver.Value, len(args))
	for i, a := range args {
		if b, ok := a.([]byte); ok {
			a = append([]byte(nil), b...)
		}
		cp[i] = a
	}
	s.samples = append(s.samples, Sample{Query: query, Args: cp})
}

// sample gives the statement's execution to the session's sampler, once.
func (st *Stmt) sample() {
	if st.s.sampler != nil && !st.sampled {
		st.sampled = true
		st.s.sampler.first(st.query, st.args)
	}
}
