package loader

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"unsafe"

	"github.com/oltpbench/oltpbench/internal/dataset"
	"github.com/oltpbench/oltpbench/internal/random"
	"github.com/oltpbench/oltpbench/internal/worker"
)

// insertEncoder is a RowWriter that builds multi-row INSERT statements and
// sends one whenever it reaches the byte limit.
type insertEncoder struct {
	buf    []byte
	prefix string
	limit  int
	rows   int
	total  int64 // rows written in all
	first  bool
	sent   int64
	// flush sends a full statement and returns the buffer to build the next
	// one in (q itself, or another while q is still in flight).
	flush func(q []byte) ([]byte, error)
}

func (e *insertEncoder) reset() {
	e.buf = append(e.buf[:0], e.prefix...)
	e.rows = 0
	e.first = true
}

func (e *insertEncoder) sep() {
	if e.first {
		if e.rows > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = append(e.buf, '(')
		e.first = false
		return
	}
	e.buf = append(e.buf, ',')
}

func (e *insertEncoder) Int(v int64) { e.sep(); e.buf = strconv.AppendInt(e.buf, v, 10) }

func (e *insertEncoder) Float(v float64, d int) {
	e.sep()
	e.buf = strconv.AppendFloat(e.buf, v, 'f', d, 64)
}

func (e *insertEncoder) Str(s string) {
	e.sep()
	e.buf = worker.AppendQuoted(e.buf, []byte(s))
}

func (e *insertEncoder) Bytes(b []byte) { e.sep(); e.buf = worker.AppendQuoted(e.buf, b) }

func (e *insertEncoder) Plain(b []byte) {
	e.sep()
	e.buf = append(append(append(e.buf, '\''), b...), '\'')
}

func (e *insertEncoder) Null() { e.sep(); e.buf = append(e.buf, "NULL"...) }

func (e *insertEncoder) EndRow() error {
	e.buf = append(e.buf, ')')
	e.rows++
	e.total++
	e.first = true
	if len(e.buf) >= e.limit {
		return e.send()
	}
	return nil
}

func (e *insertEncoder) send() error {
	if e.rows == 0 {
		return nil
	}
	e.sent += int64(len(e.buf))
	next, err := e.flush(e.buf)
	if err != nil {
		return err
	}
	e.buf = next
	e.reset()
	return nil
}

// errStopped ends generation when the statements stopped being executed.
var errStopped = errors.New("loader: insert stopped")

// insertRows generates rows into multi-row INSERT statements and executes
// them on tx. Two buffers alternate: the next statement is generated while
// the server executes the current one, as LOAD DATA's pipe does for local.
func insertRows(ctx context.Context, tx *sql.Tx, t *dataset.Table, r *random.Rand, first, n int64, prefix string, limit int) (loaded, error) {
	full := make(chan []byte, 1)
	empty := make(chan []byte, 1)
	stop := make(chan struct{})
	done := make(chan error, 1)
	empty <- make([]byte, 0, limit+4096)
	enc := &insertEncoder{buf: make([]byte, 0, limit+4096), prefix: prefix, limit: limit}
	enc.flush = func(q []byte) ([]byte, error) {
		select {
		case full <- q:
		case <-stop:
			return nil, errStopped
		}
		select {
		case b := <-empty:
			return b, nil
		case <-stop:
			return nil, errStopped
		}
	}
	go func() {
		enc.reset()
		err := t.Gen(r, first, n, enc)
		if err == nil {
			err = enc.send()
		}
		close(full)
		done <- err
	}()
	var execErr error
	for q := range full {
		if execErr != nil {
			continue // drain until the generator has stopped
		}
		// The driver copies the text into its packet buffer before Exec
		// returns, and q is not written again until then.
		if _, execErr = tx.ExecContext(ctx, unsafe.String(unsafe.SliceData(q), len(q))); execErr != nil {
			close(stop)
			continue
		}
		empty <- q
	}
	genErr := <-done
	if execErr != nil {
		return loaded{}, execErr
	}
	if genErr != nil {
		return loaded{}, genErr
	}
	return loaded{Rows: enc.total, Bytes: enc.sent}, nil
}
