package csvgen

import "testing"

func TestEncoder(t *testing.T) {
	e := NewEncoder(64)
	e.Int(-5)
	e.Float(1.5, 2)
	e.Str("plain")
	e.Str(`a,b "c"`)
	e.Str(`back\slash`)
	e.Null()
	e.Str(`\N`)
	e.Str("")
	e.Bytes([]byte("x\ny"))
	if err := e.EndRow(); err != nil {
		t.Fatal(err)
	}
	want := "-5,1.50,plain,\"a,b \"\"c\"\"\",\"back\\\\slash\",\\N,\"\\\\N\",\"\",\"x\ny\"\n"
	if string(e.Buf) != want {
		t.Fatalf("got  %q\nwant %q", e.Buf, want)
	}
}

func TestPlainSkipsQuoting(t *testing.T) {
	e := NewEncoder(16)
	e.Plain([]byte("abc123"))
	e.Plain(nil) // empty still distinguishable from NULL
	e.EndRow()
	if string(e.Buf) != "abc123,\"\"\n" {
		t.Fatalf("got %q", e.Buf)
	}
}

// TestFirstSpecial: the word-at-a-time scan finds what a byte loop finds,
// a special byte at every place of every length.
func TestFirstSpecial(t *testing.T) {
	for n := 0; n <= 40; n++ {
		for at := -1; at < n; at++ {
			for _, c := range []byte{',', '"', '\n', '\r', '\\', 'a', 0x80, 0xff, 0} {
				b := make([]byte, n)
				for i := range b {
					b[i] = byte('a' + i%26)
				}
				if at >= 0 {
					b[at] = c
				}
				want := n
				for i := range b {
					if needsQuote(b[i]) {
						want = i
						break
					}
				}
				if got := firstSpecial(b); got != want {
					t.Fatalf("firstSpecial(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}

// BenchmarkBytes encodes comment-like values, a third with a comma.
func BenchmarkBytes(b *testing.B) {
	words := []string{"furiously", "final", "deposits", "sleep", "among", "the", "blithely", "ironic", "packages", "haggle"}
	var vals [][]byte
	for i := 0; i < 64; i++ {
		var s []byte
		for j := 0; j < 3+i%9; j++ {
			s = append(s, words[(i*7+j)%len(words)]...)
			if j == 1 && i%3 == 0 {
				s = append(s, ',')
			}
			s = append(s, ' ')
		}
		vals = append(vals, s)
	}
	e := &Encoder{}
	b.ReportAllocs()
	for b.Loop() {
		e.Buf = e.Buf[:0]
		for _, v := range vals {
			e.Bytes(v)
		}
		e.EndRow()
	}
}
