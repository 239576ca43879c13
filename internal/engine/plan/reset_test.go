package plan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oltpbench/oltpbench/internal/engine/cells"
	"github.com/oltpbench/oltpbench/internal/result"
)

// fakeDataset stands for a database: aged by every measured run, made
// fresh by a remake; the hooks count what the resets asked of it.
type fakeDataset struct {
	fresh            bool
	remakes, warmups int
	kinds            []string
}

func (d *fakeDataset) resets(p *Plan) *resets {
	h := ResetHooks{
		Remake: func(_ context.Context, kind, from string, _ io.Writer) error {
			d.remakes++
			d.kinds = append(d.kinds, kind+":"+from)
			d.fresh = true
			return nil
		},
		Fresh: func(context.Context) (string, error) {
			if !d.fresh {
				return "", errors.New("aged")
			}
			return "as loaded", nil
		},
	}
	return &resets{p: p, h: h, done: map[string]*result.Reset{},
		warmup: func(context.Context, io.Writer) error { d.warmups++; return nil }}
}

// measure ages the dataset, as a run does.
func (d *fakeDataset) measure(_ context.Context, c *cells.Cell, threads int, _ io.Writer) (*result.Result, error) {
	d.fresh = false
	return &result.Result{Threads: threads}, nil
}

func resetPlanOf(t *testing.T, keys string) (*Plan, []*cells.Cell) {
	t.Helper()
	src := "[dataset]\nworkload = \"tpcc\"\n[[step]]\nthreads = [1, 2]\ntime = \"1s\"\nrepeats = 2\n" + keys
	p, err := Parse(filepath.Join(t.TempDir(), "p.toml"), []byte(src), 0, known)
	if err != nil {
		t.Fatal(err)
	}
	return p, cells.Expand(p.Series(timing))
}

// TestResets: when a step's reset runs, what each cell's result records of
// it, and when it is skipped.
func TestResets(t *testing.T) {
	for _, c := range []struct {
		name, keys string
		fresh      bool // the dataset as loaded before the first cell
		remakes    int
		warmups    int
		cellOf     []int // each result's Reset.Cell
		skipped    []bool
	}{
		{"every cell", `reset = "reload"`, false, 4, 4, []int{1, 2, 3, 4}, []bool{false, false, false, false}},
		{"every cell, loaded just before", `reset = "reload"`, true, 3, 4, []int{1, 2, 3, 4}, []bool{true, false, false, false}},
		{"every step", "reset = \"reimport\"\nreset_from = \"/data/csv\"\nreset_every = \"step\"", false, 1, 1, []int{1, 1, 1, 1}, []bool{false, false, false, false}},
		{"no reset", "", false, 0, 0, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, cs := resetPlanOf(t, c.keys)
			d := &fakeDataset{fresh: c.fresh}
			rs := d.resets(p)
			m := rs.measure(d.measure)
			var out bytes.Buffer
			for i, cell := range cs {
				r, err := m(context.Background(), cell, cell.Threads, &out)
				if err != nil {
					t.Fatal(err)
				}
				if c.cellOf == nil {
					if r.Reset != nil {
						t.Errorf("cell %d: a reset %+v without one in the plan", i+1, r.Reset)
					}
					continue
				}
				if r.Reset == nil || r.Reset.Cell != c.cellOf[i] || (r.Reset.Skipped != "") != c.skipped[i] || r.Reset.Verified != "as loaded" {
					t.Errorf("cell %d's reset: %+v", i+1, r.Reset)
				}
			}
			if d.remakes != c.remakes || d.warmups != c.warmups {
				t.Errorf("%d remakes and %d warm-ups, want %d and %d:\n%s", d.remakes, d.warmups, c.remakes, c.warmups, out.String())
			}
			if c.name == "every step" && d.kinds[0] != "reimport:/data/csv" {
				t.Errorf("the remake was asked for %v", d.kinds)
			}
		})
	}
}

// TestResetCommand: a command always runs, even on a dataset as loaded;
// its failure, a verification that fails after it, and its timeout each
// fail the reset with words that name the cause; a timeout ends the
// command's whole process group at once.
func TestResetCommand(t *testing.T) {
	for _, c := range []struct {
		name, command, timeout string
		fresh                  bool // after the command
		want                   string
	}{
		{"restores", "echo restoring", "", true, ""},
		{"fails", "echo no backup; exit 3", "", true, "reset (command) before it: reset_command failed (exit status 3): its output is in the cell's log"},
		{"restores nothing", "true", "", false, "reset (command) before it: the dataset is not as loaded after it: aged"},
		{"too slow", "sleep 30 & sleep 30", "200ms", true, `reset (command) before it: it took longer than reset_timeout = 200ms: raise reset_timeout in step "tpcc"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			keys := fmt.Sprintf("reset = \"command\"\nreset_command = %q\n", c.command)
			if c.timeout != "" {
				keys += fmt.Sprintf("reset_timeout = %q\n", c.timeout)
			}
			p, cs := resetPlanOf(t, keys)
			d := &fakeDataset{fresh: true}
			rs := d.resets(p)
			rs.h.Fresh = func(context.Context) (string, error) {
				if !c.fresh {
					return "", errors.New("aged")
				}
				return "as loaded", nil
			}
			var out bytes.Buffer
			start := time.Now()
			rec, err := rs.before(context.Background(), cs[0], 1, &out)
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("the reset took %s", took)
			}
			if c.want == "" {
				if err != nil || rec == nil || rec.Skipped != "" || !strings.Contains(out.String(), "restoring\n") {
					t.Fatalf("%v, %+v, output:\n%s", err, rec, out.String())
				}
				return
			}
			if err == nil || err.Error() != c.want {
				t.Fatalf("error %v\nwant  %s", err, c.want)
			}
			if c.name == "fails" && !strings.Contains(out.String(), "no backup\n") {
				t.Errorf("the command's output is not in the log:\n%s", out.String())
			}
		})
	}
}
