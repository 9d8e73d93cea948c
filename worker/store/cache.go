package store

import (
	"errors"
	"fmt"
	"log"
	"os"
	"sync"
	"sync/atomic"

	"github.com/racklab/racklab/coordinator/cluster"
)

// CacheMode says whether a tier keeps its objects out of the page cache.
//
// A tier that bypasses the cache flushes each object it writes
// (fdatasync) and then drops the object's pages (posix_fadvise
// POSIX_FADV_DONTNEED), and drops them again when a reader closes, so the
// next read of the object comes from the device, as it would on a host
// whose RAM is too small to hold the data set. Without this an HDD tier
// on a host with spare RAM serves its reads from memory and the tiers
// differ only by the rate limiter.
//
// fadvise was chosen over O_DIRECT: O_DIRECT needs the buffer, the file
// offset and the length aligned to the device's logical block size, which
// the rate limiter's chunks (20 ms of transfer, any byte count), reads of
// arbitrary ranges (shuffle partitions), callers' own buffers and objects
// whose size is not a multiple of the block all break; it also takes away
// sendfile(2) from unlimited tiers, and tmpfs rejects it. fadvise works
// on whole files from any descriptor and leaves every read path as it is.
// What it gives up: readers of one object that overlap in time may share
// pages until one of them closes, and a file mapped or locked by another
// process keeps its pages.
type CacheMode uint8

const (
	// CacheAuto (the zero value) bypasses the cache on SSD and HDD tiers
	// whose directory is not on a memory filesystem (tmpfs, ramfs) and
	// keeps it on the memory tier, whose "device" is RAM.
	CacheAuto CacheMode = iota
	// CacheBypass bypasses the cache on any tier not on a memory
	// filesystem, the memory tier included (a memory tier on a disk).
	CacheBypass
	// CacheKeep leaves the page cache alone.
	CacheKeep
)

func (m CacheMode) String() string {
	switch m {
	case CacheAuto:
		return "auto"
	case CacheBypass:
		return "bypass"
	case CacheKeep:
		return "keep"
	}
	return fmt.Sprintf("CacheMode(%d)", uint8(m))
}

// Indirections of the system calls, so that a test can make them fail as
// a filesystem without fadvise would.
var (
	fdatasyncFn = fdatasync
	fadviseFn   = fadviseDontNeed
)

// cacheState is a tier's page-cache bypass: whether it is on, and the
// failures to drop pages, which never fail a read.
type cacheState struct {
	bypass   bool
	failures atomic.Int64
	firstMu  sync.Mutex
	first    error
}

// BypassesCache reports whether a tier keeps its objects out of the page
// cache: the tier's CacheMode resolved against its kind and filesystem.
func (s *Store) BypassesCache(k cluster.TierKind) bool {
	t, err := s.tier(k)
	return err == nil && t.cache.bypass
}

// CacheDropFailures returns how many times a tier failed to flush or drop
// an object's pages since Open, and the first such error. Such a failure
// leaves the object's pages cached (its next read may come from RAM) but
// fails neither the read nor the write.
func (s *Store) CacheDropFailures(k cluster.TierKind) (int64, error) {
	t, err := s.tier(k)
	if err != nil {
		return 0, err
	}
	t.cache.firstMu.Lock()
	defer t.cache.firstMu.Unlock()
	return t.cache.failures.Load(), t.cache.first
}

// failed records a failure to drop pages. The first of each tier is logged
// (a filesystem without fadvise would otherwise log on every read); later
// ones are only counted, for CacheDropFailures.
func (t *tier) failed(err error) {
	t.cache.failures.Add(1)
	t.cache.firstMu.Lock()
	first := t.cache.first == nil
	if first {
		t.cache.first = err
	}
	t.cache.firstMu.Unlock()
	if first {
		log.Printf("store: tier %s: %v; its reads may be served from the page cache (further failures are counted, not logged)", t.cfg.Kind, err)
	}
}

// dropPages drops a file's pages from the page cache if the tier bypasses
// it. With flush (after a write), it first writes the dirty pages out, as
// DONTNEED leaves dirty pages alone. A flush failing with an I/O error
// means the bytes may not be on the device, and is returned; any other
// failure only leaves pages cached, and is recorded by t.failed.
func (t *tier) dropPages(f *os.File, flush bool, what string) error {
	if !t.cache.bypass {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		t.failed(fmt.Errorf("drop the pages of %s: %w", what, err))
		return nil
	}
	var syncErr, adviseErr error
	// Control holds the descriptor open, so a Close racing with this one
	// (a cancelled read) cannot hand the call a reused descriptor.
	err = rc.Control(func(fd uintptr) {
		if flush {
			syncErr = fdatasyncFn(int(fd))
			if syncErr != nil && !syncUnsupported(syncErr) {
				return
			}
		}
		adviseErr = fadviseFn(int(fd))
	})
	switch {
	case err != nil:
		t.failed(fmt.Errorf("drop the pages of %s: %w", what, err))
	case syncErr != nil && !syncUnsupported(syncErr):
		return fmt.Errorf("flush %s: %w", what, syncErr)
	case syncErr != nil:
		t.failed(fmt.Errorf("flush %s before dropping its pages: %w", what, syncErr))
	}
	if adviseErr != nil {
		t.failed(fmt.Errorf("drop the pages of %s: posix_fadvise(DONTNEED): %w", what, adviseErr))
	}
	return nil
}

// uncacher drops the pages of a file being read once, on the reader's
// first Close. A nil *uncacher does nothing (the tier keeps its cache).
type uncacher struct {
	t    *tier
	what string
	once sync.Once
}

func (t *tier) newUncacher(what string) *uncacher {
	if !t.cache.bypass {
		return nil
	}
	return &uncacher{t: t, what: what}
}

// done drops what the read brought into the cache (and whatever else of
// the file is there: the next read must go to the device).
func (u *uncacher) done(f *os.File) {
	if u == nil {
		return
	}
	u.once.Do(func() { _ = u.t.dropPages(f, false, u.what) }) // a read cannot fail here: see dropPages
}

// resolveCache decides whether a tier bypasses the page cache.
func resolveCache(c TierConfig, root string) (bool, error) {
	switch c.Cache {
	case CacheKeep:
		return false, nil
	case CacheAuto, CacheBypass:
	default:
		return false, fmt.Errorf("unknown cache mode %d", c.Cache)
	}
	if c.Cache == CacheAuto && c.Kind == cluster.Mem {
		return false, nil
	}
	mem, err := onMemoryFS(root)
	if errors.Is(err, errNoBypass) {
		return false, nil // no fadvise on this platform: nothing to bypass with
	}
	if err != nil {
		return false, fmt.Errorf("filesystem of %s: %w", root, err)
	}
	// tmpfs and ramfs pages are the storage itself: there is no device
	// to read from and DONTNEED does not drop them.
	return !mem, nil
}
