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
