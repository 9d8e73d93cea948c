package campaign

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// LockFile is the result directory's lock: a bench holding it writes its
// pid in it.
const LockFile = ".lock"

// LockedError says that another process holds a result directory.
type LockedError struct {
	Dir string
	// PID is the holder's process id, 0 when it has not written it yet.
	PID int
}

func (e *LockedError) Error() string {
	holder := "another process"
	if e.PID > 0 {
		holder = fmt.Sprintf("another process (pid %d)", e.PID)
	}
	return fmt.Sprintf("%s is in use by %s running a campaign into it: wait until it ends, or choose another result directory", e.Dir, holder)
}

// Lock takes the lock of result directory dir, so that two campaigns
// never write into one directory at once; release gives it back. The lock
// is an flock(2) on dir/.lock: the kernel releases it when the process
// ends, also when it is killed, so a crash leaves no stale lock. When
// another process holds it, Lock fails at once with a *LockedError
// naming that process.
func Lock(dir string) (release func(), err error) {
	path := filepath.Join(dir, LockFile)
	// no O_TRUNC, and no link followed: the lock file is only ever
	// written once it is ours, and only in place
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link: remove it", path)
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 {
		f.Close()
		return nil, fmt.Errorf("%s is not a plain file (a directory, a device or a hard link to another file): remove it", path)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, &LockedError{Dir: dir, PID: readPID(f)}
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt(pid, 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	// closing the file releases the flock
	return func() { f.Close() }, nil
}

func readPID(f *os.File) int {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 32))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
