package live

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
)

// nodeLocal is FIFO that runs maps only where their block is, so that a
// test knows where map outputs are.
type nodeLocal struct{}

func (nodeLocal) Name() string { return "nodelocal" }

func (nodeLocal) OfferHost(ctx *engine.Context, h cluster.HostID) {
	for ctx.FreeSlots(h) > 0 {
		launched := false
		for _, j := range ctx.Running() {
			t, ok := ctx.NextPendingShuffle(j.ID)
			if !ok {
				t, _, ok = ctx.PickMap(j.ID, h, engine.NodeLocal)
			}
			if ok {
				if _, err := ctx.Launch(t, h, engine.LaunchOptions{}); err == nil {
					launched = true
					break
				}
			}
		}
		if !launched {
			return
		}
	}
}

// Two jobs; every block of "doomed"'s input has its only replica on
// r1h1, which dies once doomed's maps are done and its reducer has
// fetched their outputs. doomed fails (its lost map outputs cannot be
// recomputed), "fine" goes on to succeed, and the run ends.
func TestLostInputFailsOnlyItsJob(t *testing.T) {
	const victim = "r1h1"
	topo := memTopology(t, 2, 2)
	ds, err := workload.ParseDatasets("ds", []byte(`block_size_bytes: 1048576
replication: 2
datasets:
  - name: lost
    blocks:
      - {size_bytes: 1048576, replicas: ["r1h1:mem"]}
      - {size_bytes: 1048576, replicas: ["r1h1:mem"]}
  - {name: ok, size_bytes: 4194304}
`), topo)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.ParseWorkloadFor("wl", []byte(`jobs:
  - id: doomed
    stages:
      - {name: map, kind: map, input: lost, selectivity: 1}
      - {name: reduce, kind: reduce, tasks: 1, after: [map], selectivity: 1, compute_ns_per_byte: 2000}
  - id: fine
    stages:
      - {name: map, kind: map, input: ok, selectivity: 1}
      - {name: reduce, kind: reduce, tasks: 1, after: [map], selectivity: 1}
`), ds)
	if err != nil {
		t.Fatal(err)
	}
	creds, _ := wire.NewCredentials()
	subj, _ := wire.NewSubjects("lostin")
	out := t.TempDir()
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "nodelocal", PolicyImpl: nodeLocal{}, Seed: 1, Cluster: "lostin", Listen: "127.0.0.1:0",
		Creds: creds, OutDir: out, StopWorkers: true, Logf: t.Logf, HeartbeatTimeout: 2 * time.Second, MaxRunTime: 40 * time.Second}
	var mu sync.Mutex
	killed := false
	cfg.OnListening = func(u string) {
		cancels := startCancellableWorkers(t, topo, u, creds, "lostin")
		admin, err := nats.Connect(u, nats.UserInfo(wire.CoordinatorUser, creds.Coordinator))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(admin.Close)
		doomedReduce := map[int64]bool{}
		_, _ = admin.Subscribe(subj.WorkerWildcard(), func(m *nats.Msg) {
			var l wire.Launch
			var s wire.Sources
			complete := false
			switch {
			case wire.Decode(m.Data, wire.TypeLaunch, &l) == nil && l.Kind == wire.KindReduce && l.Job == "doomed":
				doomedReduce[l.Attempt] = true
				complete = l.Complete
			case wire.Decode(m.Data, wire.TypeSources, &s) == nil && doomedReduce[s.Attempt]:
				complete = s.Complete
			}
			mu.Lock()
			defer mu.Unlock()
			if !complete || killed {
				return
			}
			// every map of doomed is done, their outputs on the victim: kill it while
			// the reducer computes
			killed = true
			go func() { time.Sleep(300 * time.Millisecond); cancels[victim]() }()
		})
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v (hosts lost %v)", err, res.HostsLost)
	}
	mu.Lock()
	defer mu.Unlock()
	if !killed || len(res.HostsLost) != 1 || res.HostsLost[0] != victim {
		t.Fatalf("hosts lost %v (killed %v): want %s, lost after doomed's maps were done", res.HostsLost, killed, victim)
	}
	if res.Jobs != 2 || res.FailedJobs != 1 {
		t.Fatalf("jobs %d, failed %d: want doomed failed and fine succeeded", res.Jobs, res.FailedJobs)
	}
	events, err := os.ReadFile(filepath.Join(out, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"job-failed", "doomed", "every replica of input block", "job-succeeded"} {
		if !strings.Contains(string(events), want) {
			t.Errorf("events.jsonl does not mention %q", want)
		}
	}
}
