package store

import (
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
)

// BenchmarkTierRead reads an 8 MiB object over and over from a paced tier
// and reports the measured rate over the configured one (target 1 ± 0.05).
func BenchmarkTierRead(b *testing.B) {
	for _, bps := range []float64{200e6, 50e6} {
		b.Run(fmt.Sprintf("%gMBps", bps/1e6), func(b *testing.B) {
			const size = 8 << 20
			s := openTest(b, TierConfig{Kind: cluster.SSD, ReadBps: bps})
			if _, err := s.Generate(cluster.SSD, "obj", size, 1); err != nil {
				b.Fatal(err)
			}
			read := func(n int64) {
				r, _, err := s.OpenRange(cluster.SSD, "obj", 0, n)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
			read(1 << 20) // drain the bucket
			b.SetBytes(size)
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				read(-1)
			}
			el := time.Since(start)
			b.ReportMetric(float64(size)*float64(b.N)/el.Seconds()/bps, "rate/configured")
		})
	}
}

// BenchmarkTierWrite is BenchmarkTierRead for writes.
func BenchmarkTierWrite(b *testing.B) {
	for _, bps := range []float64{200e6, 50e6} {
		b.Run(fmt.Sprintf("%gMBps", bps/1e6), func(b *testing.B) {
			const size = 8 << 20
			s := openTest(b, TierConfig{Kind: cluster.SSD, WriteBps: bps})
			buf := make([]byte, 1<<20)
			write := func(n int) {
				w, err := s.Create(cluster.SSD, "obj")
				if err != nil {
					b.Fatal(err)
				}
				for n > 0 {
					m, err := w.Write(buf[:min(n, len(buf))])
					if err != nil {
						b.Fatal(err)
					}
					n -= m
				}
				if err := w.Commit(); err != nil {
					b.Fatal(err)
				}
			}
			write(1 << 20)
			b.SetBytes(size)
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				write(size)
			}
			el := time.Since(start)
			b.ReportMetric(float64(size)*float64(b.N)/el.Seconds()/bps, "rate/configured")
		})
	}
}

// BenchmarkGenerate measures Generate on an unlimited tier (target >= 1 GB/s),
// on tmpfs (/dev/shm) where there is one, as in the testbed.
func BenchmarkGenerate(b *testing.B) {
	cfg := TierConfig{Kind: cluster.Mem}
	if d, err := os.MkdirTemp("/dev/shm", "store-bench-"); err == nil {
		defer os.RemoveAll(d)
		cfg.Dir = d
	}
	s := openTest(b, cfg)
	const size = 64 << 20
	b.SetBytes(size)
	for range b.N {
		if _, err := s.Generate(cluster.Mem, "g", size, 7); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenChecksum measures content generation plus checksum, no I/O.
func BenchmarkGenChecksum(b *testing.B) {
	const size = 64 << 20
	b.SetBytes(size)
	for range b.N {
		GenChecksum("g", size, 7)
	}
}
