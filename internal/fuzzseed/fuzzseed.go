package fuzzseed

import (
	"os"
	"path/filepath"
	"testing"
)

// Files adds every file matching pattern (filepath.Glob, relative to the
// test's package) to f's seed corpus; no match fails the fuzz target.
func Files(f *testing.F, pattern string) {
	f.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) == 0 {
		f.Fatalf("no file matching %s to seed from: %v", pattern, err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}
