package store

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
)

// noTempFiles fails the test if a tier holds a writer's temporary file.
func noTempFiles(t *testing.T, s *Store, k cluster.TierKind) {
	t.Helper()
	tmp, _ := os.ReadDir(filepath.Join(s.tiers[k].root, tmpDirName))
	if len(tmp) != 0 {
		t.Errorf("%s: temp files left: %v", k, tmp)
	}
}

// A move copies the bytes to the destination at the slower tier's rate,
// then removes the source and moves the capacity with it.
func TestMoveBetweenTiers(t *testing.T) {
	const size, seed = 4 << 20, 3
	const hddWrite = 40e6
	s := openTest(t, TierConfig{Kind: cluster.Mem}, TierConfig{Kind: cluster.HDD, ReadBps: 80e6, WriteBps: hddWrite})
	if _, err := s.Generate(cluster.Mem, "ds/x/000001", size, seed); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n, err := s.Move(context.Background(), "ds/x/000001", cluster.Mem, cluster.HDD)
	elapsed := time.Since(start)
	if err != nil || n != size {
		t.Fatalf("Move = %d, %v", n, err)
	}
	// the write bucket holds 20 ms of tokens, and starts empty
	if floor := time.Duration(float64(size) / hddWrite * float64(time.Second)); elapsed < floor-20*time.Millisecond {
		t.Errorf("moved %d bytes in %v, faster than the HDD's write rate allows (%v)", size, elapsed, floor)
	}
	if err := s.Verify(cluster.HDD, "ds/x/000001", seed, size); err != nil {
		t.Errorf("moved content: %v", err)
	}
	if _, err := s.Size(cluster.Mem, "ds/x/000001"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("source after the move: %v, want it gone", err)
	}
	if s.Used(cluster.Mem) != 0 || s.Used(cluster.HDD) != size {
		t.Errorf("Used mem %d hdd %d, want 0 and %d", s.Used(cluster.Mem), s.Used(cluster.HDD), size)
	}
	noTempFiles(t, s, cluster.HDD)
	// and back, through the HDD's read bucket
	if n, err := s.Move(context.Background(), "ds/x/000001", cluster.HDD, cluster.Mem); err != nil || n != size {
		t.Fatalf("Move back = %d, %v", n, err)
	}
	if err := s.Verify(cluster.Mem, "ds/x/000001", seed, size); err != nil {
		t.Errorf("moved back: %v", err)
	}
	if s.Used(cluster.Mem) != size || s.Used(cluster.HDD) != 0 {
		t.Errorf("Used mem %d hdd %d after moving back", s.Used(cluster.Mem), s.Used(cluster.HDD))
	}
	// Wipe still finds the moved object and the directories made for it
	if err := s.Wipe(); err != nil {
		t.Fatal(err)
	}
	for _, k := range s.Tiers() {
		if left, _ := os.ReadDir(s.tiers[k].root); len(left) != 0 {
			t.Errorf("%s after Wipe holds %v", k, left)
		}
	}
}

// A destination without room for the object refuses the move before
// writing anything, and the source stays.
func TestMoveToFullTierFails(t *testing.T) {
	s := openTest(t, TierConfig{Kind: cluster.Mem}, TierConfig{Kind: cluster.HDD, Capacity: 1000})
	put(t, s, cluster.HDD, "other", make([]byte, 600))
	data := bytes.Repeat([]byte("abcd"), 101) // 404 bytes: 4 too many
	put(t, s, cluster.Mem, "ds/a", data)
	if _, err := s.Move(context.Background(), "ds/a", cluster.Mem, cluster.HDD); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("Move to a full tier: %v, want ErrNoSpace", err)
	}
	if got := readRange(t, s, cluster.Mem, "ds/a", 0, -1); !bytes.Equal(got, data) {
		t.Error("the source changed")
	}
	if _, err := s.Size(cluster.HDD, "ds/a"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused move left a copy: %v", err)
	}
	if s.Used(cluster.HDD) != 600 || s.Used(cluster.Mem) != int64(len(data)) {
		t.Errorf("Used hdd %d mem %d", s.Used(cluster.HDD), s.Used(cluster.Mem))
	}
	noTempFiles(t, s, cluster.HDD)
	// exactly full is fine
	s.Remove(cluster.HDD, "other")
	put(t, s, cluster.HDD, "other", make([]byte, 596))
	if _, err := s.Move(context.Background(), "ds/a", cluster.Mem, cluster.HDD); err != nil {
		t.Fatalf("Move to exactly full: %v", err)
	}
}

