package store

import (
	"errors"

	"golang.org/x/sys/unix"
)

// errNoBypass: the platform has no way to drop a file's pages.
var errNoBypass = errors.New("page-cache bypass not supported on this platform")

func fdatasync(fd int) error { return unix.Fdatasync(fd) }

// fadviseDontNeed drops the whole file's clean pages (offset 0, length 0:
// to the end).
func fadviseDontNeed(fd int) error { return unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED) }

// syncUnsupported reports whether a flush failed because the filesystem
// cannot flush (as opposed to an I/O error or a full device).
func syncUnsupported(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS)
}

// onMemoryFS reports whether dir is on tmpfs or ramfs, whose pages are the
// storage itself.
func onMemoryFS(dir string) (bool, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false, err
	}
	return st.Type == unix.TMPFS_MAGIC || st.Type == unix.RAMFS_MAGIC, nil
}
