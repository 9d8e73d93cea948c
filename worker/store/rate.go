package store

import (
	"context"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxChunk is the largest amount a paced reader or writer moves per wait.
const maxChunk = 128 << 10

// bucket emulates the bandwidth of one direction of a tier. A nil *bucket is
// unlimited.
type bucket struct {
	lim   *rate.Limiter
	chunk int // bytes per wait; <= the limiter's burst
}

// newBucket returns a token bucket of bps bytes per second, or nil for 0.
//
// Waiters take tokens a chunk at a time: 20 ms of transfer, 4 KiB to 128 KiB.
// The bucket holds 20 ms of tokens (rate/50, and at least one chunk): enough
// that a waiter woken late by the timer (p99 ~10 ms on a busy 2-core VM)
// loses no bandwidth, and small enough that a transfer starting after an
// idle period gets at most 20 ms of it free. It starts empty.
func newBucket(bps float64) *bucket {
	if bps <= 0 {
		return nil
	}
	chunk := clampInt(int(bps*bucketSlack), 4<<10, maxChunk)
	burst := max(chunk, int(bps*bucketSlack))
	lim := rate.NewLimiter(rate.Limit(bps), burst)
	lim.AllowN(time.Now(), burst) // start empty: no free burst on first use
	return &bucket{lim: lim, chunk: chunk}
}

// begin is called as a transfer starts. A bucket that has filled up is one
// nobody drew from for 20 ms: its tier was idle. It is emptied, so that a
// transfer starting on an idle tier moves at the tier's rate from its
// first byte, as on the device it emulates, instead of getting its first
// 20 ms free (a 16 MiB read from a 200 MB/s HDD took 0.064 s instead of
// 0.084 s: docs/fidelity.md). A bucket being drawn from is never full, so
// running transfers keep the slack that covers a waiter woken late.
func (b *bucket) begin() { b.beginAt(time.Now()) }

func (b *bucket) beginAt(now time.Time) {
	if b == nil {
		return
	}
	if burst := b.lim.Burst(); b.lim.TokensAt(now) >= float64(burst) {
		b.lim.AllowN(now, burst)
	}
}

// bucketSlack is the time's worth of tokens a bucket holds.
const bucketSlack = 0.020

func clampInt(v, lo, hi int) int { return max(lo, min(v, hi)) }

// wait blocks until n <= b.chunk bytes may move, or ctx is done.
func (b *bucket) wait(ctx context.Context, n int) error {
	return b.lim.WaitN(ctx, n)
}

// pacedSection is a range of a file read through a tier's read bucket.
type pacedSection struct {
	f      *os.File
	pos    int64
	remain int64
	b      *bucket
	ctx    context.Context
	cancel context.CancelFunc
	unc    *uncacher // drops the file's pages on Close; nil: keep them
}

func newPacedSection(f *os.File, off, n int64, b *bucket, unc *uncacher) *pacedSection {
	b.begin()
	ctx, cancel := context.WithCancel(context.Background())
	return &pacedSection{f: f, pos: off, remain: n, b: b, ctx: ctx, cancel: cancel, unc: unc}
}

func (s *pacedSection) Read(p []byte) (int, error) {
	if s.remain <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), int64(s.b.chunk), s.remain)
	if k == 0 {
		return 0, nil
	}
	if err := s.b.wait(s.ctx, int(k)); err != nil {
		if s.ctx.Err() != nil {
			return 0, os.ErrClosed
		}
		return 0, err
	}
	n, err := s.f.ReadAt(p[:k], s.pos)
	s.pos += int64(n)
	s.remain -= int64(n)
	if err == io.EOF {
		if int64(n) == k {
			err = nil
		} else {
			err = io.ErrUnexpectedEOF // the file shrank under us
		}
	}
	return n, err
}

var chunkPool = sync.Pool{New: func() any { b := make([]byte, maxChunk); return &b }}

// WriteTo copies the rest of the section to w a chunk at a time.
func (s *pacedSection) WriteTo(w io.Writer) (int64, error) {
	bp := chunkPool.Get().(*[]byte)
	defer chunkPool.Put(bp)
	buf := *bp
	var total int64
	for s.remain > 0 {
		n, err := s.Read(buf)
		if n > 0 {
			m, werr := w.Write(buf[:n])
			total += int64(m)
			if werr != nil {
				return total, werr
			}
			if m < n {
				return total, io.ErrShortWrite
			}
		}
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

func (s *pacedSection) Close() error {
	s.cancel()
	s.unc.done(s.f)
	return s.f.Close()
}