func TestMoveRefusals(t *testing.T) {
	s := openTest(t, TierConfig{Kind: cluster.Mem}, TierConfig{Kind: cluster.HDD})
	put(t, s, cluster.Mem, "ds/a", []byte("data"))
	foreign := filepath.Join(s.tiers[cluster.Mem].root, "foreign")
	if err := os.WriteFile(foreign, []byte("not ours"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		key      string
		from, to cluster.TierKind
		want     error
	}{
		{"missing key", "ds/none", cluster.Mem, cluster.HDD, fs.ErrNotExist},
		{"directory", "ds", cluster.Mem, cluster.HDD, fs.ErrNotExist},
		{"missing destination tier", "ds/a", cluster.Mem, cluster.SSD, ErrNoTier},
		{"missing source tier", "ds/a", cluster.SSD, cluster.HDD, ErrNoTier},
		{"unknown tier kind", "ds/a", cluster.Mem, cluster.TierKind(200), ErrNoTier},
		{"bad key", "../a", cluster.Mem, cluster.HDD, ErrBadKey},
		{"foreign file", "foreign", cluster.Mem, cluster.HDD, ErrForeign},
	} {
		if _, err := s.Move(ctx, c.key, c.from, c.to); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := s.Move(ctx, "ds/a", cluster.Mem, cluster.Mem); err == nil {
		t.Error("a move onto the same tier was accepted")
	}
	if got := readRange(t, s, cluster.Mem, "ds/a", 0, -1); string(got) != "data" {
		t.Errorf("source now %q", got)
	}
	if b, err := os.ReadFile(foreign); err != nil || string(b) != "not ours" {
		t.Errorf("foreign file: %q, %v", b, err)
	}
	if _, err := s.Size(cluster.HDD, "foreign"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the foreign file was copied: %v", err)
	}
	if s.Used(cluster.HDD) != 0 {
		t.Errorf("Used hdd %d after refusals", s.Used(cluster.HDD))
	}
	noTempFiles(t, s, cluster.HDD)
}

// A reader that opened the source before the move reads all of it; one
// that opens it afterwards finds it on the destination only.
func TestMoveWithOpenReader(t *testing.T) {
	for _, readBps := range []float64{0, 100e6} {
		s := openTest(t, TierConfig{Kind: cluster.Mem, ReadBps: readBps}, TierConfig{Kind: cluster.SSD})
		data := make([]byte, 1<<20)
		for i := range data {
			data[i] = byte(i * 13)
		}
		put(t, s, cluster.Mem, "out/a7", data)
		r, _, err := s.OpenRange(cluster.Mem, "out/a7", 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 1000)
		if _, err := io.ReadFull(r, head); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Move(context.Background(), "out/a7", cluster.Mem, cluster.SSD); err != nil {
			t.Fatalf("read rate %g: %v", readBps, err)
		}
		rest, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(append(head, rest...), data) {
			t.Errorf("read rate %g: the open reader got %d bytes, %v", readBps, len(head)+len(rest), err)
		}
		// a new reader told the old tier finds the object on its new one
		if got := readRange(t, s, cluster.Mem, "out/a7", 0, -1); !bytes.Equal(got, data) {
			t.Errorf("read rate %g: a new reader of the source got other bytes", readBps)
		}
		if _, err := s.Size(cluster.Mem, "out/a7"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("read rate %g: the source is still there: %v", readBps, err)
		}
		if got := readRange(t, s, cluster.SSD, "out/a7", 0, -1); !bytes.Equal(got, data) {
			t.Errorf("read rate %g: destination differs", readBps)
		}
	}
}

// startSlowMove starts moving a 2 MiB object to a 4 MB/s tier (about half
// a second) and returns once the copy is under way.
func startSlowMove(t *testing.T, ctx context.Context) (*Store, <-chan error) {
	t.Helper()
	s := openTest(t, TierConfig{Kind: cluster.Mem}, TierConfig{Kind: cluster.HDD, WriteBps: 4e6})
	if _, err := s.Generate(cluster.Mem, "ds/slow", 2<<20, 1); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Move(ctx, "ds/slow", cluster.Mem, cluster.HDD)
		done <- err
	}()
	for deadline := time.Now().Add(5 * time.Second); s.Used(cluster.HDD) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the move did not start")
		}
	}
	return s, done
}

