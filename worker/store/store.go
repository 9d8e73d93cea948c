package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/racklab/racklab/coordinator/cluster"
)

// Errors a caller may test for with errors.Is.
var (
	// ErrNoSpace: the write would take the tier past its capacity.
	ErrNoSpace = errors.New("tier capacity exceeded")
	// ErrBadKey: the key is not a valid object key (see ValidKey).
	ErrBadKey = errors.New("invalid key")
	// ErrNoTier: the store has no tier of that kind.
	ErrNoTier = errors.New("no such tier")
	// ErrRange: the requested byte range is not inside the object.
	ErrRange = errors.New("range out of bounds")
	// ErrWriterDone: Write or Commit after Commit or Abort.
	ErrWriterDone = errors.New("writer already committed or aborted")
)

// MaxKeyLen is the longest key accepted, in bytes.
const MaxKeyLen = 1024

// tmpDirName is the directory inside each tier that holds the temporary files
// of open writers. Keys may not have a component starting with '.', so no key
// can name it.
const tmpDirName = ".racklab-tmp"

// TierConfig describes one tier of a Store.
type TierConfig struct {
	Kind     cluster.TierKind
	Dir      string
	ReadBps  float64 // bytes/s; 0 = unlimited (reads use the sendfile-able fast path)
	WriteBps float64 // bytes/s; 0 = unlimited
	Capacity int64   // bytes; 0 = unlimited
	// Cache: whether objects are kept out of the page cache (see
	// CacheMode); the zero value bypasses it on SSD and HDD tiers that
	// are not on tmpfs.
	Cache CacheMode
}

// Store is a set of tiers. It is safe for concurrent use.
type Store struct {
	tiers [cluster.NumTierKinds]*tier
	kinds []cluster.TierKind

	mu     sync.Mutex
	moving map[string]struct{} // keys being moved between tiers
}

type tier struct {
	cfg  TierConfig
	root string // absolute tier directory
	rd   *bucket
	wr   *bucket
	// cache: whether the tier drops its objects' pages, and its failures
	// to; set by Open.
	cache cacheState

	mu      sync.Mutex
	used    int64               // committed objects of this store + bytes reserved by open writers
	objs    map[string]int64    // committed objects made by this store -> size
	dirs    map[string]struct{} // directories (relative) created for objects
	writers map[*Writer]struct{}
}

// Open makes a Store of the given tiers, creating their directories.
func Open(tiers []TierConfig) (*Store, error) {
	if len(tiers) == 0 {
		return nil, errors.New("store: no tiers configured")
	}
	s := &Store{}
	for _, c := range tiers {
		if int(c.Kind) >= cluster.NumTierKinds {
			return nil, fmt.Errorf("store: tier %s: unknown tier kind", c.Kind)
		}
		if s.tiers[c.Kind] != nil {
			return nil, fmt.Errorf("store: tier %s configured twice", c.Kind)
		}
		if c.Dir == "" {
			return nil, fmt.Errorf("store: tier %s: no directory", c.Kind)
		}
		if !validRate(c.ReadBps) || !validRate(c.WriteBps) {
			return nil, fmt.Errorf("store: tier %s: rates must be finite and >= 0 (read %g, write %g)", c.Kind, c.ReadBps, c.WriteBps)
		}
		if c.Capacity < 0 {
			return nil, fmt.Errorf("store: tier %s: negative capacity %d", c.Kind, c.Capacity)
		}
		root, err := filepath.Abs(c.Dir)
		if err != nil {
			return nil, fmt.Errorf("store: tier %s: directory %q: %w", c.Kind, c.Dir, err)
		}
		if err := os.MkdirAll(root, 0o755); err != nil {
			return nil, fmt.Errorf("store: tier %s: create directory: %w", c.Kind, err)
		}
		bypass, err := resolveCache(c, root)
		if err != nil {
			return nil, fmt.Errorf("store: tier %s: cache mode %s: %w", c.Kind, c.Cache, err)
		}
		t := &tier{
			cfg:     c,
			root:    root,
			rd:      newBucket(c.ReadBps),
			wr:      newBucket(c.WriteBps),
			objs:    make(map[string]int64),
			dirs:    make(map[string]struct{}),
			writers: make(map[*Writer]struct{}),
		}
		t.cache.bypass = bypass
		s.tiers[c.Kind] = t
		s.kinds = append(s.kinds, c.Kind)
	}
	sort.Slice(s.kinds, func(i, j int) bool { return s.kinds[i] < s.kinds[j] })
	return s, nil
}

func validRate(r float64) bool { return r >= 0 && !math.IsInf(r, 0) && !math.IsNaN(r) }

// Tiers returns the kinds of the configured tiers, fastest first.
func (s *Store) Tiers() []cluster.TierKind {
	return append([]cluster.TierKind(nil), s.kinds...)
}

// Has reports whether the store has a tier of this kind.
func (s *Store) Has(k cluster.TierKind) bool {
	return int(k) < len(s.tiers) && s.tiers[k] != nil
}

