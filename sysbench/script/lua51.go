package script

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// Lua 5.1 as LuaJIT (sysbench's Lua) runs it, where gopher-lua differs on
// what scripts rely on. Two kinds of fix: the chunk is rewritten once as it
// is compiled (a numeric for converts numeric strings, as 5.1's does; an
// operand of .. is converted as 5.1 converts it, and a value that cannot be
// is named as LuaJIT names it), and the library functions whose 5.1 forms
// convert numeric strings, or print numbers with "%.14g", are replaced
// (tonumber, tostring, the string and table functions that take numbers).

// prelude51 defines the helpers the rewrite calls, as locals of each chunk
// (in no table a script can see), from the functions as they are when the
// chunk starts. Their errors are at level 3: gopher-lua counts one level
// more than Lua, and the position is the line that called them. Its statements are put before the chunk's own: all on its
// first line, so the chunk's lines keep their numbers.
//
// __sb_str, on every operand of .. that is not a constant, is Go (concatStr)
// for its cost, one call: it is kept in the strings' metatable, which no
// script lists, and taken from there as each chunk starts.
const prelude51 = `local __sb_type, __sb_tonumber, __sb_error = type, tonumber, error ` +
	`local __sb_str = getmetatable("").__sb_str ` +
	`local function __sb_fornum(v, what) if __sb_type(v) == "number" then return v end ` +
	`local n = __sb_type(v) == "string" and __sb_tonumber(v) ` +
	`if n then return n end __sb_error("'for' " .. what .. " must be a number", 3) end`

var prelude51Stmts = func() []ast.Stmt {
	stmts, err := parse.Parse(strings.NewReader(prelude51), "prelude")
	if err != nil {
		panic("script: the Lua 5.1 prelude does not parse: " + err.Error())
	}
	return stmts
}()

// rewrite51 rewrites a parsed chunk as above and puts the prelude first.
func rewrite51(chunk []ast.Stmt) []ast.Stmt {
	r := &rewriter{}
	r.push(true)
	r.block(chunk)
	return append(append([]ast.Stmt{}, prelude51Stmts...), chunk...)
}

// rewriter walks a chunk knowing which names are locals of which function.
type rewriter struct {
	scopes []scope
}

type scope struct {
	names map[string]bool
	fn    bool // a function's outermost block
}

func (r *rewriter) push(fn bool) {
	r.scopes = append(r.scopes, scope{names: map[string]bool{}, fn: fn})
}
func (r *rewriter) pop() { r.scopes = r.scopes[:len(r.scopes)-1] }
func (r *rewriter) declare(names ...string) {
	for _, n := range names {
		r.scopes[len(r.scopes)-1].names[n] = true
	}
}

// describe is the name LuaJIT gives e in an error: "local 'x'", "upvalue
// 'x'", "global 'x'", "field 'k'"; "" for what it gives none.
func (r *rewriter) describe(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.IdentExpr:
		crossed := false
		for i := len(r.scopes) - 1; i >= 0; i-- {
			if r.scopes[i].names[e.Value] {
				if crossed {
					return "upvalue '" + e.Value + "'"
				}
				return "local '" + e.Value + "'"
			}
			crossed = crossed || r.scopes[i].fn
		}
		return "global '" + e.Value + "'"
	case *ast.AttrGetExpr:
		if k, ok := e.Key.(*ast.StringExpr); ok {
			return "field '" + k.Value + "'"
		}
	}
	return ""
}

func (r *rewriter) block(stmts []ast.Stmt) {
	for _, s := range stmts {
		r.stmt(s)
	}
}

func (r *rewriter) scoped(stmts []ast.Stmt, names ...string) {
	r.push(false)
	r.declare(names...)
	r.block(stmts)
	r.pop()
}

func (r *rewriter) exprs(es []ast.Expr) {
	for i := range es {
		es[i] = r.expr(es[i])
	}
}

