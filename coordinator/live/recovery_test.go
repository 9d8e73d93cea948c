package live

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/fifo"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/worker/agent"
	"github.com/racklab/racklab/worker/store"
)

// startWorkerAt runs one in-process worker for a host until its cancel
// (or the test's end).
func startWorkerAt(t testing.TB, topo *cluster.Topology, h cluster.Host, url string, creds wire.Credentials, clusterName string) context.CancelFunc {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := agent.Config{Host: h.Name, Rack: topo.Racks[h.Rack].Name, Slots: h.Slots, NATSURL: url,
		Password: creds.Workers[h.Name], Cluster: clusterName, DataAddr: "127.0.0.1:0", MemberAddr: "127.0.0.1",
		Tiers: []store.TierConfig{{Kind: cluster.Mem, Dir: filepath.Join(t.TempDir(), h.Name)}}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := agent.Run(ctx, cfg); err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("worker %s: %v", cfg.Host, err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return cancel
}

func startCancellableWorkers(t testing.TB, topo *cluster.Topology, url string, creds wire.Credentials, clusterName string) map[string]context.CancelFunc {
	cancels := map[string]context.CancelFunc{}
	for _, h := range topo.Hosts {
		cancels[h.Name] = startWorkerAt(t, topo, h, url, creds, clusterName)
	}
	return cancels
}

func parseInputs(t testing.TB, topo *cluster.Topology, wl string) (*workload.Workload, *workload.Datasets) {
	t.Helper()
	ds, err := workload.ParseDatasets("ds", []byte("block_size_bytes: 1048576\nreplication: 2\ndatasets:\n  - {name: in, size_bytes: 4194304}\n"), topo)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.ParseWorkloadFor("wl", []byte(wl), ds)
	if err != nil {
		t.Fatal(err)
	}
	return w, ds
}

// dupfifo is FIFO that also duplicates every running map once, so that
// the engine kills the losers.
type dupfifo struct{ fifo.Policy }

func (*dupfifo) Name() string { return "dupfifo" }

func (p *dupfifo) OfferHost(ctx *engine.Context, h cluster.HostID) {
	p.Policy.OfferHost(ctx, h)
	for _, j := range ctx.Running() {
		for s, st := range j.Stages {
			if st.Spec.Kind != workload.Map {
				continue
			}
			for i := range st.Tasks {
				t := &st.Tasks[i]
				if ctx.FreeSlots(h) == 0 {
					return
				}
				if len(t.Running()) == 1 && t.Attempts == 1 {
					_, _ = ctx.LaunchDuplicate(engine.TaskRef{Job: j.ID, Stage: int16(s), Index: int32(i)}, h, engine.LaunchOptions{})
				}
			}
		}
	}
}

// Attempts the engine kills (here the losers of duplicate races) are
// killed on their workers too.
func TestEngineKillsReachWorkers(t *testing.T) {
	topo := memTopology(t, 2, 2)
	// three maps on hosts of two slots: the host that gets the third has a
	// slot left for a duplicate in the same offer, whatever the order
	// (the engine stops offering once nothing is pending)
	ds, err := workload.ParseDatasets("ds", []byte("block_size_bytes: 1048576\nreplication: 2\ndatasets:\n  - {name: in, size_bytes: 3145728}\n"), topo)
	if err != nil {
		t.Fatal(err)
	}
	w, err := workload.ParseWorkloadFor("wl", []byte(`jobs:
  - id: j
    stages:
      - {name: map, kind: map, input: in, selectivity: 1, compute_ns_per_byte: 1500}
      - {name: reduce, kind: reduce, tasks: 1, after: [map], selectivity: 1}
`), ds)
	if err != nil {
		t.Fatal(err)
	}
	creds, _ := wire.NewCredentials(hostNames(topo))
	subj, _ := wire.NewSubjects("kill")
	var mu sync.Mutex
	kills := map[int64]bool{}
	out := t.TempDir()
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "dupfifo", PolicyImpl: &dupfifo{}, Seed: 1, Cluster: "kill",
		Listen: "127.0.0.1:0", Creds: creds, OutDir: out, StopWorkers: true, Logf: t.Logf}
	cfg.OnListening = func(u string) {
		startCancellableWorkers(t, topo, u, creds, "kill")
		admin, err := nats.Connect(u, nats.UserInfo(wire.CoordinatorUser, creds.Coordinator))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(admin.Close)
		_, _ = admin.Subscribe(subj.WorkerWildcard(), func(m *nats.Msg) {
			var k wire.Kill
			if wire.Decode(m.Data, wire.TypeKill, &k) == nil {
				mu.Lock()
				kills[k.Attempt] = true
				mu.Unlock()
			}
		})
	}
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "attempts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	time.Sleep(200 * time.Millisecond) // late reports of killed attempts
	mu.Lock()
	defer mu.Unlock()
	killed := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var a struct {
			ID      int64
			Outcome string
		}
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		if a.Outcome != "killed" {
			continue
		}
		killed++
		if !kills[a.ID] {
			t.Errorf("attempt %d was killed by the engine, but no kill reached its worker", a.ID)
		}
		// (its worker may still report success: a loser can finish just
		// before the kill reaches it)
	}
	if killed == 0 {
		t.Fatal("the engine killed nothing: the test tests nothing")
	}
}

