package csvgen

import (
	"bytes"
	"testing"
)

// FuzzRoundTrip: any fields, written as a row, read back the same by the
// rules LOAD DATA, Lightning and IMPORT INTO apply with their defaults
// (',' separated, '"' enclosed and doubled, '\' escapes, unquoted \N is
// NULL): readRow below is those rules, written from their documentation.
func FuzzRoundTrip(f *testing.F) {
	f.Add("plain", `with "quotes", a comma`, "line\nbreak\r", `\N`, `back\slash`, false)
	f.Add("", "", "", "", "", true)
	f.Fuzz(func(t *testing.T, a, b, c, d, e string, null bool) {
		enc := NewEncoder(0)
		want := []string{a, b, c, d}
		enc.Str(a)
		enc.Bytes([]byte(b))
		enc.Str(c)
		enc.Bytes([]byte(d))
		if null {
			enc.Null()
			want = append(want, "NULL")
		} else {
			enc.Str(e)
			want = append(want, e)
		}
		if err := enc.EndRow(); err != nil {
			t.Fatal(err)
		}
		got, rest, ok := readRow(enc.Buf)
		if !ok || len(rest) != 0 {
			t.Fatalf("row %q does not read back as one row (rest %q)", enc.Buf, rest)
		}
		if len(got) != len(want) {
			t.Fatalf("row %q: %d fields, want %d: %q", enc.Buf, len(got), len(want), got)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("row %q field %d: %q, want %q", enc.Buf, i, got[i], want[i])
			}
		}
	})
}

// readRow reads one row ending in '\n'; a NULL field reads as "NULL" (no
// string field here is the four letters unquoted, see the callers).
func readRow(b []byte) (fields []string, rest []byte, ok bool) {
	for {
		var f bytes.Buffer
		null := false
		switch {
		case len(b) > 0 && b[0] == '"':
			b = b[1:]
			for open := true; open; {
				if len(b) == 0 {
					return nil, nil, false
				}
				switch {
				case b[0] == '"' && len(b) > 1 && b[1] == '"':
					f.WriteByte('"')
					b = b[2:]
				case b[0] == '"':
					b, open = b[1:], false
				case b[0] == '\\' && len(b) > 1:
					f.WriteByte(unescape(b[1]))
					b = b[2:]
				default:
					f.WriteByte(b[0])
					b = b[1:]
				}
			}
		default:
			for len(b) > 0 && b[0] != ',' && b[0] != '\n' {
				if b[0] == '\\' && len(b) > 1 {
					if b[1] == 'N' && f.Len() == 0 && (len(b) == 2 || b[2] == ',' || b[2] == '\n') {
						null = true
						b = b[2:]
						continue
					}
					f.WriteByte(unescape(b[1]))
					b = b[2:]
					continue
				}
				f.WriteByte(b[0])
				b = b[1:]
			}
		}
		if null {
			fields = append(fields, "NULL")
		} else {
			fields = append(fields, f.String())
		}
		if len(b) == 0 {
			return nil, nil, false
		}
		if b[0] == '\n' {
			return fields, b[1:], true
		}
		if b[0] != ',' {
			return nil, nil, false
		}
		b = b[1:]
	}
}

// unescape is MySQL's escape sequences in LOAD DATA (\0 \b \n \r \t \Z,
// anything else itself).
func unescape(c byte) byte {
	switch c {
	case '0':
		return 0
	case 'b':
		return '\b'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'Z':
		return 26
	}
	return c
}
