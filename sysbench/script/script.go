// Package script runs sysbench Lua scripts in an embedded Lua 5.1
// (github.com/yuin/gopher-lua): sysbench 1.0.20's Lua API written in Go from
// its documented and observed behaviour, one Lua state per thread as
// sysbench has. The sysbench package runs a script as one of its tests, so
// its report, options and every run mode are those of the native tests.
package script

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
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

// Option is one declared option: its help and its default (nil for none),
// whose Lua type gives the option's type.
type Option struct {
	Help    string
	Default lua.LValue
}

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

// Find looks for a script as sysbench does: the name, the name with .lua,
// in the current directory, on LUA_PATH, then in InstalledDir.
func Find(name string) (string, error) {
	var cands []string
	add := func(p string) {
		cands = append(cands, p)
		if !strings.HasSuffix(p, ".lua") {
			cands = append(cands, p+".lua")
		}
	}
	add(name)
	if !IsPath(name) {
		for _, t := range strings.Split(os.Getenv("LUA_PATH"), ";") {
			if t = strings.TrimSpace(t); t != "" && t != ";;" && strings.Contains(t, "?") {
				cands = append(cands, strings.ReplaceAll(t, "?", name))
			}
		}
		add(filepath.Join(InstalledDir, name))
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
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read script: %v", err)
	}
	proto, err := compile(path, src)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(src)
	s := &Script{Path: path, Name: strings.TrimSuffix(filepath.Base(path), ".lua"), SHA256: hex.EncodeToString(sum[:]),
		proto: proto, Options: map[string]Option{}, Commands: map[string]bool{}, Parallel: map[string]bool{}, Has: map[string]bool{}}
	L := s.newState(&env{command: command, tid: 0, out: &s.Printed})
	defer L.Close()
	if err := s.runMain(L); err != nil {
		return nil, err
	}
	s.readDeclarations(L)
	return s, nil
}

var parseErr = regexp.MustCompile(`^(.*) line:(\d+)\(column:\d+\) near '(.*)':\s+(.*)$`)

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
		// gopher-lua says "f.lua line:2(column:5) near '=':   syntax error";
		// Lua (and sysbench) "f.lua:2: ... near '='".
		msg := strings.TrimSpace(err.Error())
		if m := parseErr.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("%s:%s: %s near '%s'", m[1], m[2], strings.TrimSpace(m[4]), m[3])
		}
		return nil, errors.New(msg)
	}
	return lua.Compile(chunk, path)
}

// runMain runs the script's main chunk in L.
func (s *Script) runMain(L *lua.LState) error {
	L.Push(L.NewFunctionFromProto(s.proto))
	if err := L.PCall(0, 0, nil); err != nil {
		return luaError(err)
	}
	return nil
}

// readDeclarations takes the options, commands and hooks the main chunk set.
func (s *Script) readDeclarations(L *lua.LState) {
	sb := L.GetGlobal("sysbench").(*lua.LTable)
	cmdline := sb.RawGetString("cmdline").(*lua.LTable)
	if opts, ok := cmdline.RawGetString("options").(*lua.LTable); ok {
		opts.ForEach(func(k, v lua.LValue) {
			t, ok := v.(*lua.LTable)
			if !ok {
				return
			}
			s.Options[k.String()] = Option{Help: lua.LVAsString(t.RawGetInt(1)), Default: t.RawGetInt(2)}
		})
	}
	if cmds, ok := cmdline.RawGetString("commands").(*lua.LTable); ok {
		cmds.ForEach(func(k, v lua.LValue) {
			s.Commands[k.String()] = true
			if def, ok := v.(*lua.LTable); ok && lua.LVAsBool(def.RawGetInt(2)) {
				s.Parallel[k.String()] = true
			}
		})
	}
	for _, h := range []string{"event", "thread_init", "thread_done", "init", "done", "prepare", "cleanup", "help", "prewarm"} {
		if _, ok := L.GetGlobal(h).(*lua.LFunction); ok {
			s.Has[h] = true
		}
	}
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
		msg := ae.Object.String()
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
