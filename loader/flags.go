package loader

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/oltpbench/oltpbench/internal/options"
)

// Flags are the loader's options on the command line (prepare, csv, import).
type Flags struct {
	Mode, indexTiming     string
	analyze, Resume       bool
	Seed                  uint64
	shard, Dir            string
	csvFileSize, progress string
}

// Register adds the options to fs; generate adds those that shape generated
// data (import reads them from the manifest).
func (f *Flags) Register(fs *pflag.FlagSet, generate bool) {
	f.Mode, f.csvFileSize = "auto", "256MiB"
	if generate {
		fs.StringVar(&f.Mode, "load-mode", "auto", "prepare: auto (local where the server allows it, else insert), insert, local (streamed LOAD DATA LOCAL), csv (files only) or import (files, then loaded)")
		fs.Uint64Var(&f.Seed, "seed", 20201, "dataset seed: the same seed gives the same data")
		fs.StringVar(&f.csvFileSize, "csv-file-size", "256MiB", "split CSV files near this size")
	}
	fs.StringVar(&f.indexTiming, "index-timing", "auto", "prepare: secondary indexes after the data, before, or auto")
	options.AddBool(fs, &f.analyze, "analyze", true, "prepare: ANALYZE TABLE after loading")
	options.AddBool(fs, &f.Resume, "resume", false, "finish an interrupted load: load only what is missing")
	fs.StringVar(&f.shard, "shard", "", "load only part i of n (i/n), so several client machines load one dataset")
	fs.StringVar(&f.Dir, "dir", "", "where the CSV files are (csv and import modes): a folder, or s3://bucket/prefix?endpoint=..&access-key=..&secret-access-key=.. (TiDB's URL parameters; without keys, the AWS credential chain)")
	fs.StringVar(&f.progress, "progress", "auto", "progress display: auto (a live bar on a terminal), on, off")
}

// Options checks the parsed options and makes a load's options.
func (f *Flags) Options(threads int) (Options, error) {
	i, n, err := ParseShard(f.shard)
	if err != nil {
		return Options{}, err
	}
	size, err := ParseSize(f.csvFileSize)
	if err != nil {
		return Options{}, fmt.Errorf("invalid --csv-file-size=%s: %w", f.csvFileSize, err)
	}
	switch f.progress {
	case "auto", "on", "off":
	default:
		return Options{}, fmt.Errorf("invalid --progress=%s: use auto, on or off", f.progress)
	}
	return Options{Mode: f.Mode, IndexTiming: f.indexTiming, Threads: threads, Seed: f.Seed, Analyze: f.analyze,
		Resume: f.Resume, Shard: i, Shards: n, Dir: f.Dir, FileSize: size, Progress: f.progress}, nil
}

// ParseSize reads 1048576, 64KiB, 256MiB, 1GiB (KB/MB/GB are powers of 1000).
func ParseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000_000}, {"GB", 1000_000_000}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	mult := int64(1)
	num := strings.TrimSpace(s)
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v <= 0 {
		return 0, errors.New("a positive size like 256MiB")
	}
	return v * mult, nil
}
