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
			b.WriteString(strconv.Quote(L.CheckString(arg)))
		case 's':
			fmt.Fprintf(&b, "%"+spec+"s", L.ToStringMeta(L.CheckAny(arg)).String())
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", conv)
		}
		arg++
	}
	L.Push(lua.LString(b.String()))
	return 1
}
