package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/racklab/racklab/coordinator/cluster"
)

// genBuf is the size of the buffers Generate, Checksum and Verify work in.
const genBuf = 1 << 20

// Content of generated objects. Byte j of the object of (seed, key) is byte
// j%8 (little-endian) of mix64(base + (j/8+1)*gamma), where
// base = mix64(mix64(seed+gamma) ^ fnv1a64(key)): a splitmix64 stream, the
// same on every host and Go version.
const gamma = 0x9E3779B97F4A7C15

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

func fnv1a64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func genBase(seed uint64, key string) uint64 {
	return mix64(mix64(seed+gamma) ^ fnv1a64(key))
}

// fillGen fills b with the generated content starting at word index w
// (byte offset 8*w).
func fillGen(b []byte, base, w uint64) {
	const (
		g  = uint64(gamma)
		g2 = 0x3C6EF372FE94F82A // 2*gamma mod 2^64
		g3 = 0xDAA66D2C7DDF743F // 3*gamma mod 2^64
		g4 = 0x78DDE6E5FD29F054 // 4*gamma mod 2^64
	)
	x := base + (w+1)*g
	for len(b) >= 32 {
		binary.LittleEndian.PutUint64(b[0:8], mix64(x))
		binary.LittleEndian.PutUint64(b[8:16], mix64(x+g))
		binary.LittleEndian.PutUint64(b[16:24], mix64(x+g2))
		binary.LittleEndian.PutUint64(b[24:32], mix64(x+g3))
		x += g4
		b = b[32:]
	}
	for len(b) >= 8 {
		binary.LittleEndian.PutUint64(b, mix64(x))
		x += gamma
		b = b[8:]
	}
	if len(b) > 0 {
		var t [8]byte
		binary.LittleEndian.PutUint64(t[:], mix64(x))
		copy(b, t[:])
	}
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// summer computes the store's 64-bit checksum: the CRC-32 (IEEE) of the
// content in the high half and its CRC-32C (Castagnoli) in the low half.
// Both use the CPU's CRC instructions where it has them.
type summer struct{ ieee, c uint32 }

func (s *summer) Write(p []byte) (int, error) {
	s.ieee = crc32.Update(s.ieee, crc32.IEEETable, p)
	s.c = crc32.Update(s.c, castagnoli, p)
	return len(p), nil
}

func (s *summer) Sum64() uint64 { return uint64(s.ieee)<<32 | uint64(s.c) }

// Sum returns the store's checksum of b, as Checksum computes it.
func Sum(b []byte) uint64 {
	var s summer
	s.Write(b)
	return s.Sum64()
}

// GenChecksum returns the checksum of the object Generate makes for
// (key, size, seed), without any I/O.
func GenChecksum(key string, size int64, seed uint64) uint64 {
	base := genBase(seed, key)
	buf := make([]byte, min(size, genBuf))
	var s summer
	for off := int64(0); off < size; off += genBuf {
		b := buf[:min(size-off, genBuf)]
		fillGen(b, base, uint64(off/8))
		s.Write(b)
	}
	return s.Sum64()
}

// GenContent writes the size bytes Generate would make for (key, seed) to w.
func GenContent(w io.Writer, key string, size int64, seed uint64) error {
	if size < 0 {
		return fmt.Errorf("store: %q: negative size %d", key, size)
	}
	base := genBase(seed, key)
	buf := make([]byte, min(size, genBuf))
	for off := int64(0); off < size; off += genBuf {
		b := buf[:min(size-off, genBuf)]
		fillGen(b, base, uint64(off/8))
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// Generate writes an object of size bytes of pseudo-random content derived
// from (seed, key), paced as a write and checked against the capacity before
// anything is written, and returns its checksum.
func (s *Store) Generate(k cluster.TierKind, key string, size int64, seed uint64) (uint64, error) {
	return s.GenerateContext(context.Background(), k, key, size, seed)
}

// GenerateContext is Generate that cancelling ctx aborts: the write stops
// and nothing is stored. A killed attempt's output and a reset worker's
// materialization must not go on taking the tier's paced write bandwidth
// (seconds on an HDD tier) from the attempts after them.
func (s *Store) GenerateContext(ctx context.Context, k cluster.TierKind, key string, size int64, seed uint64) (uint64, error) {
	if size < 0 {
		return 0, fmt.Errorf("store: %s %q: negative size %d", k, key, size)
	}
	w, err := s.Create(k, key)
	if err != nil {
		return 0, err
	}
	defer w.Abort()
	if err := w.Reserve(size); err != nil {
		return 0, err
	}
	// Abort interrupts a Write waiting for the tier's bandwidth
	stopAbort := context.AfterFunc(ctx, func() { w.Abort() })
	defer stopAbort()
	// One goroutine generates and checksums while this one writes.
	const nbuf = 3
	free := make(chan []byte, nbuf)
	full := make(chan []byte, nbuf)
	for range nbuf {
		free <- make([]byte, min(size, genBuf))
	}
	stop := make(chan struct{})
	var sum summer
	go func() {
		defer close(full)
		base := genBase(seed, key)
		for off := int64(0); off < size; off += genBuf {
			var b []byte
			select {
			case b = <-free:
			case <-stop:
				return
			}
			b = b[:min(size-off, genBuf)]
			fillGen(b, base, uint64(off/8))
			sum.Write(b)
			full <- b // never blocks: only nbuf buffers exist
		}
	}()
	var werr error
	for b := range full {
		if werr == nil {
			if _, werr = w.Write(b); werr != nil {
				close(stop)
			}
		}
		free <- b
	}
	if ctx.Err() != nil {
		return 0, fmt.Errorf("store: %s %q: %w", k, key, ctx.Err())
	}
	if werr != nil {
		return 0, werr
	}
	if err := w.Commit(); err != nil {
		return 0, err
	}
	return sum.Sum64(), nil
}

// Checksum reads an object (paced as a read) and returns its checksum.
func (s *Store) Checksum(k cluster.TierKind, key string) (uint64, error) {
	r, _, err := s.OpenRange(k, key, 0, -1)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var sum summer
	buf := make([]byte, genBuf)
	if _, err := io.CopyBuffer(&sum, onlyReader{r}, buf); err != nil {
		return 0, fmt.Errorf("store: %s %q: %w", k, key, err)
	}
	return sum.Sum64(), nil
}

// onlyReader hides a reader's WriteTo so io.CopyBuffer uses its buffer.
type onlyReader struct{ io.Reader }

// Verify re-reads an object (paced as a read) and checks that it is the
// size bytes Generate makes for (seed, key), naming the first bad offset.
func (s *Store) Verify(k cluster.TierKind, key string, seed uint64, size int64) error {
	r, n, err := s.OpenRange(k, key, 0, -1)
	if err != nil {
		return err
	}
	defer r.Close()
	if n != size {
		return fmt.Errorf("store: verify %s %q: size %d, want %d", k, key, n, size)
	}
	base := genBase(seed, key)
	got := make([]byte, min(size, genBuf))
	want := make([]byte, len(got))
	for off := int64(0); off < size; off += genBuf {
		m := min(size-off, genBuf)
		if _, err := io.ReadFull(r, got[:m]); err != nil {
			return fmt.Errorf("store: verify %s %q: %w", k, key, err)
		}
		fillGen(want[:m], base, uint64(off/8))
		if !bytes.Equal(got[:m], want[:m]) {
			i := 0
			for got[i] == want[i] {
				i++
			}
			return fmt.Errorf("store: verify %s %q: %w at offset %d", k, key, ErrMismatch, off+int64(i))
		}
	}
	return nil
}

// ErrMismatch: Verify found content other than Generate's.
var ErrMismatch = errors.New("content differs from generated")

// StoredChecksum is Checksum read straight from the file, outside the
// tier's rate: for checking what setup wrote, which no task pays for. On
// a tier that bypasses the page cache it drops the pages it read, so the
// first task to read the object still reads the device.
func (s *Store) StoredChecksum(k cluster.TierKind, key string) (uint64, error) {
	t, p, err := s.lookup(k, key)
	if err != nil {
		return 0, err
	}
	f, err := os.Open(p)
	if err != nil {
		return 0, fmt.Errorf("store: %s %q: %w", k, key, err)
	}
	defer f.Close()
	defer t.newUncacher(fmt.Sprintf("%s %q", k, key)).done(f)
	var sum summer
	if _, err := io.CopyBuffer(&sum, onlyReader{f}, make([]byte, genBuf)); err != nil {
		return 0, fmt.Errorf("store: %s %q: %w", k, key, err)
	}
	return sum.Sum64(), nil
}
