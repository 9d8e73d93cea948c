package live

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
)

// jobKeepingSink is bench's RunSink that also keeps the job records.
type jobKeepingSink struct {
	*metrics.RunSink
	mu   sync.Mutex
	jobs []engine.JobRecord
}

func (s *jobKeepingSink) Job(r *engine.JobRecord) error {
	s.mu.Lock()
	s.jobs = append(s.jobs, *r)
	s.mu.Unlock()
	return s.RunSink.Job(r)
}

// A live run's jobs.csv gives each job's shuffle Skew and duplicates, from
// the engine's per-job counts, and its summary.csv Shadow's Skew over the
// bytes the kernel counted on each rack link since the run started: here
// fake counters that read 10 bytes on every link at the start and then
// 300 and 50 up, 0 and 100 down: 300/50.
func TestLiveShuffleSkewAndDuplicates(t *testing.T) {
	topo := memTopology(t, 2, 1)
	// three maps on two hosts of two slots: the host that gets the third
	// has a slot left for dupfifo's duplicate in the same offer
	ds, err := workload.ParseDatasets("ds", []byte("block_size_bytes: 1048576\nreplication: 2\ndatasets:\n  - {name: in, size_bytes: 3145728}\n"), topo)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.ParseWorkloadFor("wl", []byte(smallJob), ds)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := wire.NewCredentials(hostNames(topo))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	rs, err := metrics.NewRunSink(out, w, "dupfifo", 1)
	if err != nil {
		t.Fatal(err)
	}
	sink := &jobKeepingSink{RunSink: rs}
	var mu sync.Mutex
	reads := 0
	counters := func() ([]float64, []float64, error) {
		mu.Lock()
		defer mu.Unlock()
		reads++
		if reads == 1 {
			return []float64{10, 10}, []float64{10, 10}, nil
		}
		return []float64{310, 60}, []float64{10, 110}, nil
	}
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "dupfifo", PolicyImpl: &dupfifo{}, Seed: 1, Cluster: "skew",
		Listen: "127.0.0.1:0", Creds: creds, OutDir: out, StopWorkers: true, Sink: sink, Logf: t.Logf, Counters: counters}
	cfg.OnListening = func(u string) { startWorkers(t, topo, u, creds, "skew") }
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	s := sink.Summary
	if s.RackLinkSkew != 6 || s.LinkSkew != 2 {
		t.Errorf("rack-link skew %g, link skew %g: want 6 (300/50) and 2 (300/150)", s.RackLinkSkew, s.LinkSkew)
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.jobs) != 1 || sink.jobs[0].State != engine.JobSucceeded {
		t.Fatalf("job records %+v, want one job succeeded", sink.jobs)
	}
	j := sink.jobs[0]
	var up, down int64
	for r := range j.ShuffleUp {
		up += j.ShuffleUp[r]
		down += j.ShuffleDown[r]
	}
	t.Logf("shuffle up %v down %v, duplicates %d used %d", j.ShuffleUp, j.ShuffleDown, j.Duplicates, j.DuplicatesUsed)
	// dupfifo duplicates maps only: every cross-rack fetch is shuffle
	if cross := s.Bytes[engine.ClassShuffle][engine.LevelCross]; up != cross || down != cross {
		t.Errorf("the job put %d bytes on uplinks and %d on downlinks, cross_shuffle_bytes %d", up, down, cross)
	}
	if int64(j.Duplicates) != s.Duplicates || int64(j.DuplicatesUsed) != s.DuplicatesUsed || j.Duplicates == 0 {
		t.Errorf("the job's duplicates %d (used %d), the run's %d (%d): want the same, some", j.Duplicates, j.DuplicatesUsed, s.Duplicates, s.DuplicatesUsed)
	}
	f, err := os.Open(filepath.Join(out, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("jobs.csv: %d rows, %v", len(rows), err)
	}
	cell := func(col string) string { return rows[1][slices.Index(rows[0], col)] }
	skew, crossShuffle := metrics.JobShuffleSkew(&j)
	if got, _ := strconv.ParseFloat(cell("shuffle_skew"), 64); got != skew || cell("duplicates") != strconv.Itoa(j.Duplicates) || cell("duplicates_used") != strconv.Itoa(j.DuplicatesUsed) {
		t.Errorf("jobs.csv: shuffle_skew %s, duplicates %s, used %s; want %g, %d, %d",
			cell("shuffle_skew"), cell("duplicates"), cell("duplicates_used"), skew, j.Duplicates, j.DuplicatesUsed)
	}
	if crossShuffle != (up > 0) || crossShuffle != (s.ShuffleSkewMean == skew) {
		t.Errorf("cross-rack shuffle %v (%d bytes): shuffle_skew_mean %g, the job's skew %g", crossShuffle, up, s.ShuffleSkewMean, skew)
	}
}