func (r *rewriter) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		r.exprs(s.Lhs)
		r.exprs(s.Rhs)
	case *ast.LocalAssignStmt:
		if len(s.Names) == 1 && len(s.Exprs) == 1 {
			if _, ok := s.Exprs[0].(*ast.FunctionExpr); ok { // "local function f": f is its own upvalue
				r.declare(s.Names...)
			}
		}
		r.exprs(s.Exprs)
		r.declare(s.Names...)
	case *ast.FuncCallStmt:
		s.Expr = r.expr(s.Expr)
	case *ast.DoBlockStmt:
		r.scoped(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = r.expr(s.Condition)
		r.scoped(s.Stmts)
	case *ast.RepeatStmt:
		r.push(false)
		r.block(s.Stmts)
		s.Condition = r.expr(s.Condition)
		r.pop()
	case *ast.IfStmt:
		s.Condition = r.expr(s.Condition)
		r.scoped(s.Then)
		r.scoped(s.Else)
	case *ast.NumberForStmt:
		s.Init = r.forNum(r.expr(s.Init), "initial value", s.Line())
		s.Limit = r.forNum(r.expr(s.Limit), "limit", s.Line())
		if s.Step != nil {
			s.Step = r.forNum(r.expr(s.Step), "step", s.Line())
		}
		r.scoped(s.Stmts, s.Name)
	case *ast.GenericForStmt:
		r.exprs(s.Exprs)
		r.scoped(s.Stmts, s.Names...)
	case *ast.FuncDefStmt:
		if s.Name.Func != nil {
			s.Name.Func = r.expr(s.Name.Func)
		}
		if s.Name.Receiver != nil {
			s.Name.Receiver = r.expr(s.Name.Receiver)
		}
		r.function(s.Func)
	case *ast.ReturnStmt:
		r.exprs(s.Exprs)
	}
}

func (r *rewriter) function(f *ast.FunctionExpr) {
	r.push(true)
	if f.ParList != nil {
		r.declare(f.ParList.Names...)
	}
	r.block(f.Stmts)
	r.pop()
}

func (r *rewriter) expr(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.AttrGetExpr:
		e.Object, e.Key = r.expr(e.Object), r.expr(e.Key)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			if f.Key != nil {
				f.Key = r.expr(f.Key)
			}
			f.Value = r.expr(f.Value)
		}
	case *ast.FuncCallExpr:
		if e.Func != nil {
			e.Func = r.expr(e.Func)
		}
		if e.Receiver != nil {
			e.Receiver = r.expr(e.Receiver)
		}
		r.exprs(e.Args)
	case *ast.LogicalOpExpr:
		e.Lhs, e.Rhs = r.expr(e.Lhs), r.expr(e.Rhs)
	case *ast.RelationalOpExpr:
		e.Lhs, e.Rhs = r.expr(e.Lhs), r.expr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		e.Lhs, e.Rhs = r.expr(e.Lhs), r.expr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		e.Expr = r.expr(e.Expr)
	case *ast.UnaryNotOpExpr:
		e.Expr = r.expr(e.Expr)
	case *ast.UnaryLenOpExpr:
		e.Expr = r.expr(e.Expr)
	case *ast.FunctionExpr:
		r.function(e)
	case *ast.StringConcatOpExpr:
		e.Lhs, e.Rhs = r.concatOperand(e.Lhs), r.concatOperand(e.Rhs)
	}
	return e
}

// concatOperand is an operand of .. as Lua 5.1 converts it: a string
// constant as it is, a number constant as its text, a chain of .. (a
// string) as rewritten, anything else through __sb_str.
func (r *rewriter) concatOperand(e ast.Expr) ast.Expr {
	switch c := e.(type) {
	case *ast.StringExpr, *ast.StringConcatOpExpr:
		return r.expr(e)
	case *ast.NumberExpr:
		if f, err := parseNumber(c.Value); err == nil {
			s := &ast.StringExpr{Value: numberString(f)}
			s.SetLine(c.Line())
			s.SetLastLine(c.LastLine())
			return s
		}
	}
	name := r.describe(e)
	e = r.expr(e)
	args := []ast.Expr{e}
	if name != "" {
		args = append(args, &ast.StringExpr{Value: name})
	}
	return r.call("__sb_str", e.Line(), args...)
}

