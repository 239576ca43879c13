package dbgen

import (
	"bufio"
	"strconv"
)

// TblWriter writes rows as dbgen's flat files: values separated by '|',
// one row a line (the layout without a final separator).
type TblWriter struct {
	W     *bufio.Writer
	first bool
	Rows  int64
}

// NewTblWriter writes to w.
func NewTblWriter(w *bufio.Writer) *TblWriter { return &TblWriter{W: w, first: true} }

func (t *TblWriter) sep() {
	if !t.first {
		t.W.WriteByte('|')
	}
	t.first = false
}

func (t *TblWriter) Int(v int64) {
	t.sep()
	t.W.Write(strconv.AppendInt(nil, v, 10))
}

func (t *TblWriter) Money(c int64) {
	t.sep()
	t.W.Write(AppendMoney(nil, c))
}

func (t *TblWriter) Str(b []byte) {
	t.sep()
	t.W.Write(b)
}

func (t *TblWriter) EndRow() error {
	t.W.WriteByte('\n')
	t.first = true
	t.Rows++
	return nil
}

// AppendMoney appends cents as dollars with two places.
func AppendMoney(b []byte, c int64) []byte {
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	b = append(b, '.', byte('0'+c%100/10), byte('0'+c%10))
	return b
}