// A map host dies after a reducer has fetched all it needs: the
// reducer's success, arriving while the lost maps are recomputed, counts.
func TestReducerFinishesWhileUpstreamRecomputed(t *testing.T) {
	topo := memTopology(t, 2, 2)
	w, ds := parseInputs(t, topo, `jobs:
  - id: j
    stages:
      - {name: map, kind: map, input: in, selectivity: 1, compute_ns_per_byte: 3000}
      - {name: reduce, kind: reduce, tasks: 1, after: [map], selectivity: 1, compute_ns_per_byte: 500}
`)
	creds, _ := wire.NewCredentials(hostNames(topo))
	subj, _ := wire.NewSubjects("ref")
	var cancels map[string]context.CancelFunc
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 1, Cluster: "ref", Listen: "127.0.0.1:0",
		Creds: creds, OutDir: t.TempDir(), StopWorkers: true, Logf: t.Logf, HeartbeatTimeout: time.Second, MaxRunTime: 40 * time.Second}
	var mu sync.Mutex
	var lost bool
	cfg.OnEvent = func(ev Event) {
		mu.Lock()
		lost = lost || ev.Kind == "host-lost"
		mu.Unlock()
	}
	cfg.OnListening = func(u string) {
		cancels = startCancellableWorkers(t, topo, u, creds, "ref")
		admin, err := nats.Connect(u, nats.UserInfo(wire.CoordinatorUser, creds.Coordinator))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(admin.Close)
		reduceHost := map[int64]string{}
		srcHosts := map[string]bool{}
		done := false
		_, _ = admin.Subscribe(subj.WorkerWildcard(), func(m *nats.Msg) {
			host := strings.TrimPrefix(m.Subject, subj.Prefix+".worker.")
			var att int64
			var complete bool
			var srcs []wire.Range
			var l wire.Launch
			var s wire.Sources
			switch {
			case wire.Decode(m.Data, wire.TypeLaunch, &l) == nil && l.Kind == wire.KindReduce:
				reduceHost[l.Attempt] = host
				att, complete, srcs = l.Attempt, l.Complete, l.Sources
			case wire.Decode(m.Data, wire.TypeSources, &s) == nil:
				att, complete, srcs = s.Attempt, s.Complete, s.Sources
			default:
				return
			}
			for _, r := range srcs {
				srcHosts[r.Host] = true
			}
			if !complete || done {
				return
			}
			done = true
			for h := range srcHosts {
				if h != reduceHost[att] {
					cancel := cancels[h]
					go func() { time.Sleep(300 * time.Millisecond); cancel() }()
					return
				}
			}
		})
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v (hosts lost %v)", err, res.HostsLost)
	}
	if res.FailedJobs != 0 {
		t.Fatalf("%d jobs failed", res.FailedJobs)
	}
	mu.Lock()
	defer mu.Unlock()
	if !lost {
		t.Fatal("no host was lost: the test tests nothing")
	}
}

// A worker that crashes and is restarted before its heartbeats are
// missed is a new worker: the old one is declared lost and its work
// rerun, and the run completes.
func TestWorkerRestartedWithinHeartbeatTimeout(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := computingInputs(t, topo, 2000)
	creds, _ := wire.NewCredentials(hostNames(topo))
	var url string
	var cancels map[string]context.CancelFunc
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 1, Cluster: "rst", Listen: "127.0.0.1:0",
		Creds: creds, OutDir: t.TempDir(), StopWorkers: true, Logf: t.Logf, MaxRunTime: 30 * time.Second}
	cfg.OnListening = func(u string) { url = u; cancels = startCancellableWorkers(t, topo, u, creds, "rst") }
	cfg.OnEvent = func(ev Event) {
		if ev.Kind != "started" {
			return
		}
		go func() {
			time.Sleep(time.Second)
			h := topo.Hosts[1]
			cancels[h.Name]()
			time.Sleep(1500 * time.Millisecond)
			startWorkerAt(t, topo, h, url, creds, "rst")
		}()
	}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v (hosts lost %v)", err, res.HostsLost)
	}
	if len(res.HostsLost) != 1 {
		t.Fatalf("hosts lost %v, want the restarted one", res.HostsLost)
	}
}

// A worker that dies while writing the input blocks fails the run with
// the reason, promptly.
func TestWorkerDiesDuringMaterialize(t *testing.T) {
	topo := memTopology(t, 2, 1)
	w, ds := smallInputs(t, topo)
	creds, _ := wire.NewCredentials(hostNames(topo))
	var cancels map[string]context.CancelFunc
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "fifo", Seed: 1, Cluster: "prep", Listen: "127.0.0.1:0",
		Creds: creds, OutDir: t.TempDir(), StopWorkers: true, Logf: t.Logf, HeartbeatTimeout: time.Second}
	cfg.OnListening = func(u string) { cancels = startCancellableWorkers(t, topo, u, creds, "prep") }
	cfg.OnEvent = func(ev Event) {
		if ev.Kind == "membership-agreed" {
			cancels["r1h0"]()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Run(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), "r1h0 was lost while writing") {
		t.Fatalf("run ended with %v, want the loss of r1h0 during materialization", err)
	}
}
