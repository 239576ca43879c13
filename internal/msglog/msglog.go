// Package msglog writes a command's output with the message log of the C
// benchmark tools a drop-in replaces: a message (Print) the same as the one
// just before is counted rather than written, and the count is said
// before the next different message or other output: "(last message
// repeated 2 times)". Other output (Write) passes through unchanged.
// Safe for concurrent use: each Print and Write is written whole.
package msglog

import (
	"fmt"
	"io"
	"sync"
)

// Log is an io.Writer with messages.
type Log struct {
	mu      sync.Mutex
	w       io.Writer
	last    string
	repeats int
}

// New writes to w.
func New(w io.Writer) *Log { return &Log{w: w} }

// Print writes msg, a whole message with its line end, unless it repeats
// the message before.
func (l *Log) Print(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if msg == l.last {
		l.repeats++
		return
	}
	l.flush()
	l.last = msg
	io.WriteString(l.w, msg)
}

// Printf is Print of a formatted message.
func (l *Log) Printf(format string, args ...any) { l.Print(fmt.Sprintf(format, args...)) }

// Write writes p as it is, after the count of a repeated message; the
// message after it is written even when it repeats the one before.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flush()
	l.last = ""
	return l.w.Write(p)
}

// Raw is a writer beside the log, as a C tool's stdout is beside its
// logger (a script's print): it writes p whole, neither saying a repeated
// message's count nor ending the repeat, so a message printed again after
// it is still counted.
func (l *Log) Raw() io.Writer { return rawWriter{l} }

type rawWriter struct{ l *Log }

func (r rawWriter) Write(p []byte) (int, error) {
	r.l.mu.Lock()
	defer r.l.mu.Unlock()
	return r.l.w.Write(p)
}

// Flush says the count of a repeated message now (at the command's end).
func (l *Log) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flush()
}

func (l *Log) flush() {
	if l.repeats > 0 {
		fmt.Fprintf(l.w, "(last message repeated %d times)\n", l.repeats)
		l.repeats = 0
	}
}

// Unwrap is the writer written to (whether it is a terminal).
func (l *Log) Unwrap() io.Writer { return l.w }
