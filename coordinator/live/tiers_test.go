package live

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/racklab/racklab/coordinator/cluster"
	"github.com/racklab/racklab/coordinator/engine"
	"github.com/racklab/racklab/coordinator/policy/fifo"
	"github.com/racklab/racklab/coordinator/wire"
	"github.com/racklab/racklab/coordinator/workload"
	"github.com/racklab/racklab/worker/agent"
	"github.com/racklab/racklab/worker/store"
)

// caching is FIFO that, once a map has read its input, moves the replica
// it read into memory (a Trident-like cache): the engine's SetReplicaTier.
type caching struct {
	fifo.Policy
	moves int
}

func (*caching) Name() string { return "caching" }

func (p *caching) InputDone(ctx *engine.Context, a *engine.Attempt) {
	if a.Source.Host < 0 || a.Source.Tier == cluster.Mem {
		return
	}
	st := ctx.Job(a.Task.Job).Stages[a.Task.Stage]
	if err := ctx.SetReplicaTier(st.Spec.Input, int(ctx.Task(a.Task).Block), a.Source.Host, cluster.Mem); err == nil {
		p.moves++
	}
}

// A replica the policy moves between tiers is moved by its worker, byte
// for byte: a later job reads it from its new tier, on which the engine
// counts it, and finds it there.
func TestReplicaTierMovesReachTheWorkers(t *testing.T) {
	// the second job reads the first one's input again, once it is done
	topo, w, ds, creds := tierCluster(t, []cluster.Tier{
		{Kind: cluster.Mem, ReadBps: 2e9, WriteBps: 2e9, CapacityBytes: 1 << 30},
		{Kind: cluster.HDD, ReadBps: 2e9, WriteBps: 2e9, CapacityBytes: 1 << 30},
	}, `jobs:
  - id: first
    stages:
      - {name: map, kind: map, input: in, selectivity: 1}
  - id: again
    parents: [first]
    stages:
      - {name: map, kind: map, input: in, selectivity: 1}
`)
	out := t.TempDir()
	p := &caching{}
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "caching", PolicyImpl: p, Seed: 1, Cluster: "tiers",
		Listen: "127.0.0.1:0", Creds: creds, OutDir: out, StopWorkers: true, Logf: t.Logf}
	var dirs map[string][2]string
	cfg.OnListening, dirs = tierWorkers(t, topo, creds, "tiers", func(mem, hdd string) []store.TierConfig {
		return []store.TierConfig{{Kind: cluster.Mem, Dir: mem}, {Kind: cluster.HDD, Dir: hdd}}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Jobs != 2 || res.FailedJobs != 0 {
		t.Fatalf("jobs %d, failed %d", res.Jobs, res.FailedJobs)
	}
	if p.moves == 0 {
		t.Fatal("the policy moved no replica")
	}
	events, err := os.ReadFile(filepath.Join(out, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(events), `"kind":"replica-moved"`); n != p.moves {
		t.Errorf("%d replica-moved events for %d moves", n, p.moves)
	}
	if strings.Contains(string(events), `"kind":"attempt-failed"`) {
		t.Errorf("an attempt failed: a map read a replica from the tier it was moving to before its bytes were there?\n%s", events)
	}
	if strings.Contains(string(events), "replica-move-failed") {
		t.Errorf("a move failed:\n%s", events)
	}
	// the bytes are in memory now, and nowhere else on their host
	inMem := 0
	for _, d := range dirs {
		inMem += countFiles(t, filepath.Join(d[0], wire.DatasetObjects))
	}
	if inMem != p.moves {
		t.Errorf("%d blocks in memory tiers, want the %d moved", inMem, p.moves)
	}
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// lruCache is FIFO that keeps one block in each host's memory: once a
// map has read a replica from HDD, it demotes the block it put in that
// host's memory before, then promotes the one read (the engine's memory
// cache, engine.Config.MemoryLRU, makes the same pairs of moves).
type lruCache struct {
	fifo.Policy
	inMem map[cluster.HostID]int // the block of "in" each host holds in memory
	moves int
}

func (*lruCache) Name() string { return "lru-cache" }

func (p *lruCache) InputDone(ctx *engine.Context, a *engine.Attempt) {
	h := a.Source.Host
	if h < 0 || a.Source.Tier != cluster.HDD {
		return
	}
	block := int(ctx.Task(a.Task).Block)
	if old, ok := p.inMem[h]; ok {
		if old == block {
			return
		}
		if err := ctx.SetReplicaTier("in", old, h, cluster.HDD); err == nil {
			p.moves++
		}
		delete(p.inMem, h)
	}
	if err := ctx.SetReplicaTier("in", block, h, cluster.Mem); err == nil {
		p.moves++
		p.inMem[h] = block
	}
}

// Memory that holds one block takes a promotion only once the demotion
// that makes room for it is done: the coordinator holds the promotion
// until the worker has answered the demotion (a worker runs the moves
// it gets at once, and the promotion would find the tier full), and a
// replica's second move until its first is done.
func TestPromotionWaitsForTheDemotionThatMakesRoom(t *testing.T) {
	const block = 1 << 20
	topo, w, ds, creds := tierCluster(t, []cluster.Tier{
		{Kind: cluster.Mem, ReadBps: 2e9, WriteBps: 2e9, CapacityBytes: block},
		{Kind: cluster.HDD, ReadBps: 2e9, WriteBps: 8 * block}, // unbounded; a move down takes ~0.1 s
	}, `jobs:
  - id: first
    stages:
      - {name: map, kind: map, input: in, selectivity: 0}
  - id: again
    parents: [first]
    stages:
      - {name: map, kind: map, input: in, selectivity: 0}
`)
	out := t.TempDir()
	p := &lruCache{inMem: map[cluster.HostID]int{}}
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "lru-cache", PolicyImpl: p, Seed: 1, Cluster: "lru",
		Listen: "127.0.0.1:0", Creds: creds, OutDir: out, StopWorkers: true, Logf: t.Logf}
	var tierDirs map[string][2]string
	cfg.OnListening, tierDirs = tierWorkers(t, topo, creds, "lru", func(mem, hdd string) []store.TierConfig {
		return []store.TierConfig{{Kind: cluster.Mem, Dir: mem, Capacity: block}, {Kind: cluster.HDD, Dir: hdd, WriteBps: 8 * block}}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Jobs != 2 || res.FailedJobs != 0 {
		t.Fatalf("jobs %d, failed %d", res.Jobs, res.FailedJobs)
	}
	if p.moves < 2*len(topo.Hosts) {
		t.Fatalf("the policy made %d moves: no host both demoted and promoted", p.moves)
	}
	events, err := os.ReadFile(filepath.Join(out, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(events), "replica-move-failed") || strings.Contains(string(events), "replica-move-un") {
		t.Errorf("a move failed or was left undone:\n%s", events)
	}
	if n := strings.Count(string(events), `"kind":"replica-moved"`); n != p.moves {
		t.Errorf("%d replica-moved events for %d moves", n, p.moves)
	}
	for host, dirs := range tierDirs {
		dir := dirs[0]
		if n := countFiles(t, filepath.Join(dir, wire.DatasetObjects)); n != 1 {
			t.Errorf("host %s holds %d blocks in memory, want the one its cache kept", host, n)
		}
	}
}

// promoting is FIFO that moves every HDD replica of a job's input into
// memory as the job is submitted, before its maps launch.
type promoting struct {
	fifo.Policy
	moves int
}

func (*promoting) Name() string { return "promoting" }

func (p *promoting) JobSubmitted(ctx *engine.Context, j engine.JobID) {
	for _, st := range ctx.Job(j).Stages {
		if st.InputClass != engine.ClassInput {
			continue
		}
		for i := range st.Tasks {
			ref := engine.TaskRef{Job: j, Stage: int16(st.Index), Index: int32(i)}
			for _, rep := range ctx.Replicas(ref) {
				if rep.Tier == cluster.HDD && ctx.SetReplicaTier(st.Spec.Input, int(ctx.Task(ref).Block), rep.Host, cluster.Mem) == nil {
					p.moves++
				}
			}
		}
	}
}

// A map launched while its replica is being moved reads the tier the
// bytes are leaving, and its record (attempts.csv's tier) says that
// tier, not the one the engine already counts the replica on.
func TestAttemptRecordsTheTierActuallyRead(t *testing.T) {
	topo, w, ds, creds := tierCluster(t, []cluster.Tier{
		{Kind: cluster.Mem, ReadBps: 2e9, WriteBps: 1 << 20},
		{Kind: cluster.HDD, ReadBps: 2e9, WriteBps: 2e9},
	}, `jobs:
  - id: first
    stages:
      - {name: map, kind: map, input: in, selectivity: 0}
`)
	out := t.TempDir()
	p := &promoting{}
	sink := &recordingSink{} // bench's metrics.RunSink writes a.Tier as attempts.csv's tier
	cfg := Config{Topology: topo, Workload: w, Datasets: ds, Policy: "promoting", PolicyImpl: p, Seed: 1, Cluster: "promote",
		Listen: "127.0.0.1:0", Creds: creds, OutDir: out, StopWorkers: true, Sink: sink, Logf: t.Logf}
	// memory writes at 1 MiB/s: a 1 MiB block's move outlasts the maps'
	// launch, which the same engine call made
	cfg.OnListening, _ = tierWorkers(t, topo, creds, "promote", func(mem, hdd string) []store.TierConfig {
		return []store.TierConfig{{Kind: cluster.Mem, Dir: mem, WriteBps: 1 << 20}, {Kind: cluster.HDD, Dir: hdd}}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Jobs != 1 || res.FailedJobs != 0 || p.moves == 0 {
		t.Fatalf("jobs %d, failed %d, moves %d", res.Jobs, res.FailedJobs, p.moves)
	}
	if len(sink.attempts) == 0 {
		t.Fatal("no attempt recorded")
	}
	for _, a := range sink.attempts {
		if a.Tier != cluster.HDD || a.Source.Tier != cluster.Mem {
			t.Errorf("attempt %d: read from %s (the engine's replica on %s) while the replica moved into memory, want hdd (mem)", a.ID, a.Tier, a.Source.Tier)
		}
	}
}

// tierWorkers starts one worker of a memory and an HDD tier (tiers
// configures them from their directories) for each host when the
// coordinator listens; dirs gives each host's memory and HDD directory.
func tierWorkers(t *testing.T, topo *cluster.Topology, creds wire.Credentials, clusterName string, tiers func(mem, hdd string) []store.TierConfig) (onListening func(url string), dirs map[string][2]string) {
	dirs = map[string][2]string{}
	return func(url string) {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		t.Cleanup(func() { cancel(); wg.Wait() })
		for _, h := range topo.Hosts {
			mem, hdd := filepath.Join(t.TempDir(), "mem"), filepath.Join(t.TempDir(), "hdd")
			dirs[h.Name] = [2]string{mem, hdd}
			ac := agent.Config{Host: h.Name, Rack: topo.Racks[h.Rack].Name, Slots: h.Slots, NATSURL: url,
				Password: creds.Workers[h.Name], Cluster: clusterName, DataAddr: "127.0.0.1:0", MemberAddr: "127.0.0.1",
				Tiers: tiers(mem, hdd)}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := agent.Run(ctx, ac); err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("worker %s: %v", ac.Host, err)
				}
			}()
		}
	}, dirs
}

// tierCluster is the tier tests' cluster: two one-host racks of two slots
// with the given tiers, the jobs over dataset "in" (parseInputs), and the
// workers' credentials.
func tierCluster(t *testing.T, tiers []cluster.Tier, jobs string) (*cluster.Topology, *workload.Workload, *workload.Datasets, wire.Credentials) {
	t.Helper()
	topo, err := cluster.Uniform(cluster.UniformSpec{Racks: 2, HostsPerRack: 1, Slots: 2, NICBps: 125e6, Oversubscription: 1, Tiers: tiers})
	if err != nil {
		t.Fatal(err)
	}
	w, ds := parseInputs(t, topo, jobs)
	creds, err := wire.NewCredentials(hostNames(topo))
	if err != nil {
		t.Fatal(err)
	}
	return topo, w, ds, creds
}
