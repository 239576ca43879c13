package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/oltpbench/oltpbench/internal/conn"
	"github.com/oltpbench/oltpbench/loader"
)

// The dataset made, remade and verified for a plan (whose names it in
// errors: "the plan"): these are the pipeline's parts of a plan's resets.

// Ensure makes co.DB hold the dataset: verified when its complete record
// matches, prepared when there is none, a cut load resumed (see
// loader.EnsureDataset).
func (p *Pipeline) Ensure(ctx context.Context, co conn.Options, whose string) error {
	return p.watched(ctx, co, "the dataset's check", func(ctx context.Context) error { return p.ensure(ctx, co, whose) })
}

func (p *Pipeline) ensure(ctx context.Context, co conn.Options, whose string) error {
	return loader.EnsureDataset(ctx, co, p.w.Dataset(), whose, p.out, func(resume bool) error {
		if _, err := p.Front(append(p.Args(), "prepare")); err != nil {
			return err
		}
		return p.Prepare(ctx, co, resume)
	}, func(command string) error { return p.OwnCommand(ctx, command, co) })
}

// Reload makes the dataset again from its generator and seed: a load from
// the generator found cut is finished, anything else of the dataset's is
// dropped first (as cleanup drops it) and loaded again. Another dataset in
// the database is an error, not dropped.
func (p *Pipeline) Reload(ctx context.Context, co conn.Options, whose string) error {
	return p.watched(ctx, co, "reload", func(ctx context.Context) error {
		return p.remake(ctx, co, whose, "chunk:", func(bool) error { return p.ensure(ctx, co, whose) })
	})
}

// Reimport loads the dataset from its CSV files in from (a folder or
// s3://), writing them there first when from holds none: IMPORT INTO on
// TiDB, LOAD DATA LOCAL elsewhere. An import found cut is finished;
// anything else of the dataset's is dropped first.
func (p *Pipeline) Reimport(ctx context.Context, co conn.Options, from, whose string) error {
	return p.watched(ctx, co, "reimport", func(ctx context.Context) error { return p.reimport(ctx, co, from, whose) })
}

func (p *Pipeline) reimport(ctx context.Context, co conn.Options, from, whose string) error {
	ds := p.w.Dataset()
	if len(ds.Tables) == 0 {
		return errors.New("reset = \"reimport\" loads the CSV files of a dataset the loader makes, and this one is made by its workload's own prepare: use reset = \"reload\" or \"command\"")
	}
	lo, err := p.f.load.Options(p.f.threads)
	if err != nil {
		return err
	}
	lo.Dir, lo.Log, lo.Quiet, lo.Info, lo.Watch = from, p.out, true, p.detail, p.exp.WatchLoad
	// The files first: a folder that cannot be written drops nothing.
	if err := loader.EnsureCSV(ctx, co.DB, ds, lo, p.out); err != nil {
		return err
	}
	return p.remake(ctx, co, whose, "file:", func(resume bool) error {
		lo.Resume, lo.Quiet = resume, !p.w.Hooks().Peer.TableMessages
		rep, err := loader.ImportDir(ctx, co, from, lo)
		if err != nil {
			return err
		}
		rep.Summary(p.detail)
		return p.afterLoad(ctx, co)
	})
}

// remake drops whatever the database holds of the dataset, unless it is a
// cut load of the same kind (its record's unit starts with unit), then
// loads: resume says to finish the cut one. Another dataset is an error.
func (p *Pipeline) remake(ctx context.Context, co conn.Options, whose, unit string, load func(resume bool) error) error {
	state, have, err := loader.CheckDataset(ctx, co, p.w.Dataset(), whose)
	if err != nil {
		return err
	}
	resume := state == loader.LoadCut && strings.HasPrefix(have["unit"], unit)
	if state != loader.NoDataset && !resume {
		if err := p.drop(ctx, co); err != nil {
			return err
		}
	}
	return load(resume)
}

// Fresh says whether the database holds the dataset as its load left it,
// with what it checked, or why not (loader.Fresh, with the workload's exact
// counts and the load's seed).
func (p *Pipeline) Fresh(ctx context.Context, co conn.Options, whose string) (what string, err error) {
	err = p.watched(ctx, co, "the dataset's check", func(ctx context.Context) error {
		what, err = loader.Fresh(ctx, co, p.w.Dataset(), whose, strconv.FormatUint(p.f.load.Seed, 10), p.w.Hooks().ExactRows)
		return err
	})
	return what, err
}

// Analyze runs ANALYZE TABLE on the dataset's tables (watched), and says
// how many.
func (p *Pipeline) Analyze(ctx context.Context, co conn.Options) (n int, err error) {
	err = p.watched(ctx, co, "analyze", func(ctx context.Context) error {
		n, err = loader.AnalyzeDataset(ctx, co, p.w.Dataset(), 2)
		return err
	})
	return n, err
}

// drop removes the dataset as cleanup does: the workload's own cleanup for
// a dataset it makes itself, else the loader's tables.
func (p *Pipeline) drop(ctx context.Context, co conn.Options) error {
	if handled, err := p.ownCommand(ctx, "cleanup", co); handled || err != nil {
		if err != nil {
			return fmt.Errorf("cleanup: %w", err)
		}
		return nil
	}
	return p.cleanup(ctx, co, p.w.Hooks())
}