func waitMove(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the move did not end")
		return nil
	}
}

// A second move of a key being moved is refused; cancelling the first
// leaves the source in place and nothing on the destination.
func TestMoveBusyAndCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, done := startSlowMove(t, ctx)
	if _, err := s.Move(context.Background(), "ds/slow", cluster.Mem, cluster.HDD); !errors.Is(err, ErrMoveBusy) {
		t.Errorf("a concurrent move of the same key: %v, want ErrMoveBusy", err)
	}
	cancel()
	if err := waitMove(t, done); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled move: %v", err)
	}
	if err := s.Verify(cluster.Mem, "ds/slow", 1, 2<<20); err != nil {
		t.Errorf("source after a cancelled move: %v", err)
	}
	if _, err := s.Size(cluster.HDD, "ds/slow"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a cancelled move left a copy: %v", err)
	}
	if s.Used(cluster.HDD) != 0 {
		t.Errorf("Used hdd %d after a cancelled move", s.Used(cluster.HDD))
	}
	noTempFiles(t, s, cluster.HDD)
	// the key is free again
	if _, err := s.Move(context.Background(), "ds/slow", cluster.Mem, cluster.SSD); !errors.Is(err, ErrNoTier) {
		t.Errorf("after the cancelled move: %v", err)
	}
}

// A source replaced while it is being copied is left alone, and the stale
// copy is discarded.
func TestMoveSourceReplaced(t *testing.T) {
	s, done := startSlowMove(t, context.Background())
	put(t, s, cluster.Mem, "ds/slow", []byte("recomputed"))
	if err := waitMove(t, done); !errors.Is(err, ErrSourceChanged) {
		t.Fatalf("move of a replaced source: %v, want ErrSourceChanged", err)
	}
	if got := readRange(t, s, cluster.Mem, "ds/slow", 0, -1); string(got) != "recomputed" {
		t.Errorf("source now %q", got)
	}
	if _, err := s.Size(cluster.HDD, "ds/slow"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the stale copy stayed: %v", err)
	}
	if s.Used(cluster.HDD) != 0 || s.Used(cluster.Mem) != int64(len("recomputed")) {
		t.Errorf("Used hdd %d mem %d", s.Used(cluster.HDD), s.Used(cluster.Mem))
	}
}

// A Wipe during a move aborts it.
func TestWipeAbortsMove(t *testing.T) {
	s, done := startSlowMove(t, context.Background())
	if err := s.Wipe(); err != nil {
		t.Fatal(err)
	}
	if err := waitMove(t, done); err == nil {
		t.Fatal("a move survived a Wipe")
	}
	for _, k := range s.Tiers() {
		if s.Used(k) != 0 {
			t.Errorf("Used %s %d after Wipe", k, s.Used(k))
		}
	}
}

// A reader told the tier an object was on before a move took it away
// reads it where it is now; a key on no tier is still not found.
func TestReadAfterMoveFindsTheNewTier(t *testing.T) {
	const size, seed = 1 << 20, 5
	s := openTest(t, TierConfig{Kind: cluster.Mem}, TierConfig{Kind: cluster.HDD})
	if _, err := s.Generate(cluster.HDD, "ds/x/000002", size, seed); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Move(context.Background(), "ds/x/000002", cluster.HDD, cluster.Mem); err != nil {
		t.Fatal(err)
	}
	r, n, err := s.OpenRange(cluster.HDD, "ds/x/000002", 0, -1)
	if err != nil || n != size {
		t.Fatalf("OpenRange on the old tier = %d, %v", n, err)
	}
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || int64(len(got)) != size {
		t.Fatalf("read %d bytes, %v", len(got), err)
	}
	if _, _, err := s.OpenRange(cluster.HDD, "ds/x/none", 0, -1); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing key: %v, want not found", err)
	}
}
