// Package csvgen encodes generated rows as CSV that TiDB Lightning, IMPORT
// INTO and LOAD DATA all read with their defaults: ',' separated, '"'
// enclosed where needed (RFC 4180), backslash escapes, \N for NULL.
package csvgen

import "strconv"

// Encoder is a workload.RowWriter that appends CSV to Buf.
type Encoder struct {
	Buf []byte
	// OnRow, if set, is called after each row (e.g. to flush by size).
	OnRow func(e *Encoder) error
	first bool
	Rows  int64
}

// NewEncoder returns an encoder with a buffer of the given capacity.
func NewEncoder(capacity int) *Encoder { return &Encoder{Buf: make([]byte, 0, capacity), first: true} }

func (e *Encoder) sep() {
	if !e.first {
		e.Buf = append(e.Buf, ',')
	}
	e.first = false
}

// Int writes an integer field.
func (e *Encoder) Int(v int64) {
	e.sep()
	e.Buf = strconv.AppendInt(e.Buf, v, 10)
}

// Float writes a decimal field with a fixed number of decimals.
func (e *Encoder) Float(v float64, decimals int) {
	e.sep()
	e.Buf = strconv.AppendFloat(e.Buf, v, 'f', decimals, 64)
}

// Str writes a string field.
func (e *Encoder) Str(s string) {
	e.sep()
	e.quote(s)
}

// Bytes writes a string field held in b.
func (e *Encoder) Bytes(b []byte) {
	e.sep()
	e.quoteBytes(b)
}

// Plain writes a field known to need no quoting.
func (e *Encoder) Plain(b []byte) {
	if len(b) == 0 {
		e.Bytes(b)
		return
	}
	e.sep()
	e.Buf = append(e.Buf, b...)
}

// Null writes \N, the NULL marker of LOAD DATA, Lightning and IMPORT INTO.
func (e *Encoder) Null() {
	e.sep()
	e.Buf = append(e.Buf, '\\', 'N')
}

// EndRow ends the line.
func (e *Encoder) EndRow() error {
	e.Buf = append(e.Buf, '\n')
	e.first = true
	e.Rows++
	if e.OnRow != nil {
		return e.OnRow(e)
	}
	return nil
}

// special marks the bytes that make a field enclosed: separators, quotes,
// line breaks and backslashes (doubled, since all three readers treat it as
// an escape).
var special = [256]bool{',': true, '"': true, '\n': true, '\r': true, '\\': true}

func needsQuote(c byte) bool { return special[c] }

func (e *Encoder) quote(s string) {
	plain := s != "" && s != `\N`
	for i := 0; i < len(s) && plain; i++ {
		plain = !needsQuote(s[i])
	}
	if plain {
		e.Buf = append(e.Buf, s...)
		return
	}
	e.Buf = append(e.Buf, '"')
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			e.Buf = append(e.Buf, '"', '"')
		case '\\':
			e.Buf = append(e.Buf, '\\', '\\')
		default:
			e.Buf = append(e.Buf, s[i])
		}
	}
	e.Buf = append(e.Buf, '"')
}

func (e *Encoder) quoteBytes(b []byte) {
	i := firstSpecial(b)
	if i == len(b) && len(b) > 0 && !(len(b) == 2 && b[0] == '\\' && b[1] == 'N') {
		e.Buf = append(e.Buf, b...)
		return
	}
	// Quoted: what comes before the first special byte as it is, the
	// rest with quotes doubled and backslashes escaped.
	e.Buf = append(append(e.Buf, '"'), b[:i]...)
	for _, c := range b[i:] {
		switch c {
		case '"':
			e.Buf = append(e.Buf, '"', '"')
		case '\\':
			e.Buf = append(e.Buf, '\\', '\\')
		default:
			e.Buf = append(e.Buf, c)
		}
	}
	e.Buf = append(e.Buf, '"')
}

// firstSpecial is the index of b's first byte that needsQuote, or len(b).
// (Eight bytes at a time made no difference to writing TPC-H's CSV: the
// time is in fetching the comments, not in scanning them.)
func firstSpecial(b []byte) int {
	for i, c := range b {
		if needsQuote(c) {
			return i
		}
	}
	return len(b)
}

// LoadDataClause is the FIELDS/LINES clause that reads what Encoder writes.
const LoadDataClause = `FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' ESCAPED BY '\\' LINES TERMINATED BY '\n'`