// Config returns the configuration of a tier.
func (s *Store) Config(k cluster.TierKind) (TierConfig, bool) {
	if !s.Has(k) {
		return TierConfig{}, false
	}
	return s.tiers[k].cfg, true
}

func (s *Store) tier(k cluster.TierKind) (*tier, error) {
	if !s.Has(k) {
		return nil, fmt.Errorf("store: tier %s: %w", k, ErrNoTier)
	}
	return s.tiers[k], nil
}

// lookup resolves a tier and a key to the object's path.
func (s *Store) lookup(k cluster.TierKind, key string) (*tier, string, error) {
	t, err := s.tier(k)
	if err != nil {
		return nil, "", err
	}
	if err := ValidKey(key); err != nil {
		return nil, "", fmt.Errorf("store: %s: %w", k, err)
	}
	return t, filepath.Join(t.root, filepath.FromSlash(key)), nil
}

// ValidKey reports whether key can name an object: a non-empty, clean,
// relative slash-separated path of at most MaxKeyLen bytes, without "..",
// NUL or backslash, none of whose components starts with '.'.
func ValidKey(key string) error {
	bad := func(why string) error { return fmt.Errorf("key %q: %w: %s", key, ErrBadKey, why) }
	switch {
	case key == "":
		return bad("empty")
	case len(key) > MaxKeyLen:
		return bad(fmt.Sprintf("longer than %d bytes", MaxKeyLen))
	case strings.HasPrefix(key, "/"):
		return bad("absolute")
	case strings.Contains(key, ".."):
		return bad(`contains ".."`)
	case strings.ContainsAny(key, "\x00\\"):
		return bad("contains NUL or backslash")
	case path.Clean(key) != key:
		return bad("not a clean path")
	}
	for _, c := range strings.Split(key, "/") {
		if strings.HasPrefix(c, ".") {
			return bad("a component starts with '.'")
		}
	}
	if !filepath.IsLocal(filepath.FromSlash(key)) {
		return bad("escapes the tier directory")
	}
	return nil
}

// Used returns the bytes of a tier in use: the objects this store committed
// plus the bytes written so far (or reserved) by open writers.
func (s *Store) Used(k cluster.TierKind) int64 {
	t, err := s.tier(k)
	if err != nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.used
}

// reserve takes n bytes of the tier's capacity, or fails with ErrNoSpace.
func (t *tier) reserve(n int64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	// n > capacity - used, not used + n > capacity: a huge n would wrap
	// the sum below the capacity and leave used negative
	if t.cfg.Capacity > 0 && n > t.cfg.Capacity-t.used || n > math.MaxInt64-t.used {
		return fmt.Errorf("%w: tier %s has %d of %d bytes in use, %d more needed",
			ErrNoSpace, t.cfg.Kind, t.used, t.cfg.Capacity, n)
	}
	t.used += n
	return nil
}

// Size returns the size of an object.
func (s *Store) Size(k cluster.TierKind, key string) (int64, error) {
	_, p, err := s.lookup(k, key)
	if err != nil {
		return 0, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return 0, fmt.Errorf("store: %s %q: %w", k, key, err)
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("store: %s %q: not an object: %w", k, key, fs.ErrNotExist)
	}
	return fi.Size(), nil
}

// Remove deletes an object.
func (s *Store) Remove(k cluster.TierKind, key string) error {
	t, p, err := s.lookup(k, key)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		return fmt.Errorf("store: %s %q: not an object: %w", k, key, fs.ErrNotExist)
	}
	if err := os.Remove(p); err != nil {
		return fmt.Errorf("store: %s %q: %w", k, key, err)
	}
	if sz, ok := t.objs[key]; ok {
		t.used -= sz
		delete(t.objs, key)
	}
	return nil
}

// OpenRange opens bytes [off, off+n) of an object for reading; n < 0 means
// to the end. It returns the reader and the length of the range. Reads are
// paced by the tier's read limiter; on an unlimited tier the reader's WriteTo
// hands the file itself to io.Copy, so a copy to a *net.TCPConn uses
// sendfile(2). Closing the reader aborts a read waiting for tokens, and,
// on a tier that bypasses the page cache, drops the object's pages.
func (s *Store) OpenRange(k cluster.TierKind, key string, off, n int64) (io.ReadCloser, int64, error) {
	r, _, got, err := s.openRange(k, key, off, n)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		// a move (Move) took the object to another tier after the reader
		// was told where it was: read it where it is now, at that tier's
		// rate, as a datanode serves a block from whichever disk holds it
		for _, other := range s.Tiers() {
			if other == k {
				continue
			}
			if r2, _, n2, err2 := s.openRange(other, key, off, n); err2 == nil {
				return r2, n2, nil
			}
		}
	}
	return r, got, err
}

