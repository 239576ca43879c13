package loghist

import (
	"strings"
	"testing"
)

// Values go to the nearest bucket on the log scale (0.2 to 0.201, not
// 0.198), out-of-range ones to the ends; bars are rounded to the fullest.
func TestPrint(t *testing.T) {
	h := New(1000, 0.001, 100)
	h.Add(0.2, 1)
	h.Add(0.2005, 1)
	h.Add(5, 31)
	h.Add(0, 1)
	h.Add(1e9, 2)
	var b strings.Builder
	h.Print(&b)
	want := `       value  ------------- distribution ------------- count
       0.001 |*                                        1
       0.201 |***                                      2
       4.997 |**************************************** 31
     100.000 |***                                      2
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
