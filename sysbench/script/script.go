// Package script runs sysbench Lua scripts in an embedded Lua 5.1
// (github.com/yuin/gopher-lua): sysbench 1.0.20's Lua API written in Go from
// its documented and observed behaviour, one Lua state per thread as
// sysbench has. The sysbench package runs a script as one of its tests, so
// its report, options and every run mode are those of the native tests.
package script

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/oltpbench/oltpbench/internal/options"
)

// InstalledDir is where Debian's sysbench installs its stock scripts; a
// name is looked up there last, as sysbench looks in its own folder.
var InstalledDir = "/usr/share/sysbench"

// Script is a Lua script found and compiled, with the options it declares.
type Script struct {
	Path   string // as found
	Name   string // the base name without .lua: how results name it
	SHA256 string
	proto  *lua.FunctionProto
	// Options are sysbench.cmdline.options, by name (with '_').
	Options map[string]Option
	// Commands are sysbench.cmdline.commands, by name; Parallel those
	// declared PARALLEL_COMMAND (run in every thread).
	Commands, Parallel map[string]bool
	// Has says which of the global hooks the script defines (event,
	// thread_init, prepare, cleanup, help, init, done...).
	Has map[string]bool
	// Printed is what the main chunk printed as it was loaded (before
	// sysbench's banner is written): the caller writes it after the banner.
	Printed bytes.Buffer
}

// Option is one declared option: its help, its type (an ARG_* number as
// sysbench.cmdline names them) and its default in sysbench's text form
// ("on"/"off", a number as tostring writes it, a list joined with ",").
type Option struct {
	Help       string
	Type       int
	Default    string
	HasDefault bool
}

// The option types, numbered as sysbench.cmdline.ARG_* are.
const (
	ArgNull = iota
	ArgBool
	ArgInt
	ArgSize
	ArgDouble
	ArgString
	ArgList
	ArgFile
	ArgMax
)

var argNames = []string{"ARG_NULL", "ARG_BOOL", "ARG_INT", "ARG_SIZE", "ARG_DOUBLE", "ARG_STRING", "ARG_LIST", "ARG_FILE", "ARG_MAX"}

// Spelled is how sysbench's help writes the option's value after its name.
func (o Option) Spelled() string {
	switch o.Type {
	case ArgBool:
		return "[=on|off]"
	case ArgInt, ArgDouble:
		return "=N"
	case ArgSize:
		return "=SIZE"
	case ArgList:
		return "=[LIST,...]"
	case ArgFile:
		return "=FILENAME"
	}
	return "=STRING"
}

// Value is what sysbench.opt holds for the option given as text (the
// default when not given): as sysbench converts it, a boolean with no
// value is true, a number with none 0, a list a table, a file nil.
func (o Option) Value(name, text string, given bool) (lua.LValue, error) {
	has := given || o.HasDefault
	if !given {
		text = o.Default
	}
	bad := fmt.Errorf("Invalid value for the '%s' option: '%s'", name, text)
	switch o.Type {
	case ArgBool:
		if !has {
			return lua.LTrue, nil
		}
		switch strings.ToLower(text) {
		case "on", "true", "1", "yes":
			return lua.LTrue, nil
		case "off", "false", "0", "no":
			return lua.LFalse, nil
		}
		return lua.LFalse, bad
	case ArgInt, ArgDouble:
		if !has || text == "" {
			return lua.LNumber(0), nil
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || o.Type == ArgInt && n != math.Trunc(n) {
			return lua.LNumber(0), bad
		}
		return lua.LNumber(n), nil
	case ArgSize:
		if !has || text == "" {
			return lua.LNumber(0), nil
		}
		n, err := options.ParseSize(text)
		if err != nil {
			return lua.LNumber(0), bad
		}
		return lua.LNumber(n), nil
	case ArgList:
		t := &lua.LTable{}
		if has && text != "" {
			for _, x := range strings.Split(text, ",") {
				t.Append(lua.LString(x))
			}
		}
		return t, nil
	case ArgFile:
		return lua.LNil, nil
	}
	if !has {
		return lua.LString(""), nil
	}
	return lua.LString(text), nil
}

// PanicError is what sysbench prints, without FATAL, when its own Lua code
// fails outside a protected call: a script that replaced the sysbench or
// sysbench.cmdline table with another value.
type PanicError struct{ Msg string }

func (e *PanicError) Error() string {
	return "PANIC: unprotected error in call to Lua API (" + e.Msg + ")"
}

// LoadError is a script whose body failed as it loaded, with what the body
// had printed before (sysbench shows both).
type LoadError struct {
	Err     error
	Printed string
}

func (e *LoadError) Error() string { return e.Err.Error() }
func (e *LoadError) Unwrap() error { return e.Err }

// NotFoundError says where a script was looked for.
type NotFoundError struct {
	Name   string
	Looked []string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("cannot find script %q: looked in %s", e.Name, strings.Join(e.Looked, ", "))
}

// IsPath says whether a test name is a path to a script rather than a name.
func IsPath(name string) bool {
	return strings.ContainsRune(name, '/') || strings.HasSuffix(name, ".lua")
}

// Find looks for a script as sysbench does: a file by the name given;
// else, for a bare name, the module of that name as require finds it
// (LUA_PATH's templates, "./?.lua" when LUA_PATH is unset or has ";;"),
// then InstalledDir, where sysbench keeps its own; a path with ".lua"
// added last.
func Find(name string) (string, error) {
	cands := []string{name}
	if IsPath(name) {
		if !strings.HasSuffix(name, ".lua") {
			cands = append(cands, name+".lua")
		}
	} else {
		lp, set := os.LookupEnv("LUA_PATH")
		if !set || strings.Contains(lp, ";;") {
			lp += ";./?.lua"
		}
		for _, t := range strings.Split(lp, ";") {
			if t = strings.TrimSpace(t); strings.Contains(t, "?") {
				cands = append(cands, strings.ReplaceAll(t, "?", name))
			}
		}
		cands = append(cands, filepath.Join(InstalledDir, name+".lua"))
	}
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c, nil
		}
	}
	return "", &NotFoundError{Name: name, Looked: cands}
}

