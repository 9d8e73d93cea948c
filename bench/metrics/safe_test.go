package metrics

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/racklab/racklab/coordinator/workload"
)

// Links planted at a run's record files or at summary.csv do not lead
// the writes outside the directory.
func TestRecordsDoNotFollowPlantedLinks(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range append([]string{"summary.csv"}, RecordFiles...) {
		if err := os.Symlink(outside, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := NewRecorder(dir, &workload.Workload{})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.LinkSample(1, []float64{0.5}, []float64{0.25}); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummaries(filepath.Join(dir, "summary.csv"), []Summary{{Policy: "fifo"}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "outside" {
		t.Fatalf("a record was written outside: %q", b)
	}
	for _, name := range append([]string{"summary.csv"}, RecordFiles...) {
		if st, err := os.Lstat(filepath.Join(dir, name)); err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s: %v %v", name, st, err)
		}
	}
}
