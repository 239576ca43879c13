package loader

import (
	"strconv"

	"github.com/oltpbench/oltpbench/internal/workload"
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
	flush  func(q []byte) error
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
	e.buf = workload.AppendQuoted(e.buf, []byte(s))
}

func (e *insertEncoder) Bytes(b []byte) { e.sep(); e.buf = workload.AppendQuoted(e.buf, b) }

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
	err := e.flush(e.buf)
	e.reset()
	return err
}
