package live

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/policytest"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
)

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
	creds, _ := wire.NewCredentials(hostNames(topo))
	subj, _ := wire.NewSubjects("lostin")
	out := t.TempDir()
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "greedy",
		PolicyImpl: &policytest.Greedy{Farthest: engine.NodeLocal}, // maps where their block is: outputs on r1h1
		Seed:       1, Cluster: "lostin", Listen: "127.0.0.1:0",
		Creds: creds, OutDir: out, StopWorkers: true, Logf: t.Logf, MemberAddr: "127.0.0.1", MaxRunTime: 40 * time.Second}
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
	for _, want := range []string{"2 finished tasks to recompute", "job-failed", "doomed", "every replica of input block", "job-succeeded"} {
		if !strings.Contains(string(events), want) {
			t.Errorf("events.jsonl does not mention %q", want)
		}
	}
}

// idle is a policy that launches nothing: the engine allows slots left
// idle, and a run under it can never progress.
type idle struct{}

func (idle) Name() string                                    { return "idle" }
func (idle) OfferHost(ctx *engine.Context, h cluster.HostID) {}

// A run that can never progress ends, within its StallTimeout, with an
// error that says why; events.jsonl and result.json record it.
func TestStalledRunEndsWithReason(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := smallInputs(t, topo)
	creds, _ := wire.NewCredentials(hostNames(topo))
	out := t.TempDir()
	// just above the default heartbeat timeout (3 s)
	const bound = 4 * time.Second
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "idle", PolicyImpl: idle{}, Seed: 1, Cluster: "idle",
		Listen: "127.0.0.1:0", Creds: creds, OutDir: out, StopWorkers: true, Logf: t.Logf,
		StallTimeout: bound, MaxRunTime: 20 * time.Second}
	cfg.OnListening = func(u string) { startWorkers(t, topo, u, creds, "idle") }
	var started time.Time
	cfg.OnEvent = func(ev Event) {
		if ev.Kind == "started" {
			started = time.Now()
		}
	}
	res, err := Run(context.Background(), cfg)
	took := time.Since(started)
	want := "the run stalled: no progress for 4s at t="
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("run ended with %v, want %q", err, want)
	}
	t.Logf("%v after the start: %v", took.Round(time.Millisecond), err)
	if took < bound || took > bound+3*time.Second {
		t.Errorf("the run ended %v after its start, want just after the %v bound", took, bound)
	}
	for _, want := range []string{"with 4 tasks pending and 0 attempts running", "4 free slots the policy leaves idle",
		"1 jobs left: j (running, 0 of 6 tasks done, 4 pending)", "no host lost"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the reason lacks %q", want)
		}
	}
	if !res.Stalled || "the run stalled: "+res.StallReason != err.Error() {
		t.Errorf("result stalled %v, reason %q; want the error's", res.Stalled, res.StallReason)
	}
	events, rerr := os.ReadFile(filepath.Join(out, "events.jsonl"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if !strings.Contains(string(events), `"stalled"`) || !strings.Contains(string(events), res.StallReason) {
		t.Errorf("events.jsonl does not record the stall:\n%s", events)
	}
	b, rerr := os.ReadFile(filepath.Join(out, "result.json"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	var rec struct {
		Stalled bool   `json:"stalled"`
		Reason  string `json:"stall_reason"`
	}
	if rerr := json.Unmarshal(b, &rec); rerr != nil || !rec.Stalled || rec.Reason != res.StallReason {
		t.Errorf("result.json %s: want the stall recorded (%v)", b, rerr)
	}
}

// Every host lost with work left: no slot will ever come back, and the
// watchdog says so.
func TestRunWithoutLiveHostStalls(t *testing.T) {
	topo := memTopology(t, 2, 1)
	// maps without input (generators) cannot lose it with their hosts
	ds, err := workload.ParseDatasets("ds", []byte("datasets:\n  - {name: none, size_bytes: 0, block_size_bytes: 1048576}\n"), topo)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.ParseWorkloadFor("wl", []byte(`jobs:
  - id: gen
    stages:
      - {name: map, kind: map, input: none, tasks: 8, output_bytes: 8388608, compute_ns_per_byte: 1000}
`), ds)
	if err != nil {
		t.Fatal(err)
	}
	creds, _ := wire.NewCredentials(hostNames(topo))
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 1, Cluster: "nohost",
		Listen: "127.0.0.1:0", Creds: creds, OutDir: t.TempDir(), StopWorkers: true, Logf: t.Logf, MemberAddr: "127.0.0.1",
		StallTimeout: 4 * time.Second, MaxRunTime: 20 * time.Second}
	var cancels map[string]context.CancelFunc
	cfg.OnListening = func(u string) { cancels = startCancellableWorkers(t, topo, u, creds, "nohost") }
	cfg.OnEvent = func(ev Event) {
		if ev.Kind == "started" {
			for _, c := range cancels {
				c()
			}
		}
	}
	_, err = Run(context.Background(), cfg)
	if err == nil {
		t.Fatal("a run without a live host finished")
	}
	for _, want := range []string{"the run stalled: no progress for 4s", "8 tasks pending and 0 attempts running, no live slot",
		"gen (running, 0 of 8 tasks done, 8 pending)", "hosts lost: r"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("run ended with %v: want %q in it", err, want)
		}
	}
}

// A stall timeout not longer than the heartbeat timeout would end runs
// whose silent hosts are yet to be declared lost: refused.
func TestStallTimeoutShorterThanHeartbeatsRefused(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := smallInputs(t, topo)
	_, err := Run(context.Background(), Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Cluster: "short",
		OutDir: t.TempDir(), HeartbeatTimeout: 3 * time.Second, StallTimeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "stall timeout 2s must be longer than the heartbeat timeout 3s") {
		t.Fatalf("run started with %v", err)
	}
}