// forNum is a numeric for's bound through __sb_fornum, unless a number.
func (r *rewriter) forNum(e ast.Expr, what string, line int) ast.Expr {
	if _, ok := e.(*ast.NumberExpr); ok {
		return e
	}
	if u, ok := e.(*ast.UnaryMinusOpExpr); ok {
		if _, ok := u.Expr.(*ast.NumberExpr); ok {
			return e
		}
	}
	return r.call("__sb_fornum", line, e, &ast.StringExpr{Value: what})
}

func (r *rewriter) call(fn string, line int, args ...ast.Expr) ast.Expr {
	f := &ast.IdentExpr{Value: fn}
	f.SetLine(line)
	f.SetLastLine(line)
	c := &ast.FuncCallExpr{Func: f, Args: args, AdjustRet: true}
	c.SetLine(line)
	c.SetLastLine(line)
	return c
}

// numberString is a number as LuaJIT writes it (tostring, .., print):
// "%.14g", with inf, -inf, nan and -0 spelled as C's printf spells them.
func numberString(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == 0 && math.Signbit(f):
		return "-0"
	case f == math.Trunc(f) && math.Abs(f) < 1e14:
		return strconv.FormatInt(int64(f), 10)
	}
	return formatG14(f)
}

// formatG14 is "%.14g" with LuaJIT's rounding: its formatter rounds the
// exact value half away from zero (123456789012345 is 1.2345678901235e+14),
// where Go's and C's round a tie to even.
func formatG14(f float64) string {
	neg := f < 0
	e := strconv.FormatFloat(math.Abs(f), 'e', 40, 64) // d.ddd...e±XX, exact enough to see a tie
	mant, exp, _ := strings.Cut(e, "e")
	x, _ := strconv.Atoi(exp)
	digits := []byte(strings.Replace(mant, ".", "", 1))
	up := digits[14] >= '5'
	digits = digits[:14]
	if up {
		i := 13
		for ; i >= 0 && digits[i] == '9'; i-- {
			digits[i] = '0'
		}
		if i < 0 {
			digits = append([]byte{'1'}, digits[:13]...)
			x++
		} else {
			digits[i]++
		}
	}
	var out string
	if x < -4 || x >= 14 {
		m := strings.TrimRight(string(digits[1:]), "0")
		out = string(digits[0])
		if m != "" {
			out += "." + m
		}
		sign := "+"
		if x < 0 {
			sign, x = "-", -x
		}
		out += "e" + sign + fmt.Sprintf("%02d", x)
	} else if x >= 0 {
		out = string(digits[:x+1])
		if frac := strings.TrimRight(string(digits[x+1:]), "0"); frac != "" {
			out += "." + frac
		}
	} else {
		out = "0." + strings.Repeat("0", -x-1) + strings.TrimRight(string(digits), "0")
	}
	if neg {
		out = "-" + out
	}
	return out
}

// toString is tostring(v): numbers as numberString, the rest as gopher-lua
// writes them (__tostring honoured).
func toString(L *lua.LState, v lua.LValue) string {
	if n, ok := v.(lua.LNumber); ok {
		return numberString(float64(n))
	}
	return L.ToStringMeta(v).String()
}

