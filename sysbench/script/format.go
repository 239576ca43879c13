package script

import (
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// strFormat is Lua 5.1's string.format (%d %i %u %c %o %x %X %e %E %f %g %G
// %q %s %%, with flags, width and precision), which scripts use with %u and
// %d on numbers: gopher-lua's own passes the format to Go's fmt.
func strFormat(L *lua.LState) int {
	f := L.CheckString(1)
	var b strings.Builder
	arg := 2
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(f) {
			L.RaiseError("invalid option '%%' to 'format'")
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		j := i
		for j < len(f) && strings.IndexByte("-+ #0", f[j]) >= 0 {
			j++
		}
		for j < len(f) && (f[j] >= '0' && f[j] <= '9' || f[j] == '.') {
			j++
		}
		if j >= len(f) {
			L.RaiseError("invalid option to 'format'")
		}
		spec, conv := f[i:j], f[j]
		i = j
		if arg > L.GetTop() {
			L.ArgError(arg, "value expected")
		}
		switch conv {
		case 'd', 'i', 'u':
			fmt.Fprintf(&b, "%"+spec+"d", int64(L.CheckNumber(arg)))
		case 'c':
			b.WriteByte(byte(L.CheckInt(arg)))
		case 'o', 'x', 'X':
			fmt.Fprintf(&b, "%"+spec+string(conv), int64(L.CheckNumber(arg)))
		case 'e', 'E', 'f', 'g', 'G':
			fmt.Fprintf(&b, "%"+spec+string(conv), float64(L.CheckNumber(arg)))
		case 'q':
			quote(&b, L.CheckString(arg))
		case 's':
			fmt.Fprintf(&b, "%"+spec+"s", toString(L, L.CheckAny(arg)))
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", conv)
		}
		arg++
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// quote is %q as LuaJIT writes it: the string in double quotes, with '"',
// '\\' and a line end escaped by a backslash, and the other control
// characters as a backslash and their decimal code (three digits before a
// digit); bytes from 128 as they are.
func quote(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 32 || c == 127:
			b.WriteByte('\\')
			if i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				fmt.Fprintf(b, "%03d", c)
			} else {
				b.WriteString(strconv.Itoa(int(c)))
			}
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}
