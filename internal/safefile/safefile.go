package safefile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// WriteFile replaces path with data, atomically: a reader sees the old
// file or the new one, never a part of it, also after a crash.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write replaces path with what fill writes, atomically (see WriteFile).
// When fill fails, path is left as it was.
func Write(path string, perm os.FileMode, fill func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := createTemp(dir, "."+base+".tmp-", perm)
	if err != nil {
		return err
	}
	tmp := f.Name()
	// also when fill panics: a temporary file is removed unless renamed
	renamed := false
	defer func() {
		if !renamed {
			f.Close()
			os.Remove(tmp)
		}
	}()
	b := bufio.NewWriterSize(f, 1<<16)
	if err = fill(b); err != nil {
		return err
	}
	if err = b.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	renamed = true
	// the rename itself lasts a crash only once the directory is synced
	return syncDir(dir)
}

// createTemp creates a new file in dir named prefix and a random number,
// with perm less the umask, as os.WriteFile would make path (os.CreateTemp
// makes it 0600, and a chmod to perm would ignore the umask). O_EXCL
// under a random name: nothing planted can be followed.
func createTemp(dir, prefix string, perm os.FileMode) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		return f, err
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	serr := d.Sync()
	if cerr := d.Close(); serr == nil {
		serr = cerr
	}
	return serr
}

// Create makes a new, empty file at path to append records to, and opens
// it for writing. Whatever is at path is removed first (a symbolic link
// is removed, not followed; so is a hard link, whose other names keep
// their content), and the file is created with O_EXCL|O_NOFOLLOW: a link
// planted at path between the removal and the creation makes Create fail
// rather than write through it.
func Create(path string, perm os.FileMode) (*os.File, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, perm)
}

// Open opens a regular file for reading without following a symbolic
// link at path: a link is an error, not the file it points to.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link, not a file", path)
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, nil
}

// SyncDir makes what was written in a directory last a crash: each
// regular file's data and the directory's entries. A marker that says
// the files are complete is written after it, so that a crash cannot
// leave the marker with files the kernel had not written yet.
func SyncDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		f, err := Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		serr := f.Sync()
		if cerr := f.Close(); serr == nil {
			serr = cerr
		}
		if serr != nil {
			return fmt.Errorf("sync %s: %w", f.Name(), serr)
		}
	}
	return syncDir(dir)
}

// RemoveTemps removes from dir the temporary files Write leaves when the
// process is killed between creating and renaming one (".NAME.tmp-*"),
// and says which. Call it only where no other process writes files of
// dir through Write at the time (under the directory's lock), or use
// RemoveStaleTemps.
func RemoveTemps(dir string) ([]string, error) {
	return removeTemps(dir, time.Time{}, nil)
}

// RemoveStaleTemps removes the temporary files of dir (see RemoveTemps)
// that Write made for a file whose name ours accepts, last modified more
// than age ago: a Write takes well under a second between creating one
// and renaming it, so an old one is a killed writer's, while a writer
// running now keeps its own. ours keeps the files of other programs
// that name theirs alike out of it, in a directory a user chose.
func RemoveStaleTemps(dir string, age time.Duration, ours func(name string) bool) ([]string, error) {
	return removeTemps(dir, time.Now().Add(-age), ours)
}

func removeTemps(dir string, before time.Time, ours func(name string) bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		// the name alone is matched: dir may hold glob metacharacters
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, ".") || !strings.Contains(name[1:], ".tmp-") {
			continue
		}
		if ours != nil && !ours(name[1:strings.LastIndex(name, ".tmp-")]) {
			continue
		}
		path := filepath.Join(dir, name)
		if !before.IsZero() {
			info, err := e.Info()
			if err != nil || !info.ModTime().Before(before) {
				continue
			}
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
		removed = append(removed, path)
	}
	return removed, nil
}

// Remove removes a file and syncs its directory, so that the removal
// lasts a crash; a file already gone is no error.
func Remove(path string) error {
	if err := os.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	return syncDir(filepath.Dir(path))
}