// parseNumber reads a number as LuaJIT's tonumber does without a base:
// spaces around it, decimal with an exponent, hex ("0x10", "-0x10",
// "0x.8", "0x1p4"), inf, infinity and nan in any case.
func parseNumber(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" || strings.ContainsAny(t, "_") {
		return 0, strconv.ErrSyntax
	}
	neg := false
	body := t
	if body[0] == '-' || body[0] == '+' {
		neg, body = body[0] == '-', body[1:]
	}
	var f float64
	switch lower := strings.ToLower(body); {
	case lower == "inf" || lower == "infinity":
		f = math.Inf(1)
	case lower == "nan":
		f = math.NaN()
	case strings.HasPrefix(lower, "0x"):
		h := lower[2:]
		if h == "" || h == "." {
			return 0, strconv.ErrSyntax
		}
		if !strings.Contains(h, "p") {
			h += "p0"
		}
		v, err := strconv.ParseFloat("0x"+h, 64)
		if err != nil {
			return 0, err
		}
		f = v
	default:
		if lower == "" || strings.ContainsAny(lower, "xpin") || lower[0] == '.' && len(lower) == 1 {
			return 0, strconv.ErrSyntax
		}
		v, err := strconv.ParseFloat(body, 64)
		if err != nil && !isRange(err) {
			return 0, err
		}
		f = v
	}
	if neg {
		f = -f
	}
	return f, nil
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// baseToNumber is LuaJIT's tonumber(v [, base]).
func baseToNumber(L *lua.LState) int {
	if L.GetTop() == 0 {
		L.ArgError(1, "value expected")
	}
	v := L.Get(1)
	if L.GetTop() < 2 || L.Get(2) == lua.LNil || L.Get(2) == lua.LNumber(10) { // base 10 is LuaJIT's own parse
		switch v := v.(type) {
		case lua.LNumber:
			L.Push(v)
		case lua.LString:
			if f, err := parseNumber(string(v)); err == nil {
				L.Push(lua.LNumber(f))
			} else {
				L.Push(lua.LNil)
			}
		default:
			L.Push(lua.LNil)
		}
		return 1
	}
	base := int(L.CheckNumber(2))
	if base < 2 || base > 36 {
		L.ArgError(2, "base out of range")
	}
	s := strings.TrimLeft(L.CheckString(1), " \t\n\r\f\v") // C's strtoul, as LuaJIT calls it
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	if base == 16 && len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	end := 0
	for end < len(s) && digit(s[end]) < base {
		end++
	}
	if end == 0 || strings.TrimRight(s[end:], " \t\n\r\f\v") != "" {
		L.Push(lua.LNil)
		return 1
	}
	u, err := strconv.ParseUint(s[:end], base, 64)
	if err != nil {
		u = math.MaxUint64 // strtoul saturates
	}
	if neg {
		u = -u
	}
	L.Push(lua.LNumber(float64(u)))
	return 1
}

func digit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

// numericArgs wraps f so that its arguments at the positions given (all
// from the first given, with all) that are numeric strings are numbers, as
// 5.1's luaL_checkint converts them.
func numericArgs(f lua.LGFunction, all bool, positions ...int) lua.LGFunction {
	return func(L *lua.LState) int {
		convert := func(i int) {
			if s, ok := L.Get(i).(lua.LString); ok {
				if n, err := parseNumber(string(s)); err == nil {
					L.Replace(i, lua.LNumber(n))
				}
			}
		}
		for _, i := range positions {
			if i <= L.GetTop() {
				convert(i)
			}
		}
		if all {
			for i := positions[len(positions)-1] + 1; i <= L.GetTop(); i++ {
				convert(i)
			}
		}
		return f(L)
	}
}

