package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// plant makes dir/name a symbolic link to a file outside dir holding
// "outside", and returns that file's path.
func plant(t *testing.T, dir, name string) string {
	t.Helper()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	return outside
}

func checkUntouched(t *testing.T, outside string) {
	t.Helper()
	b, err := os.ReadFile(outside)
	if err != nil || string(b) != "outside" {
		t.Errorf("the file outside holds %q (%v), want it untouched", b, err)
	}
}

func TestWriteFileReplacesASymlink(t *testing.T) {
	dir := t.TempDir()
	outside := plant(t, dir, "summary.csv")
	path := filepath.Join(dir, "summary.csv")
	if err := WriteFile(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkUntouched(t, outside)
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o644 {
		t.Fatalf("%s: %v %v, want a regular file 0644", path, st, err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("content %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestWriteKeepsTheOldFileWhenFillFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "done.json")
	if err := WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, 0o644, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("content %q, want the old one", b)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestCreateDoesNotFollowLinks(t *testing.T) {
	dir := t.TempDir()
	outside := plant(t, dir, "attempts.csv")
	f, err := Create(filepath.Join(dir, "attempts.csv"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("records"))
	f.Close()
	checkUntouched(t, outside)

	// a hard link to a file outside keeps that file's content
	hard := filepath.Join(t.TempDir(), "hard.txt")
	if err := os.WriteFile(hard, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(hard, filepath.Join(dir, "jobs.csv")); err != nil {
		t.Fatal(err)
	}
	if f, err = Create(filepath.Join(dir, "jobs.csv"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("records"))
	f.Close()
	checkUntouched(t, hard)
}

func TestOpenRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	plant(t, dir, "attempts.csv")
	if _, err := Open(filepath.Join(dir, "attempts.csv")); err == nil {
		t.Error("a symbolic link was opened")
	}
	if _, err := Open(dir); err == nil {
		t.Error("a directory was opened")
	}
	path := filepath.Join(dir, "jobs.csv")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// RemoveTemps removes what Write leaves when killed, and nothing else.
func TestRemoveTemps(t *testing.T) {
	// a directory whose name is a glob pattern matching another
	other := filepath.Join(t.TempDir(), "ra")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, ".x.tmp-1"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(filepath.Dir(other), "r[a?")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".summary.csv.tmp-123", ".meta.json.tmp-9", "summary.csv", ".hidden", "x.tmp-1"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, ".d.tmp-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	removed, err := RemoveTemps(dir)
	if err != nil || len(removed) != 2 {
		t.Fatalf("removed %v, %v", removed, err)
	}
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{".d.tmp-1", ".hidden", "summary.csv", "x.tmp-1"}; !slices.Equal(left, want) {
		t.Fatalf("left %v, want %v", left, want)
	}
	if _, err := os.Stat(filepath.Join(other, ".x.tmp-1")); err != nil {
		t.Errorf("a temporary file of another directory was removed: %v", err)
	}
	// only the old ones, when another writer may be at work
	fresh, old, others := filepath.Join(dir, ".a.svg.tmp-1"), filepath.Join(dir, ".b.svg.tmp-2"), filepath.Join(dir, ".c.db.tmp-3")
	hourAgo := time.Now().Add(-time.Hour)
	for _, p := range []string{fresh, old, others} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if p != fresh {
			if err := os.Chtimes(p, hourAgo, hourAgo); err != nil {
				t.Fatal(err)
			}
		}
	}
	svg := func(name string) bool { return strings.HasSuffix(name, ".svg") }
	if removed, err := RemoveStaleTemps(dir, 10*time.Minute, svg); err != nil || !slices.Equal(removed, []string{old}) {
		t.Errorf("stale temporary files removed: %v %v, want %s", removed, err, old)
	}
	if removed, err := RemoveTemps(dir); err != nil || !slices.Equal(removed, []string{fresh, others}) {
		t.Errorf("removed %v %v, want %s and %s", removed, err, fresh, others)
	}
	if err := SyncDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := Remove(filepath.Join(dir, "summary.csv")); err != nil {
		t.Fatal(err)
	}
	if err := Remove(filepath.Join(dir, "summary.csv")); err != nil {
		t.Fatalf("removing a file already gone: %v", err)
	}
}

// A replaced file gets perm less the umask, as os.WriteFile and Create
// give it: a user whose umask keeps results private (077) must not find
// summary.csv readable by all beside an attempts.csv that is not.
func TestWriteHonoursTheUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	replaced := filepath.Join(dir, "summary.csv")
	if err := WriteFile(replaced, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(filepath.Join(dir, "attempts.csv"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, path := range []string{replaced, f.Name()} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v under umask 077, want -rw-------", path, st.Mode().Perm())
		}
	}
}

// A fill that panics leaves no temporary file (nor an open one) behind:
// a caller that recovers goes on with a clean directory.
func TestWriteRemovesTheTempWhenFillPanics(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meta.json")
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic of fill did not reach the caller")
			}
		}()
		Write(path, 0o644, func(w io.Writer) error {
			w.Write([]byte("half"))
			panic("boom")
		})
	}()
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: %v, want it not made", path, err)
	}
}
