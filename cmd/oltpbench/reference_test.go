package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/oltpbench/oltpbench/internal/workload"
)

// TestReference: docs/reference (markdown, and man pages under man/) is
// what cobra/doc makes of the command tree, so the reference names every
// command and option the binary has ("go test -run TestReference -update"
// writes it: make docs).
func TestReference(t *testing.T) {
	got := t.TempDir()
	if err := writeReference(got); err != nil {
		t.Fatal(err)
	}
	want := "../../docs/reference"
	if *update {
		if err := os.RemoveAll(want); err != nil {
			t.Fatal(err)
		}
		if err := writeReference(want); err != nil {
			t.Fatal(err)
		}
	}
	files := func(dir string) map[string]string {
		m := map[string]string{}
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, p)
			m[rel] = string(b)
			return nil
		})
		return m
	}
	g, w := files(got), files(want)
	for name, text := range g {
		if old, ok := w[name]; !ok {
			t.Errorf("docs/reference/%s is missing (make docs writes it)", name)
		} else if old != text {
			t.Errorf("docs/reference/%s differs from the binary's commands (make docs writes it)", name)
		}
	}
	for name := range w {
		if _, ok := g[name]; !ok {
			t.Errorf("docs/reference/%s names no command the binary has: make docs removes it", name)
		}
	}
	if len(g) < 20 {
		t.Errorf("the reference has %d files: the command tree is not all there", len(g))
	}
}

// writeReference writes the command tree's reference into dir: one markdown
// page a command, and its man pages in dir/man.
func writeReference(dir string) error {
	root := newRoot(nil, workload.Invocation{Tool: "oltpbench"})
	var all func(*cobra.Command)
	all = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, s := range c.Commands() {
			all(s)
		}
	}
	all(root)
	if err := os.MkdirAll(filepath.Join(dir, "man"), 0o755); err != nil {
		return err
	}
	if err := doc.GenMarkdownTree(root, dir); err != nil {
		return err
	}
	date := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) // fixed, so the pages change only with the commands
	return doc.GenManTree(root, &doc.GenManHeader{Title: "OLTPBENCH", Section: "1", Source: "oltpbench", Manual: "oltpbench manual", Date: &date}, filepath.Join(dir, "man"))
}

// TestDocsSpeakToUsers: the README and the guide are for users: no test
// names, no test files, no numbered seed reports (documents outside the
// repository) and no history of the work; proof lives in the tests and in
// docs/benchmarks.md.
func TestDocsSpeakToUsers(t *testing.T) {
	bad := regexp.MustCompile(`\b(Test|Fuzz)[A-Z]\w+|\bBenchmark[A-Z][a-z]\w*|\w+_test\.go|\b[Ss]eed \d{3}\b|\bseed\d{3}|\b(this|earlier|previous|last) session\b|\bsession's\b`)
	for _, p := range docPages(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(b), "\n") {
			if m := bad.FindString(l); m != "" {
				t.Errorf("%s:%d: %q is not for users: say it in plain words, or leave it to the tests", strings.TrimPrefix(p, "../../"), i+1, m)
			}
		}
	}
	if b, _ := os.ReadFile("../../README.md"); strings.Count(string(b), "\n") > 150 {
		t.Errorf("README.md has %d lines: a front page has at most about 150; the rest goes to docs/guide", strings.Count(string(b), "\n"))
	}
}
