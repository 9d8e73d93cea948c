package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"sync"
)

// Writer writes a new object. Its bytes become visible under the key only on
// Commit; Abort (or a failed Commit) discards them. A Writer is not safe for
// concurrent use, except that Abort may be called from another goroutine to
// interrupt a Write waiting for bandwidth.
type Writer struct {
	t      *tier
	key    string
	final  string
	tmp    string
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	f        *os.File
	written  int64
	reserved int64 // capacity held, >= written
	done     bool
}

func newWriter(t *tier, key, final string, f *os.File) *Writer {
	t.wr.begin()
	ctx, cancel := context.WithCancel(context.Background())
	return &Writer{t: t, key: key, final: final, tmp: f.Name(), f: f, ctx: ctx, cancel: cancel}
}

func (w *Writer) errorf(format string, args ...any) error {
	return fmt.Errorf("store: %s %q: "+format, append([]any{w.t.cfg.Kind, w.key}, args...)...)
}

// Written returns the number of bytes written so far.
func (w *Writer) Written() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.written
}

// Reserve makes sure n more bytes will fit in the tier, taking the capacity
// now, so that a writer of known size can fail before writing anything.
func (w *Writer) Reserve(n int64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return w.errorf("%w", ErrWriterDone)
	}
	return w.reserveLocked(n)
}

func (w *Writer) reserveLocked(n int64) error {
	if n < 0 || n > math.MaxInt64-w.written {
		// a size from the network: past int64, written + n would wrap
		// below the capacity check
		return w.errorf("%w: %d more bytes after %d written", ErrNoSpace, n, w.written)
	}
	need := w.written + n - w.reserved
	if need <= 0 {
		return nil
	}
	if err := w.t.reserve(need); err != nil {
		return w.errorf("%w", err)
	}
	w.reserved += need
	return nil
}

// Write appends p to the object, paced by the tier's write bucket. It fails
// without writing anything if p would take the tier past its capacity.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return 0, w.errorf("%w", ErrWriterDone)
	}
	if err := w.reserveLocked(int64(len(p))); err != nil {
		return 0, err
	}
	b := w.t.wr
	total := 0
	for total < len(p) {
		chunk := p[total:]
		if b != nil {
			if len(chunk) > b.chunk {
				chunk = chunk[:b.chunk]
			}
			if err := b.wait(w.ctx, len(chunk)); err != nil {
				if w.ctx.Err() != nil {
					err = errors.New("writer aborted")
				}
				return total, w.errorf("%w", err)
			}
		}
		n, err := w.f.Write(chunk)
		total += n
		w.written += int64(n)
		if err != nil {
			return total, w.errorf("%w", err)
		}
	}
	return total, nil
}

// Commit makes the object visible under its key, atomically replacing any
// object of that key. After a failed Commit the writer is aborted.
func (w *Writer) Commit() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return w.errorf("%w", ErrWriterDone)
	}
	w.done = true
	w.cancel()
	t := w.t
	// On a tier that bypasses the page cache, flush the bytes and drop
	// their pages before the object becomes visible, so that its first
	// reader reads the device. A move reads its copy back before this
	// Commit, so those pages go too.
	err := t.dropPages(w.f, true, fmt.Sprintf("%s %q", t.cfg.Kind, w.key))
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.writers, w)
	if err == nil {
		err = t.mkdirs(w.key)
	}
	if err == nil {
		err = os.Rename(w.tmp, w.final)
	}
	if err != nil {
		os.Remove(w.tmp)
		t.used -= w.reserved
		return w.errorf("commit: %w", err)
	}
	if old, ok := t.objs[w.key]; ok {
		t.used -= old
	}
	t.objs[w.key] = w.written
	t.used += w.written - w.reserved
	return nil
}

// mkdirs creates the parent directories of key, remembering the ones it made
// so that Wipe can remove them. t.mu must be held.
func (t *tier) mkdirs(key string) error {
	var missing []string
	for d := path.Dir(key); d != "."; d = path.Dir(d) {
		fi, err := os.Stat(filepath.Join(t.root, filepath.FromSlash(d)))
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%q is an object, not a directory", d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, d)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		err := os.Mkdir(filepath.Join(t.root, filepath.FromSlash(missing[i])), 0o755)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		t.dirs[missing[i]] = struct{}{}
	}
	return nil
}

// Abort discards the object. It is a no-op after Commit or Abort.
func (w *Writer) Abort() error {
	w.cancel() // wake a Write waiting for tokens
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return nil
	}
	w.done = true
	w.f.Close()
	err := os.Remove(w.tmp)
	t := w.t
	t.mu.Lock()
	delete(t.writers, w)
	t.used -= w.reserved
	t.mu.Unlock()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return w.errorf("abort: %w", err)
	}
	return nil
}