// Load reads and compiles the script at path and runs its main chunk once,
// for command, to learn the options, commands and hooks it declares.
func Load(path, command string) (*Script, error) {
	return LoadContext(context.Background(), path, command)
}

// LoadContext is Load that stops the main chunk when ctx is done (a script
// that loops at load time, or an interrupt).
func LoadContext(ctx context.Context, path, command string) (*Script, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read script: %w", err)
	}
	proto, err := compile(path, src)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(src)
	s := &Script{Path: path, Name: strings.TrimSuffix(filepath.Base(path), ".lua"), SHA256: hex.EncodeToString(sum[:]),
		proto: proto, Options: map[string]Option{}, Commands: map[string]bool{}, Parallel: map[string]bool{}, Has: map[string]bool{}}
	L := s.newState(&env{command: command, tid: 0, out: &s.Printed, declaring: true})
	defer L.Close()
	if ctx.Done() != nil {
		L.SetContext(ctx)
	}
	if err := s.runMain(L); err != nil {
		return nil, &LoadError{Err: err, Printed: s.Printed.String()}
	}
	if err := s.readDeclarations(L); err != nil {
		return nil, &LoadError{Err: err, Printed: s.Printed.String()}
	}
	return s, nil
}

// compile parses a Lua chunk once; every thread's state runs the same proto.
func compile(path string, src []byte) (*lua.FunctionProto, error) {
	text := string(src)
	if strings.HasPrefix(text, "#") { // a "#!" line, as lua(1) skips it
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[i:]
		} else {
			text = ""
		}
	}
	chunk, err := parse.Parse(strings.NewReader(text), path)
	if err != nil {
		return nil, errors.New(luaSyntaxError(err.Error(), string(src)))
	}
	return lua.Compile(rewrite51(chunk), path)
}

// runMain runs the script's main chunk in L.
func (s *Script) runMain(L *lua.LState) error {
	L.Push(L.NewFunctionFromProto(s.proto))
	if err := L.PCall(0, 0, nil); err != nil {
		return luaError(err)
	}
	return nil
}