// openRange is OpenRange that also returns the opened file's identity, so
// that a caller can tell whether the key still names that file later.
func (s *Store) openRange(k cluster.TierKind, key string, off, n int64) (io.ReadCloser, os.FileInfo, int64, error) {
	t, p, err := s.lookup(k, key)
	if err != nil {
		return nil, nil, 0, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("store: %s %q: %w", k, key, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("not an object: %w", fs.ErrNotExist)
	}
	if err != nil {
		f.Close()
		return nil, nil, 0, fmt.Errorf("store: %s %q: %w", k, key, err)
	}
	size := fi.Size()
	if n < 0 && off >= 0 && off <= size {
		n = size - off
	}
	if off < 0 || off > size || n < 0 || n > size-off {
		f.Close()
		return nil, nil, 0, fmt.Errorf("store: %s %q: %w: [%d, +%d) of %d bytes", k, key, ErrRange, off, n, size)
	}
	unc := t.newUncacher(fmt.Sprintf("%s %q", k, key))
	if t.rd == nil {
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			f.Close()
			return nil, nil, 0, fmt.Errorf("store: %s %q: %w", k, key, err)
		}
		return &fileSection{f: f, remain: n, unc: unc}, fi, n, nil
	}
	return newPacedSection(f, off, n, t.rd, unc), fi, n, nil
}

// Create starts a new object. Its bytes go to a temporary file in the tier
// and appear under key only on Commit.
func (s *Store) Create(k cluster.TierKind, key string) (*Writer, error) {
	t, p, err := s.lookup(k, key)
	if err != nil {
		return nil, err
	}
	tmpDir := filepath.Join(t.root, tmpDirName)
	if err := os.MkdirAll(tmpDir, 0o755); err != nil {
		return nil, fmt.Errorf("store: %s %q: %w", k, key, err)
	}
	f, err := os.CreateTemp(tmpDir, "obj-*")
	if err != nil {
		return nil, fmt.Errorf("store: %s %q: %w", k, key, err)
	}
	w := newWriter(t, key, p, f)
	t.mu.Lock()
	t.writers[w] = struct{}{}
	t.mu.Unlock()
	return w, nil
}

// Wipe removes every object and temporary file this store made, aborting
// open writers, and the directories it made for them if they are empty.
func (s *Store) Wipe() error {
	var errs []error
	for _, k := range s.kinds {
		t := s.tiers[k]
		t.mu.Lock()
		ws := make([]*Writer, 0, len(t.writers))
		for w := range t.writers {
			ws = append(ws, w)
		}
		t.mu.Unlock()
		for _, w := range ws {
			if err := w.Abort(); err != nil {
				errs = append(errs, err)
			}
		}
		t.mu.Lock()
		for key, sz := range t.objs {
			p := filepath.Join(t.root, filepath.FromSlash(key))
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("store: wipe %s %q: %w", k, key, err))
				continue
			}
			t.used -= sz
			delete(t.objs, key)
		}
		// Deepest directories first; a directory still holding files that
		// are not ours stays.
		dirs := make([]string, 0, len(t.dirs)+1)
		for d := range t.dirs {
			dirs = append(dirs, d)
		}
		sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
		for _, d := range append(dirs, tmpDirName) {
			if err := os.Remove(filepath.Join(t.root, filepath.FromSlash(d))); err == nil || errors.Is(err, fs.ErrNotExist) {
				delete(t.dirs, d)
			}
		}
		t.mu.Unlock()
	}
	return errors.Join(errs...)
}

// fileSection is a range of an unpaced file, read from the file's offset.
type fileSection struct {
	f      *os.File
	remain int64
	unc    *uncacher // drops the file's pages on Close; nil: keep them
}

func (s *fileSection) Read(p []byte) (int, error) {
	if s.remain <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > s.remain {
		p = p[:s.remain]
	}
	n, err := s.f.Read(p)
	s.remain -= int64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF // the file shrank under us
	}
	return n, err
}

// WriteTo copies the rest of the section to w. It passes an
// *io.LimitedReader of the *os.File to io.Copy, which a *net.TCPConn's
// ReadFrom turns into sendfile(2).
func (s *fileSection) WriteTo(w io.Writer) (int64, error) {
	if s.remain <= 0 {
		return 0, nil
	}
	lr := &io.LimitedReader{R: s.f, N: s.remain}
	n, err := io.Copy(w, lr)
	s.remain -= n
	if err == nil && s.remain > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (s *fileSection) Close() error {
	s.unc.done(s.f)
	return s.f.Close()
}

// RemoveObjects removes, from a tier directory, the subtrees named by
// namespaces (racklab's object key prefixes) and the temporary files of
// writers, and nothing else: a tier directory may hold other data. It is
// the cleanup after a worker that died before its Wipe, and returns how
// many files it removed.
func RemoveObjects(dir string, namespaces ...string) (int, error) {
	n := 0
	var errs []error
	for _, ns := range append(namespaces, tmpDirName) {
		if ns == "" || strings.ContainsAny(ns, `/\`) || ns == "." || ns == ".." {
			errs = append(errs, fmt.Errorf("store: %q is not a namespace", ns))
			continue
		}
		root := filepath.Join(dir, ns)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		if err := os.RemoveAll(root); err != nil {
			errs = append(errs, fmt.Errorf("store: remove %s: %w", root, err))
		}
	}
	return n, errors.Join(errs...)
}
