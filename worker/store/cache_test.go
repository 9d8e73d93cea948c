//go:build linux

package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/racklab/racklab/coordinator/cluster"
	"golang.org/x/sys/unix"
)

// residentPages returns how many of a file's pages are in the page cache
// (mincore of a shared mapping, which itself faults nothing in) and how
// many pages it has.
func residentPages(t testing.TB, path string) (resident, total int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() == 0 {
		return 0, 0
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatalf("mmap %s: %v", path, err)
	}
	defer unix.Munmap(mem)
	pg := os.Getpagesize()
	vec := make([]byte, (len(mem)+pg-1)/pg)
	// x/sys/unix has no Mincore wrapper
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&mem[0])), uintptr(len(mem)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		t.Fatalf("mincore %s: %v", path, errno)
	}
	for _, v := range vec {
		if v&1 != 0 {
			resident++
		}
	}
	return resident, len(vec)
}

// diskDir returns a directory on a filesystem where dropping pages can be
// observed: not tmpfs or ramfs (whose pages are the storage), and one where
// a written file's pages are resident and DONTNEED after fdatasync drops
// them. It tries the test's temporary directory, then a directory in the
// package's working tree, and skips the test, saying why, if neither fits.
func diskDir(t testing.TB) string {
	t.Helper()
	var why []string
	try := func(dir string) bool {
		mem, err := onMemoryFS(dir)
		switch {
		case err != nil:
			why = append(why, fmt.Sprintf("%s: %v", dir, err))
			return false
		case mem:
			why = append(why, dir+" is on tmpfs or ramfs")
			return false
		}
		p := filepath.Join(dir, "probe")
		if err := os.WriteFile(p, make([]byte, 1<<20), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(p)
		if r, _ := residentPages(t, p); r == 0 {
			why = append(why, dir+": a file just written has no resident pages")
			return false
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := unix.Fdatasync(int(f.Fd())); err != nil {
			why = append(why, fmt.Sprintf("%s: fdatasync: %v", dir, err))
			return false
		}
		if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
			why = append(why, fmt.Sprintf("%s: fadvise: %v", dir, err))
			return false
		}
		if r, _ := residentPages(t, p); r != 0 {
			why = append(why, fmt.Sprintf("%s: %d pages stay resident after DONTNEED", dir, r))
			return false
		}
		return true
	}
	if d := t.TempDir(); try(d) {
		return d
	}
	wd, err := os.MkdirTemp(".", ".cache-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(wd) })
	if try(wd) {
		return wd
	}
	t.Skipf("no directory where the page cache can be observed: %s", strings.Join(why, "; "))
	return ""
}

// objPath is the file of an object, for mincore.
func objPath(s *Store, k cluster.TierKind, key string) string {
	return filepath.Join(s.tiers[k].root, filepath.FromSlash(key))
}

// TestCacheBypass: on SSD and HDD tiers, the pages of an object are not
// resident after it is written (Generate, a Writer's Commit) nor after it
// is read (paced, unpaced, StoredChecksum), so its next read goes to the
// device; with CacheKeep and on the memory tier they are.
func TestCacheBypass(t *testing.T) {
	dir := diskDir(t)
	const size = 4 << 20
	for _, tc := range []struct {
		kind   cluster.TierKind
		mode   CacheMode
		rate   float64 // read rate; 0 is the unpaced path
		bypass bool
	}{
		{cluster.SSD, CacheAuto, 0, true},
		{cluster.HDD, CacheAuto, 4e9, true},
		{cluster.Mem, CacheBypass, 0, true},
		{cluster.SSD, CacheKeep, 0, false},
		{cluster.HDD, CacheKeep, 4e9, false},
		{cluster.Mem, CacheAuto, 4e9, false},
	} {
		name := fmt.Sprintf("%s/%s/rate=%g", tc.kind, tc.mode, tc.rate)
		t.Run(name, func(t *testing.T) {
			d, err := os.MkdirTemp(dir, "tier-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(d)
			s, err := Open([]TierConfig{{Kind: tc.kind, Dir: d, ReadBps: tc.rate, Cache: tc.mode}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Wipe()
			if got := s.BypassesCache(tc.kind); got != tc.bypass {
				t.Fatalf("BypassesCache = %v, want %v", got, tc.bypass)
			}
			// check says whether the object's pages are resident as
			// the mode wants: none when bypassing, most otherwise
			// (all of them, unless the host is short of memory).
			check := func(when string) {
				t.Helper()
				r, n := residentPages(t, objPath(s, tc.kind, "b"))
				if tc.bypass && r != 0 {
					t.Errorf("after %s: %d of %d pages resident, want 0", when, r, n)
				}
				if !tc.bypass && r < n/2 {
					t.Errorf("after %s: %d of %d pages resident, want them cached", when, r, n)
				}
			}
			if _, err := s.Generate(tc.kind, "b", size, 3); err != nil {
				t.Fatal(err)
			}
			check("Generate")

			rc, n, err := s.OpenRange(tc.kind, "b", 0, -1)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := io.Copy(io.Discard, rc); err != nil || got != n {
				t.Fatalf("read %d of %d bytes: %v", got, n, err)
			}
			// the read did go through the cache: Close is what drops it
			if r, _ := residentPages(t, objPath(s, tc.kind, "b")); r == 0 {
				t.Errorf("no pages resident after the read, before Close: the test shows nothing")
			}
			if err := rc.Close(); err != nil {
				t.Fatal(err)
			}
			check("a read")

			if _, err := s.StoredChecksum(tc.kind, "b"); err != nil {
				t.Fatal(err)
			}
			check("StoredChecksum")

			w, err := s.Create(tc.kind, "b")
			if err != nil {
				t.Fatal(err)
			}
			if err := GenContent(w, "b", size, 4); err != nil {
				t.Fatal(err)
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			check("a Writer's Commit")
			if err := s.Verify(tc.kind, "b", 4, size); err != nil {
				t.Fatal(err)
			}
			check("Verify")
			if got, _ := s.CacheDropFailures(tc.kind); got != 0 {
				t.Errorf("%d failures to drop pages", got)
			}
		})
	}
}

// TestMoveLeavesDestinationUncached: a demotion to HDD and a promotion to
// SSD leave the new copy out of the page cache (Move reads it back to check
// it, which brings it in), and a promotion to memory leaves it cached.
func TestMoveLeavesDestinationUncached(t *testing.T) {
	dir := diskDir(t)
	s := openTest(t,
		TierConfig{Kind: cluster.Mem, Dir: filepath.Join(dir, "mem")},
		TierConfig{Kind: cluster.SSD, Dir: filepath.Join(dir, "ssd"), ReadBps: 4e9},
		TierConfig{Kind: cluster.HDD, Dir: filepath.Join(dir, "hdd"), ReadBps: 4e9, WriteBps: 4e9},
	)
	defer s.Wipe()
	const size = 4 << 20
	if _, err := s.Generate(cluster.Mem, "b", size, 9); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		from, to cluster.TierKind
		cached   bool
	}{
		{cluster.Mem, cluster.HDD, false},
		{cluster.HDD, cluster.SSD, false},
		{cluster.SSD, cluster.Mem, true},
	} {
		if _, err := s.Move(t.Context(), "b", step.from, step.to); err != nil {
			t.Fatal(err)
		}
		r, n := residentPages(t, objPath(s, step.to, "b"))
		if !step.cached && r != 0 {
			t.Errorf("move %s -> %s: %d of %d pages of the copy resident, want 0", step.from, step.to, r, n)
		}
		if step.cached && r < n/2 {
			t.Errorf("move %s -> %s: %d of %d pages of the copy resident, want them cached", step.from, step.to, r, n)
		}
	}
	if err := s.Verify(cluster.Mem, "b", 9, size); err != nil {
		t.Fatal(err)
	}
}

// TestCacheModeOnTmpfs: a tier on tmpfs never bypasses the cache (there is
// no device under it), whatever its kind or mode.
func TestCacheModeOnTmpfs(t *testing.T) {
	const shm = "/dev/shm" // tmpfs on most Linux hosts
	if mem, err := onMemoryFS(shm); err != nil || !mem {
		t.Skipf("%s is not tmpfs here (%v)", shm, err)
	}
	d, err := os.MkdirTemp(shm, "store-test-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(d)
	for _, mode := range []CacheMode{CacheAuto, CacheBypass} {
		s, err := Open([]TierConfig{{Kind: cluster.HDD, Dir: d, Cache: mode}})
		if err != nil {
			t.Fatal(err)
		}
		if s.BypassesCache(cluster.HDD) {
			t.Errorf("HDD tier on tmpfs, mode %s: bypasses the cache", mode)
		}
	}
	if _, err := Open([]TierConfig{{Kind: cluster.HDD, Dir: d, Cache: 7}}); err == nil {
		t.Error("Open took an unknown cache mode")
	}
}

// TestCacheDropFailure: a filesystem without fadvise (or fdatasync) fails
// no read or write, and the failures are counted, the first kept; a flush
// failing with an I/O error fails the Commit.
func TestCacheDropFailure(t *testing.T) {
	dir := diskDir(t)
	defer func(s, a func(int) error) { fdatasyncFn, fadviseFn = s, a }(fdatasyncFn, fadviseFn)
	fadviseFn = func(int) error { return unix.EINVAL }
	fdatasyncFn = func(int) error { return unix.EINVAL }
	s := openTest(t, TierConfig{Kind: cluster.HDD, Dir: filepath.Join(dir, "hdd"), ReadBps: 4e9})
	defer s.Wipe()
	if _, err := s.Generate(cluster.HDD, "b", 1<<20, 1); err != nil {
		t.Fatalf("Generate with fadvise failing: %v", err)
	}
	if err := s.Verify(cluster.HDD, "b", 1, 1<<20); err != nil {
		t.Fatalf("Verify with fadvise failing: %v", err)
	}
	n, first := s.CacheDropFailures(cluster.HDD)
	// Generate: the flush and the fadvise; Verify's Close: the fadvise
	if n != 3 || !errors.Is(first, unix.EINVAL) || !strings.Contains(first.Error(), "flush") {
		t.Errorf("CacheDropFailures = %d, %v; want 3, the flush's EINVAL", n, first)
	}

	fdatasyncFn = func(int) error { return unix.EIO }
	if _, err := s.Generate(cluster.HDD, "c", 1<<20, 1); !errors.Is(err, unix.EIO) {
		t.Errorf("Generate with the flush failing with EIO: %v, want EIO", err)
	}
	if _, err := s.Size(cluster.HDD, "c"); err == nil {
		t.Error("an object whose flush failed was committed")
	}
}

// BenchmarkBlockRead reads a 64 MiB block from an unlimited SSD tier on a
// disk filesystem, from the page cache (CacheKeep) and from the device
// (the default bypass): the MB/s column is the difference §7.1 is about.
func BenchmarkBlockRead(b *testing.B) {
	dir := diskDir(b)
	const size = 64 << 20
	for _, mode := range []CacheMode{CacheKeep, CacheAuto} {
		name := map[CacheMode]string{CacheKeep: "cached", CacheAuto: "bypassed"}[mode]
		b.Run(name, func(b *testing.B) {
			d, err := os.MkdirTemp(dir, "tier-")
			if err != nil {
				b.Fatal(err)
			}
			defer os.RemoveAll(d)
			s, err := Open([]TierConfig{{Kind: cluster.SSD, Dir: d, Cache: mode}})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Wipe()
			if _, err := s.Generate(cluster.SSD, "blk", size, 5); err != nil {
				b.Fatal(err)
			}
			buf := make([]byte, 256<<10) // as a task reads
			read := func() {
				r, _, err := s.OpenRange(cluster.SSD, "blk", 0, -1)
				if err != nil {
					b.Fatal(err)
				}
				if n, err := io.CopyBuffer(io.Discard, onlyReader{r}, buf); err != nil || n != size {
					b.Fatalf("read %d bytes: %v", n, err)
				}
				r.Close()
			}
			read() // the cached case starts warm
			b.SetBytes(size)
			b.ResetTimer()
			for range b.N {
				read()
			}
		})
	}
}
