package random

import (
	"math"
	"testing"
)

func TestRandDeterministic(t *testing.T) {
	a, b := NewRand(1, 2, 3), NewRand(1, 2, 3)
	c := NewRand(1, 2, 4)
	same := 0
	for i := 0; i < 1000; i++ {
		x, y, z := a.Uint64(), b.Uint64(), c.Uint64()
		if x != y {
			t.Fatalf("same keys gave different values at %d", i)
		}
		if x == z {
			same++
		}
	}
	if same > 0 {
		t.Fatalf("different keys gave %d equal values", same)
	}
}

func TestUniformBounds(t *testing.T) {
	r := NewRand(7)
	seen := map[int64]int{}
	for i := 0; i < 100000; i++ {
		v := r.Uniform(3, 7)
		if v < 3 || v > 7 {
			t.Fatalf("Uniform(3,7) = %d", v)
		}
		seen[v]++
	}
	for v := int64(3); v <= 7; v++ {
		if seen[v] < 19000 || seen[v] > 21000 {
			t.Errorf("value %d drawn %d times of 100000, want about 20000", v, seen[v])
		}
	}
}

func mustDist(t *testing.T, name string) *Dist {
	t.Helper()
	d, err := NewDist(name, 12, 1, 75, 0.2, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The shapes of sysbench's distributions, checked on their defining traits.
func TestDistributions(t *testing.T) {
	const n, lo, hi = 200000, 1, 1000000
	draw := func(name string) []int64 {
		r := NewRand(42)
		r.SetDist(mustDist(t, name))
		out := make([]int64, n)
		for i := range out {
			v := r.Default(lo, hi)
			if v < lo || v > hi {
				t.Fatalf("%s: %d out of [%d, %d]", name, v, lo, hi)
			}
			out[i] = v
		}
		return out
	}
	frac := func(vs []int64, f func(int64) bool) float64 {
		c := 0
		for _, v := range vs {
			if f(v) {
				c++
			}
		}
		return float64(c) / float64(len(vs))
	}
	// special: 75% of values in the central 1% of the range.
	sp := draw("special")
	centre := frac(sp, func(v int64) bool { return v >= 495000 && v <= 505001 })
	if centre < 0.74 || centre > 0.78 {
		t.Errorf("special: %.3f of values in the central 1%%, want about 0.75 (+ the gaussian's share)", centre)
	}
	// gaussian: mean in the middle, little in the outer tenths.
	ga := draw("gaussian")
	if f := frac(ga, func(v int64) bool { return v < 100000 || v > 900000 }); f > 0.001 {
		t.Errorf("gaussian: %.4f in the outer tenths, want about 0", f)
	}
	// uniform: a tenth in every tenth.
	un := draw("uniform")
	if f := frac(un, func(v int64) bool { return v <= 100000 }); math.Abs(f-0.1) > 0.005 {
		t.Errorf("uniform: %.4f in the first tenth", f)
	}
	// pareto with h=0.2: 80% of values in the first 20%.
	pa := draw("pareto")
	if f := frac(pa, func(v int64) bool { return v <= 200000 }); math.Abs(f-0.8) > 0.01 {
		t.Errorf("pareto: %.4f in the first 20%%, want 0.8", f)
	}
	// zipfian: 1 is the most frequent value, far above uniform's share.
	zi := draw("zipfian")
	if f := frac(zi, func(v int64) bool { return v == 1 }); f < 0.01 {
		t.Errorf("zipfian: value 1 drawn %.4f of the time, want well above uniform", f)
	}
}

func TestZipfianExponentZeroIsUniform(t *testing.T) {
	d, err := NewDist("zipfian", 12, 1, 75, 0.2, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRand(3)
	r.SetDist(d)
	c := 0
	for i := 0; i < 100000; i++ {
		if r.Default(1, 10) <= 5 {
			c++
		}
	}
	if c < 48000 || c > 52000 {
		t.Errorf("zipfian exp 0: %d of 100000 in the lower half, want about 50000", c)
	}
}

func TestNewDistRejects(t *testing.T) {
	for _, c := range []struct {
		name            string
		iter            int
		pct, res, h, ze float64
	}{
		{"bogus", 12, 1, 75, 0.2, 0.8},
		{"special", 0, 1, 75, 0.2, 0.8},
		{"special", 12, 1, 100, 0.2, 0.8},
		{"pareto", 12, 1, 75, 1, 0.8},
		{"zipfian", 12, 1, 75, 0.2, -1},
	} {
		if _, err := NewDist(c.name, c.iter, c.pct, c.res, c.h, c.ze); err == nil {
			t.Errorf("NewDist(%+v) accepted", c)
		}
	}
}

func TestDigits(t *testing.T) {
	r := NewRand(1)
	tmpl := "###-@@@-x#"
	buf := make([]byte, len(tmpl))
	r.Digits(buf, tmpl)
	for i, c := range tmpl {
		got := buf[i]
		switch c {
		case '#':
			if got < '0' || got > '9' {
				t.Fatalf("position %d: %q is not a digit", i, got)
			}
		case '@':
			if got < 'a' || got > 'z' {
				t.Fatalf("position %d: %q is not a letter", i, got)
			}
		default:
			if got != byte(c) {
				t.Fatalf("position %d: %q, want %q", i, got, c)
			}
		}
	}
}

// digitsOneByOne is the plain definition Digits must match byte for byte,
// so that datasets stay the same for a seed.
func digitsOneByOne(r *Rand, buf []byte, template string) {
	var word uint64
	left := 0
	for i := 0; i < len(template); i++ {
		switch template[i] {
		case '#':
			if left == 0 {
				word, left = r.Uint64(), 19
			}
			buf[i] = '0' + byte(word%10)
			word /= 10
			left--
		case '@':
			buf[i] = 'a' + byte(r.Uniform(0, 25))
		default:
			buf[i] = template[i]
		}
	}
}

func TestDigitsMatchesOneByOne(t *testing.T) {
	templates := []string{
		"###########-###########-###########-###########-###########-###########-###########-###########-###########-###########",
		"###########-###########-###########-###########-###########",
		"#", "##", "###################", "####################", "#-#@##@###@####",
		"@@,\"#\\@@##@", "abc",
	}
	for _, tmpl := range templates {
		a, b := NewRand(7, 3), NewRand(7, 3)
		for n := 0; n < 200; n++ {
			got, want := make([]byte, len(tmpl)), make([]byte, len(tmpl))
			a.Digits(got, tmpl)
			digitsOneByOne(b, want, tmpl)
			if string(got) != string(want) {
				t.Fatalf("template %q draw %d: %q, want %q", tmpl, n, got, want)
			}
		}
	}
}

func TestUniqueSeqNoRepeats(t *testing.T) {
	u := NewUniqueSeq(12345)
	seen := make(map[uint32]bool, 1<<20)
	for i := uint32(0); i < 1<<20; i++ {
		v := u.At(i)
		if seen[v] {
			t.Fatalf("value %d repeated at draw %d", v, i)
		}
		seen[v] = true
	}
}

func BenchmarkDigitsRow(b *testing.B) {
	r := NewRand(1)
	c := make([]byte, 119)
	tmpl := "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########"
	for i := 0; i < b.N; i++ {
		r.Digits(c, tmpl)
	}
}
