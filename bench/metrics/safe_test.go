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

// RunSink.Finish writes summary.csv only once the records it sums up
// are out of the recorder's buffers: before, a run killed between
// Finish and Close left a summary.csv beside a links.csv without the
// samples since the last job's end.
func TestRunSinkFinishFlushesRecordsFirst(t *testing.T) {
	dir := t.TempDir()
	sink, err := NewRunSink(dir, &workload.Workload{}, "fifo", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	if err := sink.LinkSample(10, []float64{0.5}, []float64{0.25}); err != nil {
		t.Fatal(err)
	}
	if err := sink.Finish(nil, []float64{1}, []float64{1}); err != nil {
		t.Fatal(err)
	}
	// what a kill now would leave: the files as they are on disk
	b, err := os.ReadFile(filepath.Join(dir, "links.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "time_s,direction,rack,utilisation\n10.000000,up,0,0.500000\n10.000000,down,0,0.250000\n"; string(b) != want {
		t.Errorf("links.csv beside summary.csv: %q, want %q", b, want)
	}
}