// readDeclarations takes the options, commands and hooks the main chunk set,
// and refuses options declared in a shape sysbench refuses.
func (s *Script) readDeclarations(L *lua.LState) error {
	sb, ok := L.GetGlobal("sysbench").(*lua.LTable)
	if !ok {
		return &PanicError{"attempt to index a " + L.GetGlobal("sysbench").Type().String() + " value"}
	}
	cmdline, ok := sb.RawGetString("cmdline").(*lua.LTable)
	if !ok {
		return &PanicError{"attempt to index a " + sb.RawGetString("cmdline").Type().String() + " value"}
	}
	if err := s.readOptions(cmdline.RawGetString("options")); err != nil {
		return fmt.Errorf("`sysbench.cmdline.read_cmdline_options' function failed: [string \"sysbench.cmdline.lua\"]:132: %w", err)
	}
	if cmds, ok := cmdline.RawGetString("commands").(*lua.LTable); ok {
		cmds.ForEach(func(k, v lua.LValue) {
			def, ok := v.(*lua.LTable)
			if !ok || def.RawGetInt(1) == lua.LNil {
				return // sysbench ignores a command with no function
			}
			s.Commands[k.String()] = true
			if lua.LVAsBool(def.RawGetInt(2)) {
				s.Parallel[k.String()] = true
			}
		})
	}
	for _, h := range []string{"event", "thread_run", "thread_init", "thread_done", "init", "done", "prepare", "cleanup", "help", "prewarm"} {
		if f, ok := L.GetGlobal(h).(*lua.LFunction); ok && !(f.IsG && h == "thread_run") { // not sysbench's own thread_run
			s.Has[h] = true
		}
	}
	return nil
}

// readOptions reads sysbench.cmdline.options: {name = {help, default,
// type}}, the type from the default's when not given.
func (s *Script) readOptions(v lua.LValue) error {
	if v == lua.LNil {
		return nil
	}
	opts, ok := v.(*lua.LTable)
	if !ok {
		return fmt.Errorf("wrong type for sysbench.cmdline.options: %s", v.Type())
	}
	var err error
	opts.ForEach(func(k, v lua.LValue) {
		t, ok := v.(*lua.LTable)
		if err != nil {
			return
		}
		if k.Type() != lua.LTString || !ok {
			err = errors.New("wrong table structure in sysbench.cmdline.options")
			return
		}
		name := k.String()
		if t.RawGetInt(1) == lua.LNil {
			err = fmt.Errorf("nil description for option %s", name)
			return
		}
		o := Option{Help: lua.LVAsString(t.RawGetInt(1)), Type: -1}
		if n, ok := t.RawGetInt(3).(lua.LNumber); ok {
			o.Type = int(n)
		}
		switch d := t.RawGetInt(2).(type) {
		case *lua.LTable:
			var parts []string
			for i := 1; i <= d.Len(); i++ {
				parts = append(parts, lua.LVAsString(d.RawGetInt(i)))
			}
			o.Default, o.HasDefault = strings.Join(parts, ","), true
			if o.Type < 0 {
				o.Type = ArgList
			}
		case lua.LBool:
			o.Default, o.HasDefault = map[bool]string{true: "on", false: "off"}[bool(d)], true
			if o.Type < 0 {
				o.Type = ArgBool
			}
		case lua.LNumber:
			o.Default, o.HasDefault = d.String(), true
			if o.Type < 0 {
				o.Type = ArgDouble
			}
		case lua.LString:
			o.Default, o.HasDefault = string(d), true
		}
		if o.Type < 0 {
			o.Type = ArgString
		}
		s.Options[name] = o
	})
	return err
}

// OptionNames are the declared options, sorted.
func (s *Script) OptionNames() []string {
	var n []string
	for k := range s.Options {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// luaError is a Lua error as one line: file:line: message.
func luaError(err error) error {
	if ae, ok := err.(*lua.ApiError); ok {
		msg := lua51Message(ae.Object.String())
		if t, ok := ae.Object.(*lua.LTable); ok {
			msg = errdescString(t)
		}
		return &Error{Msg: msg, Cause: ae.Cause}
	}
	return err
}

// Error is an error raised in a script.
type Error struct {
	Msg   string
	Cause error // a Go error that raised it (a statement's), if any
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Cause }

// PrintOptions is sysbench.cmdline.print_test_options(): the options as
// sysbench's help lists them ("  --name=TYPE" padded to the longest, the
// help, the default in brackets), then a blank line.
func (s *Script) PrintOptions(w io.Writer) {
	names := s.OptionNames()
	width := 0
	for _, n := range names {
		width = max(width, len("--"+n+s.Options[n].Spelled()))
	}
	for _, n := range names {
		o := s.Options[n]
		line := fmt.Sprintf("  %-*s %s", width, "--"+n+o.Spelled(), o.Help)
		if o.HasDefault {
			line += " [" + o.Default + "]"
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
}

// Help calls the script's help function, as `sysbench <script> help` does,
// with sysbench.opt as opt.
func (s *Script) Help(out io.Writer, opt map[string]lua.LValue) error {
	e := &env{command: "help", out: io.Discard, opt: opt, declaring: true}
	L := s.newState(e)
	defer L.Close()
	if err := s.runMain(L); err != nil {
		return err
	}
	e.out = out
	return call(L, "help")
}
