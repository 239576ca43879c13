package result

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Files are the result files under paths, in order: a file as it is given,
// and every *.json in a folder and its subfolders, sorted, but hidden ones
// (a name starting with a dot: a plan's clients' parts in .parts/, a
// search's markers). A folder with none is an error.
func Files(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", p, err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			switch {
			case err != nil:
			case d.IsDir() && path != p && strings.HasPrefix(d.Name(), "."):
				return filepath.SkipDir
			case !d.IsDir() && strings.HasSuffix(path, ".json") && !strings.HasPrefix(d.Name(), "."):
				found = append(found, path)
			}
			return nil
		})
		if len(found) == 0 {
			return nil, fmt.Errorf("%s holds no result files (*.json)", p)
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, nil
}
