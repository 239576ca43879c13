// Command s3floor uploads the CSV data files of a local folder to an s3://
// URL through the loader's own store (the same SDK, part size, part pool and
// number of files at once as csv --dir s3://...): the floor that generating
// straight into object storage is measured against. Used by
// scripts/bench-s3.sh.
//
// Usage: go run ./scripts/s3floor -threads N DIR URL
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/oltpbench/oltpbench/loader"
)

func main() {
	threads := flag.Int("threads", 4, "files uploaded at once")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: s3floor -threads N DIR URL")
		os.Exit(2)
	}
	dir, url := flag.Arg(0), flag.Arg(1)
	st, err := loader.OpenStore(url, 0)
	if err == nil {
		err = st.Check(true)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "s3floor:", loader.RedactURL(err.Error()))
		os.Exit(1)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	var g errgroup.Group
	g.SetLimit(*threads)
	var total int64
	sizes := make([]int64, len(names))
	for i, p := range names {
		g.Go(func() error {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			obj, err := st.Create(filepath.Base(p))
			if err != nil {
				return err
			}
			n, err := io.Copy(obj, f)
			if err != nil {
				obj.Abort()
				return err
			}
			sizes[i] = n
			return obj.Commit()
		})
	}
	if err := g.Wait(); err != nil {
		fmt.Fprintln(os.Stderr, "s3floor:", loader.RedactURL(err.Error()))
		os.Exit(1)
	}
	for _, n := range sizes {
		total += n
	}
	fmt.Printf("uploaded %d files, %d bytes, from %s\n", len(names), total, strings.TrimRight(dir, "/"))
}
