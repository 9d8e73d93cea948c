package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repoFiles lists the repository's files, relative to its root: git's
// tracked files, or, where git cannot read the checkout (a tarball, or a
// clone owned by another user), every file but build and result output.
func repoFiles(t *testing.T, root string) []string {
	t.Helper()
	if out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output(); err == nil && len(out) > 0 {
		return strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && (rel == ".git" || rel == "bin" || rel == "results") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Nothing in the repository reads the traces or anything else from beside
// it: the traces are in traces/. Markdown may still cite the project's
// other documents (../shared/spec/...) by name, but no file may give a
// path to traces outside the repository, and no code, campaign, script or
// Makefile may name ../shared at all.
func TestNothingReadsOutsideTheRepository(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	self := filepath.Join("bench", "repo_test.go")
	anywhere := []string{"shared/traces", `"shared", "traces"`}
	outsideDocs := []string{"../shared", `"..", "shared"`}
	files := repoFiles(t, root)
	if len(files) < 50 {
		t.Fatalf("found %d files under %s: not the repository", len(files), root)
	}
	for _, f := range files {
		if f == self || strings.HasPrefix(f, "traces"+string(filepath.Separator)) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		banned := anywhere
		if !strings.HasSuffix(f, ".md") {
			banned = append(append([]string{}, anywhere...), outsideDocs...)
		}
		for i, line := range bytes.Split(data, []byte("\n")) {
			for _, b := range banned {
				if bytes.Contains(line, []byte(b)) {
					t.Errorf("%s:%d names %q: %s", f, i+1, b, bytes.TrimSpace(line))
				}
			}
		}
	}
	for _, trace := range []string{"swim/FB-2009_samples_24_times_1hr_0.tsv", "swim/FB-2010_samples_24_times_1hr_0.tsv", "swim/LICENSE", "coflow/FB2010-1Hr-150-0.txt", "README.md"} {
		if _, err := os.Stat(filepath.Join(root, "traces", trace)); err != nil {
			t.Errorf("traces/%s: %v", trace, err)
		}
	}
}

// Every file the README shows "as it is" (a fenced block after a
// `<!-- file: PATH -->` line) is that file, byte for byte.
func TestReadmeCopiesAreTheFiles(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const marker = "<!-- file: "
	lines := strings.Split(string(readme), "\n")
	var shown []string
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], marker) {
			continue
		}
		path := strings.TrimSuffix(strings.TrimPrefix(lines[i], marker), " -->")
		shown = append(shown, path)
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			t.Errorf("README.md:%d: %s is not followed by a fenced block", i+1, path)
			continue
		}
		end := i + 2
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		if end == len(lines) {
			t.Errorf("README.md:%d: %s's block is not closed", i+2, path)
			continue
		}
		copied := strings.Join(lines[i+2:end], "\n") + "\n"
		file, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(path)))
		if err != nil {
			t.Errorf("README.md:%d: %v", i+1, err)
			continue
		}
		if copied != string(file) {
			t.Errorf("README.md:%d: the copy of %s differs from the file; paste the file in again", i+3, path)
		}
		i = end
	}
	if strings.Join(shown, ",") != "campaigns/demo.yaml,examples/topology.yaml" {
		t.Errorf("README.md shows %v as they are; want campaigns/demo.yaml and examples/topology.yaml", shown)
	}
}