// concatStr is __sb_str(v [, name]): v as an operand of .. in Lua 5.1 (a
// string as it is, a number as numberString, a value with __concat left to
// it), or LuaJIT's error naming it ("attempt to concatenate local 'x' (a
// boolean value)") at the line of the ..
func concatStr(L *lua.LState) int {
	switch v := L.Get(1).(type) {
	case lua.LString:
		L.Push(v)
		return 1
	case lua.LNumber:
		L.Push(lua.LString(numberString(float64(v))))
		return 1
	case *lua.LTable, *lua.LUserData:
		if L.GetMetaField(v, "__concat") != lua.LNil {
			L.Push(v)
			return 1
		}
	}
	t := L.Get(1).Type().String()
	if name, ok := L.Get(2).(lua.LString); ok {
		raise(L, "attempt to concatenate %s (a %s value)", name, t)
	}
	raise(L, "attempt to concatenate a %s value", t)
	return 0
}

// lua51Library replaces the library functions as above in L.
func lua51Library(L *lua.LState) {
	if mt, ok := L.GetMetatable(lua.LString("")).(*lua.LTable); ok {
		L.SetField(mt, "__sb_str", L.NewFunction(concatStr))
	}
	L.SetGlobal("tonumber", L.NewFunction(baseToNumber))
	L.SetGlobal("tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(toString(L, L.CheckAny(1))))
		return 1
	}))
	str := L.GetGlobal("string").(*lua.LTable)
	for name, pos := range map[string][]int{"rep": {2}, "sub": {2, 3}, "byte": {2, 3}, "find": {3}, "match": {3}, "gsub": {4}} {
		if f, ok := L.GetField(str, name).(*lua.LFunction); ok && f.IsG {
			L.SetField(str, name, L.NewFunction(numericArgs(f.GFunction, false, pos...)))
		}
	}
	if f, ok := L.GetField(str, "char").(*lua.LFunction); ok && f.IsG {
		L.SetField(str, "char", L.NewFunction(numericArgs(f.GFunction, true, 1)))
	}
	if f, ok := L.GetGlobal("select").(*lua.LFunction); ok && f.IsG {
		L.SetGlobal("select", L.NewFunction(numericArgs(f.GFunction, false, 1)))
	}
	if f, ok := L.GetGlobal("unpack").(*lua.LFunction); ok && f.IsG {
		L.SetGlobal("unpack", L.NewFunction(numericArgs(f.GFunction, false, 2, 3)))
	}
	tbl := L.GetGlobal("table").(*lua.LTable)
	for name, pos := range map[string][]int{"insert": {2}, "remove": {2}} {
		if f, ok := L.GetField(tbl, name).(*lua.LFunction); ok && f.IsG {
			L.SetField(tbl, name, L.NewFunction(numericArgs(f.GFunction, false, pos...)))
		}
	}
	L.SetField(tbl, "concat", L.NewFunction(tableConcat))
	// pcall gives the error as LuaJIT words it.
	if f, ok := L.GetGlobal("pcall").(*lua.LFunction); ok && f.IsG {
		pcall := f.GFunction
		L.SetGlobal("pcall", L.NewFunction(func(L *lua.LState) int {
			n := pcall(L)
			if n >= 2 && L.Get(-n) == lua.LFalse {
				if msg, ok := L.Get(-n + 1).(lua.LString); ok {
					L.Replace(L.GetTop()-n+2, lua.LString(lua51Message(string(msg))))
				}
			}
			return n
		}))
	}
	L.SetGlobal("gcinfo", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	}))
	L.SetField(L.GetGlobal("math").(*lua.LTable), "huge", lua.LNumber(math.Inf(1))) // gopher-lua's is the largest finite
	// jit as sysbench's LuaJIT has it, its compiler off (status is false).
	jit := L.NewTable()
	for k, v := range map[string]lua.LValue{"version": lua.LString("LuaJIT 2.1.0-beta3"), "version_num": lua.LNumber(20100),
		"os": lua.LString("Linux"), "arch": lua.LString("x64"), "opt": L.NewTable()} {
		L.SetField(jit, k, v)
	}
	for _, f := range []string{"attach", "flush", "off", "on", "prngstate", "security"} {
		L.SetField(jit, f, L.NewFunction(func(L *lua.LState) int { return 0 }))
	}
	L.SetField(jit, "status", L.NewFunction(func(L *lua.LState) int { L.Push(lua.LFalse); return 1 }))
	L.SetGlobal("jit", jit)
	// thread_run as sysbench defines it before a script, which a 0.5-era
	// script replaces (the runner runs sysbench's loop itself: Has).
	L.SetGlobal("thread_run", L.NewFunction(defaultThreadRun))
	// gopher-lua's own globals, which no Lua 5.1 has.
	for _, g := range []string{"_GOPHER_LUA_VERSION", "_printregs", "channel"} {
		L.SetGlobal(g, lua.LNil)
	}
}

