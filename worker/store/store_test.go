package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
)

func openTest(t testing.TB, cfgs ...TierConfig) *Store {
	t.Helper()
	dir := t.TempDir()
	for i := range cfgs {
		if cfgs[i].Dir == "" {
			cfgs[i].Dir = filepath.Join(dir, cfgs[i].Kind.String())
		}
	}
	s, err := Open(cfgs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func put(t testing.TB, s *Store, k cluster.TierKind, key string, data []byte) {
	t.Helper()
	w, err := s.Create(k, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

func readRange(t testing.TB, s *Store, k cluster.TierKind, key string, off, n int64) []byte {
	t.Helper()
	r, l, err := s.OpenRange(k, key, off, n)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if _, err := io.Copy(&b, r); err != nil {
		t.Fatal(err)
	}
	if int64(b.Len()) != l {
		t.Fatalf("read %d bytes, OpenRange said %d", b.Len(), l)
	}
	return b.Bytes()
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	for _, tc := range []struct {
		cfgs []TierConfig
		want string
	}{
		{nil, "no tiers"},
		{[]TierConfig{{Kind: cluster.SSD, Dir: filepath.Join(file, "x")}}, "tier ssd"},
		{[]TierConfig{{Kind: cluster.Mem, Dir: dir}, {Kind: cluster.Mem, Dir: dir}}, "tier mem configured twice"},
		{[]TierConfig{{Kind: cluster.HDD}}, "tier hdd: no directory"},
		{[]TierConfig{{Kind: cluster.HDD, Dir: dir, ReadBps: -1}}, "tier hdd: rates"},
		{[]TierConfig{{Kind: 7, Dir: dir}}, "unknown tier kind"},
	} {
		_, err := Open(tc.cfgs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%+v) = %v, want error containing %q", tc.cfgs, err, tc.want)
		}
	}
	s := openTest(t, TierConfig{Kind: cluster.HDD}, TierConfig{Kind: cluster.Mem})
	if got := s.Tiers(); len(got) != 2 || got[0] != cluster.Mem || got[1] != cluster.HDD {
		t.Errorf("Tiers = %v", got)
	}
	if !s.Has(cluster.HDD) || s.Has(cluster.SSD) || s.Has(200) {
		t.Error("Has is wrong")
	}
	if _, err := s.Create(cluster.SSD, "a"); !errors.Is(err, ErrNoTier) {
		t.Errorf("Create on missing tier: %v", err)
	}
}

func TestRoundTripAndRanges(t *testing.T) {
	for _, bps := range []float64{0, 50e6} {
		s := openTest(t, TierConfig{Kind: cluster.SSD, ReadBps: bps, WriteBps: bps})
		data := make([]byte, 300_001)
		for i := range data {
			data[i] = byte(i * 7)
		}
		put(t, s, cluster.SSD, "ds/logs/000017", data)
		if n, err := s.Size(cluster.SSD, "ds/logs/000017"); err != nil || n != int64(len(data)) {
			t.Fatalf("Size = %d, %v", n, err)
		}
		for _, r := range [][2]int64{{0, -1}, {0, 10}, {5, 200_000}, {300_000, 1}, {300_001, 0}, {300_001, -1}, {12345, -1}} {
			got := readRange(t, s, cluster.SSD, "ds/logs/000017", r[0], r[1])
			end := int64(len(data))
			if r[1] >= 0 {
				end = r[0] + r[1]
			}
			if !bytes.Equal(got, data[r[0]:end]) {
				t.Errorf("bps %g range %v: wrong bytes", bps, r)
			}
		}
		for _, r := range [][2]int64{{-1, 1}, {300_002, -1}, {300_000, 2}, {0, 1 << 62}} {
			if _, _, err := s.OpenRange(cluster.SSD, "ds/logs/000017", r[0], r[1]); !errors.Is(err, ErrRange) {
				t.Errorf("range %v: err %v, want ErrRange", r, err)
			}
		}
		if _, _, err := s.OpenRange(cluster.SSD, "ds/nope", 0, -1); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("missing key: %v", err)
		}
		if _, err := s.Size(cluster.SSD, "ds/logs"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Size of directory: %v", err)
		}
		if err := s.Remove(cluster.SSD, "ds/logs/000017"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Size(cluster.SSD, "ds/logs/000017"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("after Remove: %v", err)
		}
		if s.Used(cluster.SSD) != 0 {
			t.Errorf("Used after Remove = %d", s.Used(cluster.SSD))
		}
	}
}

func TestUnlimitedReaderIsFileSection(t *testing.T) {
	s := openTest(t, TierConfig{Kind: cluster.Mem})
	put(t, s, cluster.Mem, "a", []byte("hello world"))
	r, _, err := s.OpenRange(cluster.Mem, "a", 6, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, ok := r.(*fileSection); !ok {
		t.Fatalf("unlimited tier reader is %T, want *fileSection", r)
	}
	// Writing to an *os.File exercises the LimitedReader-of-*os.File path
	// that sendfile/copy_file_range take.
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if n, err := io.Copy(out, r); err != nil || n != 5 {
		t.Fatalf("copy = %d, %v", n, err)
	}
	got, _ := os.ReadFile(out.Name())
	if string(got) != "world" {
		t.Errorf("got %q", got)
	}
}

func TestBadKeys(t *testing.T) {
	s := openTest(t, TierConfig{Kind: cluster.Mem})
	for _, k := range []string{"", "/etc/passwd", "..", "../x", "a/../../x", "a/..", "a..b", "a//b", "a/./b", "./a", "a/", ".racklab-tmp/x", "a/.hidden", "a\\b", "a\x00b", strings.Repeat("k", MaxKeyLen+1)} {
		_, err := s.Create(cluster.Mem, k)
		if !errors.Is(err, ErrBadKey) {
			t.Errorf("Create(%q) = %v, want ErrBadKey", k, err)
			continue
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("%q", k)) {
			t.Errorf("error %q does not name the key %q", err, k)
		}
		if _, _, err := s.OpenRange(cluster.Mem, k, 0, -1); !errors.Is(err, ErrBadKey) {
			t.Errorf("OpenRange(%q) = %v", k, err)
		}
		if err := s.Remove(cluster.Mem, k); !errors.Is(err, ErrBadKey) {
			t.Errorf("Remove(%q) = %v", k, err)
		}
	}
	for _, k := range []string{"a", "ds/logs/000017", "out/a1234", "x.y/z-1_2"} {
		if err := ValidKey(k); err != nil {
			t.Errorf("ValidKey(%q) = %v", k, err)
		}
	}
}

func TestCommitAbortAtomicity(t *testing.T) {
	s := openTest(t, TierConfig{Kind: cluster.SSD})
	w, err := s.Create(cluster.SSD, "out/a1")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("partial"))
	if _, err := s.Size(cluster.SSD, "out/a1"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("object visible before Commit: %v", err)
	}
	if w.Written() != 7 || s.Used(cluster.SSD) != 7 {
		t.Errorf("Written %d Used %d", w.Written(), s.Used(cluster.SSD))
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := readRange(t, s, cluster.SSD, "out/a1", 0, -1); string(got) != "partial" {
		t.Errorf("got %q", got)
	}
	if err := w.Abort(); err != nil {
		t.Errorf("Abort after Commit: %v", err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, ErrWriterDone) {
		t.Errorf("Write after Commit: %v", err)
	}
	if err := w.Commit(); !errors.Is(err, ErrWriterDone) {
		t.Errorf("second Commit: %v", err)
	}

	// Overwrite: the old content stays until the new one commits.
	w2, _ := s.Create(cluster.SSD, "out/a1")
	w2.Write([]byte("replacement!"))
	if got := readRange(t, s, cluster.SSD, "out/a1", 0, -1); string(got) != "partial" {
		t.Errorf("before commit got %q", got)
	}
	if err := w2.Abort(); err != nil {
		t.Fatal(err)
	}
	if got := readRange(t, s, cluster.SSD, "out/a1", 0, -1); string(got) != "partial" {
		t.Errorf("after abort got %q", got)
	}
	if s.Used(cluster.SSD) != 7 {
		t.Errorf("Used after abort = %d", s.Used(cluster.SSD))
	}
	w3, _ := s.Create(cluster.SSD, "out/a1")
	w3.Write([]byte("replacement!"))
	w3.Commit()
	if got := readRange(t, s, cluster.SSD, "out/a1", 0, -1); string(got) != "replacement!" {
		t.Errorf("after replace got %q", got)
	}
	if s.Used(cluster.SSD) != 12 {
		t.Errorf("Used after replace = %d", s.Used(cluster.SSD))
	}
	tmp, _ := os.ReadDir(filepath.Join(s.tiers[cluster.SSD].root, tmpDirName))
	if len(tmp) != 0 {
		t.Errorf("temp files left: %v", tmp)
	}
}

func TestCapacity(t *testing.T) {
	s := openTest(t, TierConfig{Kind: cluster.Mem, Capacity: 1000})
	put(t, s, cluster.Mem, "a", make([]byte, 600))
	w, _ := s.Create(cluster.Mem, "b")
	if _, err := w.Write(make([]byte, 300)); err != nil {
		t.Fatal(err)
	}
	n, err := w.Write(make([]byte, 101))
	if !errors.Is(err, ErrNoSpace) || n != 0 {
		t.Fatalf("Write past capacity = %d, %v", n, err)
	}
	if !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("error does not name the key: %v", err)
	}
	if _, err := w.Write(make([]byte, 100)); err != nil {
		t.Fatalf("Write to exactly full: %v", err)
	}
	w.Abort()
	if s.Used(cluster.Mem) != 600 {
		t.Errorf("Used = %d", s.Used(cluster.Mem))
	}
	if _, err := s.Generate(cluster.Mem, "g", 401, 1); !errors.Is(err, ErrNoSpace) {
		t.Errorf("Generate past capacity: %v", err)
	}
	if _, err := s.Size(cluster.Mem, "g"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("refused Generate left an object: %v", err)
	}
	if _, err := s.Generate(cluster.Mem, "g", 400, 1); err != nil {
		t.Errorf("Generate to full: %v", err)
	}
	s.Remove(cluster.Mem, "a")
	if s.Used(cluster.Mem) != 400 {
		t.Errorf("Used = %d", s.Used(cluster.Mem))
	}
}

func TestGenerateDeterministic(t *testing.T) {
	a := openTest(t, TierConfig{Kind: cluster.Mem}, TierConfig{Kind: cluster.HDD})
	b := openTest(t, TierConfig{Kind: cluster.HDD, WriteBps: 500e6})
	for _, size := range []int64{0, 1, 7, 8, 9, genBuf - 3, genBuf, 3*genBuf + 5} {
		ca, err := a.Generate(cluster.Mem, "ds/x/1", size, 42)
		if err != nil {
			t.Fatal(err)
		}
		cb, err := b.Generate(cluster.HDD, "ds/x/1", size, 42)
		if err != nil {
			t.Fatal(err)
		}
		if ca != cb || ca != GenChecksum("ds/x/1", size, 42) {
			t.Errorf("size %d: checksums differ: %x %x %x", size, ca, cb, GenChecksum("ds/x/1", size, 42))
		}
		da := readRange(t, a, cluster.Mem, "ds/x/1", 0, -1)
		db := readRange(t, b, cluster.HDD, "ds/x/1", 0, -1)
		if !bytes.Equal(da, db) || int64(len(da)) != size {
			t.Errorf("size %d: contents differ", size)
		}
		if Sum(da) != ca {
			t.Errorf("size %d: Sum differs", size)
		}
		if c, err := a.Checksum(cluster.Mem, "ds/x/1"); err != nil || c != ca {
			t.Errorf("size %d: Checksum = %x, %v, want %x", size, c, err, ca)
		}
		if err := b.Verify(cluster.HDD, "ds/x/1", 42, size); err != nil {
			t.Errorf("size %d: %v", size, err)
		}
		var buf bytes.Buffer
		GenContent(&buf, "ds/x/1", size, 42)
		if !bytes.Equal(buf.Bytes(), da) {
			t.Errorf("size %d: GenContent differs", size)
		}
	}
	// Different seed or key: different content.
	a.Generate(cluster.HDD, "ds/x/1", 4096, 43)
	a.Generate(cluster.HDD, "ds/x/2", 4096, 42)
	c1, _ := a.Checksum(cluster.HDD, "ds/x/1")
	c2, _ := a.Checksum(cluster.HDD, "ds/x/2")
	if c1 == c2 || c1 == GenChecksum("ds/x/1", 4096, 42) {
		t.Error("seed/key do not change the content")
	}
	if err := a.Verify(cluster.HDD, "ds/x/1", 42, 4096); !errors.Is(err, ErrMismatch) {
		t.Errorf("Verify with wrong seed: %v", err)
	}
	if err := a.Verify(cluster.HDD, "ds/x/1", 43, 4095); err == nil {
		t.Error("Verify with wrong size passed")
	}
	// A known value pins the content across versions.
	if got := GenChecksum("ds/logs/000017", 1<<20, 1); got != pinnedChecksum {
		t.Errorf("GenChecksum changed: %#x", got)
	}
}

const pinnedChecksum = 0x268f964f7499c07f

func TestWipe(t *testing.T) {
	s := openTest(t, TierConfig{Kind: cluster.Mem}, TierConfig{Kind: cluster.SSD, WriteBps: 1e6})
	root := s.tiers[cluster.Mem].root
	os.WriteFile(filepath.Join(root, "foreign"), []byte("not ours"), 0o644)
	put(t, s, cluster.Mem, "ds/logs/000017", []byte("x"))
	put(t, s, cluster.Mem, "out/a1234", []byte("y"))
	put(t, s, cluster.SSD, "a/b/c/d", []byte("z"))
	s.Generate(cluster.SSD, "g", 1000, 3)
	open, _ := s.Create(cluster.Mem, "open/one")
	open.Write([]byte("pending"))
	// A writer blocked on the slow tier's bucket is interrupted.
	slow, _ := s.Create(cluster.SSD, "slow")
	done := make(chan error, 1)
	go func() { _, err := slow.Write(make([]byte, 10<<20)); done <- err }()
	time.Sleep(50 * time.Millisecond)
	if err := s.Wipe(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("blocked Write succeeded after Wipe")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Wipe did not interrupt a blocked Write")
	}
	if err := open.Commit(); err == nil {
		t.Error("Commit after Wipe succeeded")
	}
	ents, _ := os.ReadDir(root)
	if len(ents) != 1 || ents[0].Name() != "foreign" {
		t.Errorf("mem tier after Wipe: %v", ents)
	}
	ents, _ = os.ReadDir(s.tiers[cluster.SSD].root)
	if len(ents) != 0 {
		t.Errorf("ssd tier after Wipe: %v", ents)
	}
	if s.Used(cluster.Mem) != 0 || s.Used(cluster.SSD) != 0 {
		t.Errorf("Used after Wipe: %d %d", s.Used(cluster.Mem), s.Used(cluster.SSD))
	}
	// The store still works after Wipe.
	put(t, s, cluster.Mem, "ds/logs/000017", []byte("again"))
}

func TestPacedReadNotTooFast(t *testing.T) {
	// Loose bounds only: a paced transfer must not beat 80% of its
	// configured time. Accuracy is measured by BenchmarkTierRead.
	const size = 8 << 20
	const bps = 64 << 20 // 8 MiB at 64 MiB/s: 125 ms
	s := openTest(t, TierConfig{Kind: cluster.SSD, ReadBps: bps, WriteBps: bps})
	want := time.Duration(float64(size) / bps * float64(time.Second))
	start := time.Now()
	if _, err := s.Generate(cluster.SSD, "a", size, 1); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < want*8/10 {
		t.Errorf("write of %d bytes at %d B/s took %v, want >= %v", size, bps, d, want*8/10)
	}
	// After idling, the bucket is full, and emptied as the read starts
	// (bucket.begin): the read takes its whole time.
	start = time.Now()
	readRange(t, s, cluster.SSD, "a", 0, -1)
	if d := time.Since(start); d < want*8/10 {
		t.Errorf("read took %v, want >= %v", d, want*8/10)
	}
	// Two concurrent readers share the tier's bandwidth.
	start = time.Now()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { readRange(t, s, cluster.SSD, "a", 0, -1) })
	}
	wg.Wait()
	if d := time.Since(start); d < 2*want*8/10 {
		t.Errorf("two concurrent reads took %v, want >= %v", d, 2*want*8/10)
	}
}

func TestCloseInterruptsPacedRead(t *testing.T) {
	s := openTest(t, TierConfig{Kind: cluster.HDD, ReadBps: 1 << 20})
	put(t, s, cluster.HDD, "a", make([]byte, 8<<20))
	r, _, err := s.OpenRange(cluster.HDD, "a", 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, r); done <- err }()
	time.Sleep(100 * time.Millisecond)
	r.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("read of a closed reader succeeded")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close did not interrupt the read")
	}
}

