package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/racklab/racklab/coordinator/cluster"
)

// Errors of Move a caller may test for with errors.Is, besides ErrNoTier,
// ErrBadKey, ErrNoSpace and fs.ErrNotExist.
var (
	// ErrMoveBusy: a move of the same key is already under way.
	ErrMoveBusy = errors.New("a move of this key is under way")
	// ErrForeign: the file was not written by this store, which leaves
	// such files alone.
	ErrForeign = errors.New("not an object of this store")
	// ErrSourceChanged: the source was replaced or removed while it was
	// being copied, so the copy is stale and was discarded.
	ErrSourceChanged = errors.New("source replaced or removed during the move")
	// ErrCopyMismatch: the copy's size or checksum differs from what was
	// read from the source.
	ErrCopyMismatch = errors.New("copy differs from the source")
)

// Move moves an object of this store from one tier to another, as a tier
// demotion or promotion does on a real host, and returns its size.
//
// The bytes are read through the source tier's read bucket and written
// through the destination tier's write bucket, the two overlapped as a
// device-to-device copy is, so the move takes about size/min(read rate,
// write rate). The destination's capacity is taken before anything is
// written: a destination too full for the object fails with ErrNoSpace and
// changes nothing. The copy is checked, its size against the source's and
// its checksum (read back from the new file outside the tier's rate, like
// StoredChecksum) against the bytes read, before it becomes visible under
// the key; only then is the source removed.
//
// Readers of the source that opened it before the removal keep reading
// the whole old copy (the file outlives its name); readers that open it
// after the removal, told the old tier, are served from the new one
// (OpenRange looks on the other tiers for a key its tier lacks). A source replaced or removed while the move runs (by a
// recomputed output, a Remove or a Wipe) fails the move with
// ErrSourceChanged and leaves whatever is now on the source tier alone. A
// second move of a key being moved fails at once with ErrMoveBusy.
// Cancelling ctx (or a Wipe) aborts the copy, leaving the source in place.
func (s *Store) Move(ctx context.Context, key string, from, to cluster.TierKind) (int64, error) {
	fail := func(err error) (int64, error) {
		return 0, fmt.Errorf("store: move %q from %s to %s: %w", key, from, to, err)
	}
	if from == to {
		return fail(errors.New("source and destination are the same tier"))
	}
	src, srcPath, err := s.lookup(from, key)
	if err != nil {
		return 0, err
	}
	if _, _, err := s.lookup(to, key); err != nil {
		return 0, err
	}
	if !s.claimMove(key) {
		return fail(ErrMoveBusy)
	}
	defer s.releaseMove(key)

	r, srcInfo, size, err := s.openRange(from, key, 0, -1)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	src.mu.Lock()
	_, ours := src.objs[key]
	src.mu.Unlock()
	if !ours {
		return fail(ErrForeign)
	}
	w, err := s.Create(to, key)
	if err != nil {
		return 0, err
	}
	defer w.Abort()
	if err := w.Reserve(size); err != nil {
		return 0, err
	}
	stop := context.AfterFunc(ctx, func() {
		r.Close()
		w.Abort()
	})
	defer stop()

	sum, copied, err := pipeCopy(w, r)
	if ctx.Err() != nil {
		return fail(ctx.Err())
	}
	if err != nil {
		return fail(err)
	}
	if copied != size || w.Written() != size {
		return fail(fmt.Errorf("%w: read %d and wrote %d of %d bytes", ErrCopyMismatch, copied, w.Written(), size))
	}
	if got, err := fileChecksum(w.tmp); err != nil {
		return fail(fmt.Errorf("read back the copy: %w", err))
	} else if got != sum {
		return fail(fmt.Errorf("%w: checksum %016x read back, %016x read from the source", ErrCopyMismatch, got, sum))
	}
	if !sameFile(srcPath, srcInfo) {
		return fail(ErrSourceChanged)
	}
	if err := w.Commit(); err != nil {
		return 0, err
	}
	// Remove the source if the key still names the file copied; the check
	// and the removal hold the tier's lock, as a Commit replacing the
	// object does.
	src.mu.Lock()
	removed := sameFile(srcPath, srcInfo)
	if removed {
		err = os.Remove(srcPath)
		if err == nil {
			src.used -= src.objs[key]
			delete(src.objs, key)
		}
	}
	src.mu.Unlock()
	if !removed {
		// the copy is of a version the source tier no longer holds
		if rerr := s.Remove(to, key); rerr != nil {
			return fail(fmt.Errorf("%w; removing the stale copy: %v", ErrSourceChanged, rerr))
		}
		return fail(ErrSourceChanged)
	}
	if err != nil {
		return fail(fmt.Errorf("copied, but the source stays: %w", err))
	}
	return size, nil
}

func (s *Store) claimMove(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, busy := s.moving[key]; busy {
		return false
	}
	if s.moving == nil {
		s.moving = make(map[string]struct{})
	}
	s.moving[key] = struct{}{}
	return true
}

func (s *Store) releaseMove(key string) {
	s.mu.Lock()
	delete(s.moving, key)
	s.mu.Unlock()
}

// pipeCopy copies r to w with the reading and the writing overlapped, and
// returns the checksum of the bytes copied.
func pipeCopy(w io.Writer, r io.Reader) (uint64, int64, error) {
	pr, pw := io.Pipe()
	readDone := make(chan error, 1)
	go func() {
		_, err := io.CopyBuffer(pw, onlyReader{r}, make([]byte, maxChunk))
		pw.CloseWithError(err)
		readDone <- err
	}()
	var sum summer
	n, err := io.CopyBuffer(io.MultiWriter(w, &sum), pr, make([]byte, maxChunk))
	pr.CloseWithError(errors.New("writer stopped")) // unblocks the reader after a write error
	rerr := <-readDone
	if err == nil {
		err = rerr
	}
	return sum.Sum64(), n, err
}

// fileChecksum is the store's checksum of a file, read without pacing.
func fileChecksum(path string) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var sum summer
	if _, err := io.CopyBuffer(&sum, onlyReader{f}, make([]byte, genBuf)); err != nil {
		return 0, err
	}
	return sum.Sum64(), nil
}

// sameFile reports whether path still names the file described by fi.
func sameFile(path string, fi os.FileInfo) bool {
	now, err := os.Lstat(path)
	return err == nil && os.SameFile(now, fi)
}
