package script

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzLoad: any script loads (its main chunk run, its options, commands
// and hooks read) or fails with an error, within a bound: no panic, no hang.
func FuzzLoad(f *testing.F) {
	for _, glob := range []string{"../../cmd/oltpbench/testdata/lua/*.lua", "/usr/share/sysbench/*.lua"} {
		ps, _ := filepath.Glob(glob)
		for _, p := range ps {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b, "run")
			}
		}
	}
	f.Add([]byte(`sysbench.cmdline.options = {x = {"an option", 5}}; function event() end`), "help")
	f.Add([]byte(`sysbench = 1`), "run")
	f.Add([]byte(`while true do end`), "prepare")
	f.Add([]byte("#!/usr/bin/env sysbench\nsysbench.cmdline.commands = {x = {function() end, sysbench.cmdline.PARALLEL_COMMAND}}"), "x")
	f.Fuzz(func(t *testing.T, src []byte, command string) {
		if len(src) > 1<<16 || strings.Contains(string(src), "rep") {
			return // string.rep and the like: a memory bound is the OS's, as with sysbench
		}
		p := filepath.Join(t.TempDir(), "s.lua")
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		start := time.Now()
		s, err := LoadContext(ctx, p, command)
		if time.Since(start) > 10*time.Second {
			t.Fatalf("load took %v", time.Since(start))
		}
		if err != nil {
			if err.Error() == "" && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatal("an empty error")
			}
			return
		}
		s.OptionNames()
		s.PrintOptions(io.Discard)
	})
}