// StoredChecksum reads what is on the tier: a block damaged after it was
// written no longer matches the checksum Generate returned.
func TestStoredChecksumSeesDamage(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, TierConfig{Kind: cluster.HDD, Dir: dir, ReadBps: 1e6})
	sum, err := s.Generate(cluster.HDD, "ds/x/000001", 8<<20, 9)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := s.StoredChecksum(cluster.HDD, "ds/x/000001")
	if err != nil || got != sum {
		t.Fatalf("stored checksum %x (%v), written %x", got, err, sum)
	}
	if d := time.Since(start); d > 4*time.Second { // paced, it would take 8 s
		t.Fatalf("reading back 8 MiB took %v: it went through the 1 MB/s tier limit", d)
	}
	f, err := os.OpenFile(filepath.Join(dir, "ds", "x", "000001"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{0xff, 0xfe}, 1<<20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got, _ := s.StoredChecksum(cluster.HDD, "ds/x/000001"); got == sum {
		t.Fatal("a damaged block still has its written checksum")
	}
}

// RemoveObjects clears what a dead worker left in a tier directory, and
// only that: other data in the directory stays.
func TestRemoveObjectsKeepsOtherData(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, TierConfig{Kind: cluster.SSD, Dir: dir})
	for _, key := range []string{"ds/logs/000001", "out/a7"} {
		if _, err := s.Generate(cluster.SSD, key, 1000, 1); err != nil {
			t.Fatal(err)
		}
	}
	w, err := s.Create(cluster.SSD, "out/a8") // a writer that never finished
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("partial")); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "someone-elses.data")
	if err := os.WriteFile(other, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := RemoveObjects(dir, "ds", "out")
	if err != nil || n != 3 {
		t.Fatalf("removed %d files (%v), want the 2 objects and the temporary file", n, err)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 || left[0].Name() != "someone-elses.data" {
		t.Fatalf("left %v, want only the other data", left)
	}
	if _, err := RemoveObjects(dir, "../etc"); err == nil {
		t.Fatal("a namespace reaching out of the directory was accepted")
	}
}

// A transfer that starts on an idle tier starts with an empty bucket: no
// free burst (bucket.begin). One that starts while another draws from the
// bucket leaves the tokens there. Clock-free: the bucket is asked at
// chosen instants.
func TestTransferOnIdleTierStartsEmpty(t *testing.T) {
	b := newBucket(200e6)
	burst := float64(b.lim.Burst())
	idle := time.Now().Add(time.Second) // a second later: the bucket has refilled
	if got := b.lim.TokensAt(idle); got < burst {
		t.Fatalf("an idle bucket holds %.0f tokens, want its burst %.0f", got, burst)
	}
	b.beginAt(idle)
	if got := b.lim.TokensAt(idle); got > 1 {
		t.Errorf("a transfer starting on an idle tier finds %.0f tokens (%.1f ms free), want none", got, got/200e6*1e3)
	}
	// busy: a transfer drew half the burst a moment ago
	busy := idle.Add(time.Second)
	b.lim.AllowN(busy, int(burst/2))
	before := b.lim.TokensAt(busy)
	b.beginAt(busy)
	if got := b.lim.TokensAt(busy); got != before {
		t.Errorf("a transfer starting beside a running one took the bucket from %.0f to %.0f tokens, want it untouched", before, got)
	}
}

// A reservation of a size near int64's limit (a PUT's length comes from
// the network) is refused, and leaves the tier's accounting as it was:
// before, used + n wrapped below the capacity and used went negative,
// and every writer after it ignored the capacity.
func TestReserveNearInt64LimitRefused(t *testing.T) {
	for _, capacity := range []int64{1 << 20, 0} {
		s := openTest(t, TierConfig{Kind: cluster.Mem, Capacity: capacity})
		put(t, s, cluster.Mem, "a/one", make([]byte, 1000))
		w, err := s.Create(cluster.Mem, "a/huge")
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int64{math.MaxInt64, math.MaxInt64 - 500, -1} {
			if err := w.Reserve(n); !errors.Is(err, ErrNoSpace) {
				t.Errorf("capacity %d: Reserve(%d): %v, want ErrNoSpace", capacity, n, err)
			}
		}
		if got := s.Used(cluster.Mem); got != 1000 {
			t.Errorf("capacity %d: used %d after the refused reservations, want 1000", capacity, got)
		}
		w.Abort()
	}
	var b bytes.Buffer
	if err := GenContent(&b, "k", -1, 1); err == nil {
		t.Error("GenContent of a negative size: no error")
	}
}

// Cancelling a generation stops its paced write at once and stores
// nothing: a killed attempt's output (4 MiB at 1 MiB/s here) must not go
// on taking the tier's bandwidth from the attempts after it.
func TestGenerateContextCancelled(t *testing.T) {
	s := openTest(t, TierConfig{Kind: cluster.HDD, WriteBps: 1 << 20, Cache: CacheKeep})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := s.GenerateContext(ctx, cluster.HDD, "out/k", 4<<20, 1)
	if took := time.Since(t0); took > 2*time.Second {
		t.Errorf("the cancelled generation returned after %v", took)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	if _, err := s.Size(cluster.HDD, "out/k"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the cancelled object is there: %v", err)
	}
	if used := s.Used(cluster.HDD); used != 0 {
		t.Errorf("used %d after the cancelled generation", used)
	}
}