// tableConcat is 5.1's table.concat(t [, sep [, i [, j]]]): numbers as
// numberString writes them.
func tableConcat(L *lua.LState) int {
	t := L.CheckTable(1)
	sep := L.OptString(2, "")
	i := int(optNumber(L, 3, 1))
	j := int(optNumber(L, 4, float64(t.Len())))
	var b strings.Builder
	for k := i; k <= j; k++ {
		switch v := t.RawGetInt(k).(type) {
		case lua.LString:
			b.WriteString(string(v))
		case lua.LNumber:
			b.WriteString(numberString(float64(v)))
		default:
			L.RaiseError("invalid value (at index %d) in table for 'concat'", k)
		}
		if k < j {
			b.WriteString(sep)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// optNumber is argument n as a number (a numeric string converted), or def.
func optNumber(L *lua.LState, n int, def float64) float64 {
	v := L.Get(n)
	if v == lua.LNil {
		return def
	}
	if s, ok := v.(lua.LString); ok {
		if f, err := parseNumber(string(s)); err == nil {
			return f
		}
	}
	return float64(L.CheckNumber(n))
}

// Lua's wording of errors gopher-lua words its own way.
var (
	argErrorRe     = regexp.MustCompile(`bad argument #(\d+) to ([^'\s]\S*) \(`)
	arithErrorRe   = regexp.MustCompile(`cannot perform \w+ operation between (\w+) and (\w+)`)
	compareErrorRe = regexp.MustCompile(`attempt to compare (\w+) with (\w+)`)
	indexErrorRe   = regexp.MustCompile(`attempt to index a non-table object\((\w+)\) with key '[^']*'`)
)

// lua51Message rewords msg as LuaJIT words it: a function's name in
// quotes ('?' when it has none) in an argument's error, arithmetic on the
// first operand that is not a number.
func lua51Message(msg string) string {
	msg = argErrorRe.ReplaceAllStringFunc(msg, func(m string) string {
		p := argErrorRe.FindStringSubmatch(m)
		name := p[2]
		if name == "(anonymous)" || strings.HasPrefix(name, "<") {
			name = "?"
		}
		return "bad argument #" + p[1] + " to '" + name + "' ("
	})
	msg = arithErrorRe.ReplaceAllStringFunc(msg, func(m string) string {
		p := arithErrorRe.FindStringSubmatch(m)
		t := p[1]
		if t == "number" {
			t = p[2]
		}
		return "attempt to perform arithmetic on a " + t + " value"
	})
	msg = compareErrorRe.ReplaceAllStringFunc(msg, func(m string) string {
		if p := compareErrorRe.FindStringSubmatch(m); p[1] == p[2] {
			return "attempt to compare two " + p[1] + " values"
		}
		return m
	})
	return indexErrorRe.ReplaceAllString(msg, "attempt to index a $1 value")
}

// defaultThreadRun is the thread_run a script finds when it defines none:
// sysbench's loop, which oltpbench's runner runs itself; called by the
// script it fails as sysbench's does without a thread id.
func defaultThreadRun(L *lua.LState) int {
	L.Error(lua.LString("[string \"sysbench.lua\"]:29: bad argument #1 to 'sb_more_events' (cannot convert '"+L.Get(1).Type().String()+"' to 'int')"), 0)
	return 0
}
