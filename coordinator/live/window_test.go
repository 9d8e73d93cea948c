package live

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/racklab/racklab/bench/metrics"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/worker/agent"
	"github.com/racklab/racklab/worker/store"
)

// A window ends a run that would take far longer: eight 1 MiB maps read
// at 0.1 MB/s on four slots take two waves of 10 s; the window is 2 s.
// The run returns with success just after it, the four attempts running
// cut and the job unfinished in the records, the sink told the window.
func TestWindowEndsRun(t *testing.T) {
	topo := memTopology(t, 2, 1)
	ds, err := workload.ParseDatasets("ds", []byte("block_size_bytes: 1048576\nreplication: 1\ndatasets:\n  - {name: in, size_bytes: 8388608}\n"), topo)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.ParseWorkloadFor("wl", []byte(smallJob), ds)
	if err != nil {
		t.Fatal(err)
	}
	creds, _ := wire.NewCredentials(hostNames(topo))
	out := t.TempDir()
	sink, err := metrics.NewRunSink(out, w, "fifo", 1)
	if err != nil {
		t.Fatal(err)
	}
	const window = 2 * time.Second
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 1, Cluster: "win",
		Listen: "127.0.0.1:0", Creds: creds, OutDir: out, StopWorkers: true, Logf: t.Logf, Sink: sink,
		Window: window, MaxRunTime: time.Minute}
	cfg.OnListening = func(u string) {
		for _, h := range topo.Hosts {
			slowWorker(t, topo, h, u, creds, "win")
		}
	}
	var started time.Time
	cfg.OnEvent = func(ev Event) {
		if ev.Kind == "started" {
			started = time.Now()
		}
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(started)
	if started.IsZero() || took < window || took > window+5*time.Second {
		t.Errorf("the run ended %v after its start, want just after the %v window", took, window)
	}
	if !res.Cut || res.UnfinishedJobs != 1 || res.Jobs != 0 {
		t.Fatalf("cut %v, unfinished %d, ended %d", res.Cut, res.UnfinishedJobs, res.Jobs)
	}
	s := sink.Summary
	if s.WindowS != 2 || s.UnfinishedJobs != 1 || s.FailedJobs != 0 || s.Attempts != 4 || s.WorkloadsFinished != 0 {
		t.Errorf("summary: window %g s, unfinished %d, failed %d, attempts %d, finished workloads %d; want 2, 1, 0, 4 (cut), 0",
			s.WindowS, s.UnfinishedJobs, s.FailedJobs, s.Attempts, s.WorkloadsFinished)
	}
	attempts, err := os.ReadFile(filepath.Join(out, "attempts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(attempts), `"outcome":"cut"`); n != 4 {
		t.Errorf("%d attempts cut in attempts.jsonl, want the 4 slots'", n)
	}
	jobs, err := os.ReadFile(filepath.Join(out, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(jobs), "\nj,default,unfinished,0.000000,") {
		t.Errorf("jobs.csv:\n%s", jobs)
	}
}

// slowWorker runs an in-process worker whose tier reads at 0.1 MB/s.
func slowWorker(t *testing.T, topo *cluster.Topology, h cluster.Host, url string, creds wire.Credentials, clusterName string) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := agent.Config{Host: h.Name, Rack: topo.Racks[h.Rack].Name, Slots: h.Slots, NATSURL: url,
		Password: creds.Workers[h.Name], Cluster: clusterName, DataAddr: "127.0.0.1:0", MemberAddr: "127.0.0.1",
		Tiers: []store.TierConfig{{Kind: cluster.Mem, Dir: filepath.Join(t.TempDir(), h.Name), ReadBps: 0.1e6}}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := agent.Run(ctx, cfg); err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("worker %s: %v", cfg.Host, err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}
