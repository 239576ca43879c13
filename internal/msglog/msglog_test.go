package msglog

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestLog(t *testing.T) {
	for _, c := range []struct {
		name string
		do   func(l *Log)
		want string
	}{
		{"distinct", func(l *Log) { l.Print("a\n"); l.Print("b\n") }, "a\nb\n"},
		{"repeated", func(l *Log) { l.Print("a\n"); l.Print("a\n"); l.Print("a\n"); l.Print("b\n") },
			"a\n(last message repeated 2 times)\nb\n"},
		{"said before other output", func(l *Log) { l.Print("a\n"); l.Print("a\n"); fmt.Fprint(l, "report\n") },
			"a\n(last message repeated 1 times)\nreport\n"},
		{"output ends a repeat", func(l *Log) { l.Print("a\n"); fmt.Fprint(l, "x\n"); l.Print("a\n") }, "a\nx\na\n"},
		// A script's print is beside the log, as sysbench's stdout is beside
		// its logger: the FATAL lines around it are one repeat.
		{"raw output keeps a repeat", func(l *Log) {
			l.Print("a\n")
			fmt.Fprint(l.Raw(), "x\n")
			l.Print("a\n")
			fmt.Fprint(l.Raw(), "x\n")
			l.Print("b\n")
		},
			"a\nx\nx\n(last message repeated 1 times)\nb\n"},
		{"flushed at the end", func(l *Log) { l.Printf("%s\n", "a"); l.Print("a\n"); l.Flush(); l.Flush() },
			"a\n(last message repeated 1 times)\n"},
	} {
		var b strings.Builder
		c.do(New(&b))
		if b.String() != c.want {
			t.Errorf("%s: %q, want %q", c.name, b.String(), c.want)
		}
	}
}

// TestLogConcurrent: messages from many goroutines are written whole and
// counted once each (go test -race).
func TestLogConcurrent(t *testing.T) {
	var b strings.Builder
	l := New(&b)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				l.Print("same\n")
			}
		}()
	}
	wg.Wait()
	l.Flush()
	if want := "same\n(last message repeated 799 times)\n"; b.String() != want {
		t.Errorf("%q, want %q", b.String(), want)
	}
}
